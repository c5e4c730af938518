"""Synchronized projects are read-only here: their samples, metadata and files change only
when the worker mirrors the remote project (``docs/sync.md``).

The guard sits where every domain write operation passes
(:func:`seqcore.governance.activity.operation`): after the operation ran and before its
activity is recorded, the projects it touched are known (a sample's change touches every
project holding it); when one of them is synchronized and the actor is not the sync
worker, the operation is refused with :class:`~seqcore.errors.domain.Forbidden` and its
transaction rolled back, so REST, GraphQL, the pages and plugins all answer the same. The
project's own analyses (launching them, their results written back) stay allowed, as do
its members and settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Forbidden
from seqcore.models.remote import ProjectSync

#: The operations that change a project's samples, their metadata or their files.
GUARDED = frozenset({"sample.create", "sample.update", "sample.remove", "sample.transfer",
                     "metadata.update", "file.upload", "file.delete", "attachment.add"})

#: The operations that add samples to a project (sharing, copying, cloning, restoring from
#: the trash): refused when a project they add to is synchronized, and allowed out of one,
#: since the project a sample comes from does not change.
JOINING = frozenset({"sample.share", "sample.copy", "sample.clone", "trash.restore"})

#: The actor type whose writes mirror the remote project.
SYNC_ACTOR = "sync"


class SynchronizedProject(Forbidden):
    """A write to a synchronized project's samples, metadata or files."""


def joined_projects(changes: Iterable[dict[str, Any]]) -> set[int]:
    """The projects an operation's recorded changes added a sample to."""
    return {change["values"]["project_id"] for change in changes
            if change.get("on") == "projectSample" and change.get("action") == "created"
            and change.get("values", {}).get("project_id") is not None}


def refuse_in_synchronized(db: Session, kind: str, projects: Iterable[int], actor: Any,
                           changes: Iterable[dict[str, Any]] = ()) -> None:
    """:class:`SynchronizedProject` when operation ``kind`` changed what a synchronized
    project among ``projects`` mirrors (or, for the operations in :data:`JOINING`, added
    samples to one, as ``changes`` record) and ``actor`` is not the sync worker."""
    if actor.type == SYNC_ACTOR:
        return
    if kind in JOINING:
        projects = joined_projects(changes)
    elif kind not in GUARDED:
        return
    ids = sorted(projects)
    if not ids:
        return
    synced = db.scalar(select(ProjectSync.project_id).where(
        ProjectSync.project_id.in_(ids)).order_by(ProjectSync.project_id).limit(1))
    if synced is not None:
        raise SynchronizedProject(
            f"Project {synced} is synchronized from a remote install: its samples, their "
            "metadata and files are read-only here and change only when it is synchronized.")
