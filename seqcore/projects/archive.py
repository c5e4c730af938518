"""Archiving a project: it becomes read-only and leaves default listings, and unarchiving
restores it as it was.

What "read-only" covers is :mod:`seqcore.security.archived`'s: the archive is a refusal
in the project's ACL (and in the ACL of the samples it owns), so every transport refuses
every write alike, naming the archive. Nothing is deleted or hidden from those who read
the project: it is still read by id, full path and PUID, and listed when a listing asks
for archived projects. Only its owners (:mod:`seqcore.projects.ownership`) and
administrators archive and unarchive it.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Conflict
from seqcore.governance.activity import operation
from seqcore.models.project import Project
from seqcore.projects.ownership import check_owns_project


class AlreadyArchived(Conflict):
    def __init__(self, name: str) -> None:
        super().__init__(f"Project {name} is archived already.")


class NotArchived(Conflict):
    def __init__(self, name: str) -> None:
        super().__init__(f"Project {name} is not archived.")


def _locked(db: Session, project: Project) -> None:
    """Lock the project's row and read its archive state as committed now."""
    lock_row(db, Project, project.id)
    db.refresh(project, ["archived_at"])


@operation("project.archive")
def archive_project(db: Session, project: Project, actor_id: int) -> Project:
    """Make ``project`` read-only and leave it out of default listings;
    :class:`AlreadyArchived` if it is archived."""
    check_owns_project(db, project, actor_id)
    _locked(db, project)
    if project.archived_at is not None:
        raise AlreadyArchived(project.name)
    project.archived_at = utcnow()
    db.flush()
    return project


@operation("project.unarchive")
def unarchive_project(db: Session, project: Project, actor_id: int) -> Project:
    """Make an archived ``project`` writable and listed again; :class:`NotArchived` if it
    is not archived."""
    check_owns_project(db, project, actor_id)
    _locked(db, project)
    if project.archived_at is None:
        raise NotArchived(project.name)
    project.archived_at = None
    db.flush()
    return project
