"""The stored paths that entries still in the trash hold: what deleting files for good
(:mod:`seqcore.governance.purge`) and purging an expired entry
(:mod:`seqcore.governance.trash`) must both leave on disk."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.models.trash import TrashEntry


def held_in_trash(db: Session, paths: Iterable[str], but: int | None = None) -> set[str]:
    """The ``paths`` an entry still in the trash (neither purged nor restored; not entry
    ``but``) keeps: a deleted sample or clone may yet be restored, so its bytes stay even when
    no live row uses them any more."""
    wanted = set(paths)
    if not wanted:
        return set()
    query = select(TrashEntry.paths).where(TrashEntry.purged.is_(None),
                                           TrashEntry.restored.is_(None))
    if but is not None:
        query = query.where(TrashEntry.id != but)
    return wanted.intersection(p for kept in db.scalars(query) for p in (kept or []))
