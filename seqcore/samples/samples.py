"""Operations on samples shared by REST, GraphQL and plugins: creating and changing them,
sharing (copying) and moving them between projects, deleting them.

Arguments are validated column values (:class:`SampleValues`;
:class:`seqcore.parsing.schemas.SampleSchema` checks the wire fields); refusals are domain errors,
which each transport words in its own format. Who may do what is the transport's question (traversal
ACLs), asked before these run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any, TypedDict

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Conflict, Invalid
from seqcore.governance.activity import note, operation
from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample, Sample
from seqcore.security.fieldaccess import check_no_widening


class SampleValues(TypedDict, total=False):
    """The columns of a sample an operation may set, validated (by
    :class:`seqcore.parsing.schemas.SampleSchema` for the wire); creation needs ``name``."""

    name: str
    description: str | None
    organism: str | None
    isolate: str | None
    strain: str | None
    collected_by: str | None
    collection_date: date | None
    geographic_location_name: str | None
    isolation_source: str | None
    latitude: str | None
    longitude: str | None


def name_taken(db: Session, project_id: int, name: str, exclude_sample: int | None = None
               ) -> bool:
    query = select(ProjectSample.id).where(ProjectSample.project_id == project_id,
                                           ProjectSample.sample_name == name)
    if exclude_sample is not None:
        query = query.where(ProjectSample.sample_id != exclude_sample)
    return db.scalar(query) is not None


def duplicate_name(name: str, project_id: int) -> Conflict:
    """The refusal of a second sample called ``name`` in a project."""
    return Conflict(f"An entity already exists with that identifier: Sample with the name "
                    f"'{name}' already exists in project {project_id}")


@operation("sample.create")
def create_sample(db: Session, project_id: int, values: SampleValues) -> Sample:
    """A new sample owned by the project (not flushed yet); :class:`Conflict` if the name is
    taken there."""
    if name_taken(db, project_id, values["name"]):
        raise duplicate_name(values["name"], project_id)
    sample = Sample(**values)
    sample.projects.append(ProjectSample(project_id=project_id, sample_name=sample.name,
                                         owner=True))
    db.add(sample)
    return sample


@operation("sample.update")
def update_sample(db: Session, sample: Sample, values: SampleValues) -> None:
    """Change the given columns; a new name must be free in every project holding the
    sample (:class:`Conflict` naming the first that has one), and is its name there too."""
    new_name = values.get("name")
    if new_name is not None and new_name != sample.name:
        joins = list(db.scalars(select(ProjectSample).where(
            ProjectSample.sample_id == sample.id)))
        for join in joins:
            if name_taken(db, join.project_id, new_name, exclude_sample=sample.id):
                raise duplicate_name(new_name, join.project_id)
        for join in joins:
            join.sample_name = new_name
    for attr, value in values.items():
        setattr(sample, attr, value)
    sample.modified = utcnow()


@operation("sample.share")
def share_samples(db: Session, project_id: int, samples: Sequence[Sample], owner: bool
                  ) -> tuple[list[tuple[Sample, ProjectSample]], list[str]]:
    """Add readable samples to a project, leniently: a sample already there is answered
    with its membership, one whose name the project uses is skipped; both with a warning.
    ``owner`` lets the project's owners change the samples too."""
    existing = {j.sample_id: j for j in db.scalars(
        select(ProjectSample).where(ProjectSample.project_id == project_id,
                                    ProjectSample.sample_id.in_([s.id for s in samples])))}
    warnings = []
    joined = []
    for sample in samples:
        if sample.id in existing:
            warnings.append(f"Cannot add sample id {sample.id} ({sample.name}) as this sample "
                            "already exists in the project.")
            joined.append((sample, existing[sample.id]))
        elif name_taken(db, project_id, sample.name):
            warnings.append(f"Cannot add sample id {sample.id} ({sample.name}) as a sample with "
                            "this name already exists in the project.")
        else:
            join = ProjectSample(project_id=project_id, sample_id=sample.id,
                                 sample_name=sample.name, owner=owner)
            db.add(join)
            joined.append((sample, join))
    db.flush()
    return joined, warnings


def check_move(db: Session, source: Project, target: Project, samples: Sequence[Sample]
               ) -> dict[int, ProjectSample]:
    """Each sample's membership of ``source``, if every sample can go to ``target``: it is
    in the source, not in the target yet, and its name is free there. Otherwise
    :class:`Invalid` with a problem for each sample that cannot, keyed by its id."""
    ids = [sample.id for sample in samples]
    joins = {join.sample_id: join for join in db.scalars(select(ProjectSample).where(
        ProjectSample.project_id == source.id, ProjectSample.sample_id.in_(ids)))}
    in_target = set(db.scalars(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == target.id, ProjectSample.sample_id.in_(ids))))
    problems: dict[str, list[str]] = {}
    for sample in samples:
        if sample.id not in joins:
            problems[str(sample.id)] = [f"Sample {sample.name} is not in project "
                                        f"{source.name}."]
        elif sample.id in in_target:
            problems[str(sample.id)] = [f"Sample {sample.name} is already in project "
                                        f"{target.name}."]
        elif name_taken(db, target.id, sample.name):
            problems[str(sample.id)] = [f"A sample named {sample.name} already exists in "
                                        f"project {target.name}."]
    if problems:
        raise Invalid(problems)
    return joins


@operation("sample.copy")
def copy_samples(db: Session, source: Project, target: Project, samples: Sequence[Sample]
                 ) -> None:
    """Copy (share) samples into ``target``, read-only there: the same samples, in one
    more project. :class:`Invalid` (nothing copied) as :func:`check_move` says."""
    check_move(db, source, target, samples)
    for sample in samples:
        db.add(ProjectSample(project_id=target.id, sample_id=sample.id,
                             sample_name=sample.name, owner=False))


@operation("sample.transfer")
def transfer_samples(db: Session, source: Project, target: Project, samples: Sequence[Sample]
                     ) -> None:
    """Move samples from ``source`` to ``target``, with the source's ownership of each.
    :class:`Invalid` (nothing moved) as :func:`check_move` says; :class:`Forbidden` when the
    move would let someone read a field the source restricts from them
    (:func:`seqcore.security.fieldaccess.check_no_widening`)."""
    joins = check_move(db, source, target, samples)
    check_no_widening(db, samples, source.id, target.id)
    for sample in samples:
        join = joins[sample.id]
        owner = join.owner
        db.delete(join)
        db.add(ProjectSample(project_id=target.id, sample_id=sample.id,
                             sample_name=sample.name, owner=owner))


def delete_samples(db: Session, pm: Any, sample_ids: Iterable[int], request: Any = None
                   ) -> None:
    """Delete samples with everything attached; plugins are told first (files, caches).

    Always part of an operation that says why (``sample.remove``, ``project.delete``,
    ``run.delete``), whose activity record lists the samples.

    Raises :class:`~seqcore.analysis.dependents.InputsInUse` (nothing deleted) when an
    analysis submission used sequence data of one of them.
    """
    from seqcore.analysis.dependents import refuse_if_used

    ids = list(sample_ids)
    if not ids:
        return
    # Held until the deletion commits: a clone being made of one of them (which names its
    # stored bytes, seqcore.samples.clones) finishes first and keeps them, or waits and
    # finds the sample gone.
    db.execute(update(Sample).where(Sample.id.in_(sorted(ids))).values(name=Sample.name)
               .execution_options(synchronize_session=False))
    refuse_if_used(db, "Sample(s) " + ", ".join(map(str, sorted(ids)))
                   + " hold sequence data that", sample_ids=ids)
    from seqcore.governance.trash import trash_samples, trashing

    held = list(db.scalars(select(ProjectSample.project_id).where(
        ProjectSample.sample_id.in_(ids))))
    names = dict(db.execute(select(Sample.id, Sample.name).where(Sample.id.in_(ids))).all())
    with trashing(db) as kept:
        note(db, projects=held, samples=ids, on="sample", action="deleted",
             ids=sorted(ids), names=[names.get(i) for i in sorted(ids)], trashed=kept)
        if kept:
            trash_samples(db, ids)
        pm.hook.samples_deleting(sample_ids=ids, request=request)
        db.execute(delete(Sample).where(Sample.id.in_(ids)))


def orphans_after_removal(db: Session, project_id: int, sample_ids: Iterable[int] | None = None
                          ) -> list[int]:
    """Samples of ``project_id`` (or just ``sample_ids``) that no other project holds."""
    others = (select(ProjectSample.sample_id)
              .where(ProjectSample.project_id != project_id)
              .group_by(ProjectSample.sample_id))
    query = select(ProjectSample.sample_id).where(
        ProjectSample.project_id == project_id, ProjectSample.sample_id.not_in(others))
    if sample_ids is not None:
        query = query.where(ProjectSample.sample_id.in_(list(sample_ids)))
    return list(db.scalars(query))


@operation("sample.remove")
def remove_from_project(db: Session, pm: Any, join: ProjectSample, request: Any = None
                        ) -> None:
    """Take a sample out of a project; delete it if no other project holds it."""
    orphans = orphans_after_removal(db, join.project_id, [join.sample_id])
    if orphans:  # the membership goes with the sample (and into its trash snapshot)
        delete_samples(db, pm, orphans, request)
        db.expunge(join)
    else:
        db.delete(join)
        db.flush()
