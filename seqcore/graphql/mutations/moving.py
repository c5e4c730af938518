"""``copySamples`` and ``transferSamples`` between projects, with REST's rules.

Copying is REST's sharing: the same sample joins the target project, read-only there (so the
``copy`` id equals the ``original``); the caller must be able to create samples in the target
and read each sample. Transferring moves a sample's membership, and with it the source
project's ownership of the sample, so the caller must own the source project, each sample
and the target project (sequencer accounts, which write every sample to upload into it, own
none and cannot transfer). Samples already
in the target, or whose name is taken there, are errors, and then nothing moves.
"""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.graphql.mutations.base import Problems, UserError, find_project, find_sample, run
from seqcore.graphql.scalars import JSON
from seqcore.models.sample import ProjectSample
from seqcore.samples import name_taken
from seqcore.security.permissions import Permission


class _Move(graphene.relay.ClientIDMutation):
    class Meta:
        abstract = True

    class Input:
        project_id = graphene.ID(required=True, description="The project the samples are in.")
        new_project_id = graphene.ID(required=True)
        sample_ids = graphene.NonNull(graphene.List(graphene.NonNull(graphene.ID)))


def _check(info: Any, project_id: str, new_project_id: str, sample_ids: list[str],
           transfer: bool) -> tuple[Any, Any, list[tuple[str, Any, ProjectSample]]]:
    """Source, target and ``(gid, sample, source join)`` for every sample, or every problem
    at once."""
    verb = "transfer samples from" if transfer else "read"
    source = find_project(info, project_id, "project",
                          Permission.PROJECT_WRITE if transfer else Permission.PROJECT_READ,
                          verb).project
    target = find_project(info, new_project_id, "new_project",
                          Permission.PROJECT_WRITE if transfer else Permission.SAMPLE_CREATE,
                          f"{'transfer' if transfer else 'copy'} samples into").project
    if source.id == target.id:
        raise Problems([{"message": "The source and target projects are the same.",
                         "path": ["new_project"]}])
    ids = list(dict.fromkeys(sample_ids))
    if not ids:
        raise Problems([{"message": "Provide at least one sample.", "path": ["samples"]}])
    errors: list[dict[str, Any]] = []
    found = []
    for gid in ids:
        try:
            sample = find_sample(info, gid, ["samples", gid],
                                 Permission.SAMPLE_OWN if transfer else Permission.SAMPLE_READ,
                                 "transfer" if transfer else "copy").sample
        except Problems as err:
            errors.extend(err.errors)
            continue
        found.append((gid, sample))
    db = info.context.db
    joins = {join.sample_id: join for join in db.scalars(select(ProjectSample).where(
        ProjectSample.project_id.in_([source.id, target.id]),
        ProjectSample.sample_id.in_([sample.id for _, sample in found])))
        if join.project_id == source.id}
    in_target = set(db.scalars(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == target.id,
        ProjectSample.sample_id.in_([sample.id for _, sample in found]))))
    result = []
    for gid, sample in found:
        path = ["samples", gid]
        if sample.id not in joins:
            errors.append({"message": f"Sample {sample.name} is not in project {source.name}.",
                           "path": path})
        elif sample.id in in_target:
            errors.append({"message": f"Sample {sample.name} is already in project "
                                      f"{target.name}.", "path": path})
        elif name_taken(db, target.id, sample.name):
            errors.append({"message": f"A sample named {sample.name} already exists in "
                                      f"project {target.name}.", "path": path})
        else:
            result.append((gid, sample, joins[sample.id]))
    if errors:
        raise Problems(errors)
    return source, target, result


class CopySamples(_Move):
    """Copy (share) samples into another project, read-only there."""

    samples = graphene.Field(JSON, description="[{original, copy}] global ids.")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str,
                               new_project_id: str, sample_ids: list[str], **_: Any) -> Any:
        def work() -> dict[str, Any]:
            _, target, moves = _check(info, project_id, new_project_id, sample_ids, False)
            for _gid, sample, _join in moves:
                info.context.db.add(ProjectSample(project_id=target.id, sample_id=sample.id,
                                                  sample_name=sample.name, owner=False))
            return {"samples": [{"original": gid, "copy": gid} for gid, _, _ in moves]}

        return run(info, cls, work)


class TransferSamples(_Move):
    """Move samples to another project, keeping whether the project owns them."""

    samples = graphene.List(graphene.NonNull(graphene.ID),
                            description="Global ids of the transferred samples.")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str,
                               new_project_id: str, sample_ids: list[str], **_: Any) -> Any:
        def work() -> dict[str, Any]:
            _, target, moves = _check(info, project_id, new_project_id, sample_ids, True)
            db = info.context.db
            for _gid, sample, join in moves:
                owner = join.owner
                db.delete(join)
                db.add(ProjectSample(project_id=target.id, sample_id=sample.id,
                                     sample_name=sample.name, owner=owner))
            return {"samples": [gid for gid, _, _ in moves]}

        return run(info, cls, work)
