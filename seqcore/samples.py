"""Operations on samples shared by REST, GraphQL and plugins."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.models.sample import ProjectSample, Sample


def name_taken(db: Session, project_id: int, name: str, exclude_sample: int | None = None
               ) -> bool:
    query = select(ProjectSample.id).where(ProjectSample.project_id == project_id,
                                           ProjectSample.sample_name == name)
    if exclude_sample is not None:
        query = query.where(ProjectSample.sample_id != exclude_sample)
    return db.scalar(query) is not None


def delete_samples(db: Session, pm: Any, sample_ids: Iterable[int], request: Any = None
                   ) -> None:
    """Delete samples with everything attached; plugins are told first (files, caches).

    Raises :class:`~seqcore.analysis.dependents.InputsInUse` (nothing deleted) when an
    analysis submission used sequence data of one of them.
    """
    from seqcore.analysis.dependents import refuse_if_used

    ids = list(sample_ids)
    if not ids:
        return
    refuse_if_used(db, "Sample(s) " + ", ".join(map(str, sorted(ids)))
                   + " hold sequence data that", sample_ids=ids)
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
