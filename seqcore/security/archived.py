"""What an archived project makes read-only (:attr:`seqcore.models.project.Project.archived_at`).

An archived project keeps every reader it had, and refuses every change to everyone,
administrators included, until it is unarchived: the project itself (its fields, members,
shares, metadata fields and templates, attachments, samples added or removed, NCBI
submissions) and the samples it owns (their fields, metadata and files). A sample it only
holds shared from another project stays writable there: its owner decides. Exports
(which read the project) remain open.

:data:`seqcore.security.access.PROJECT` and :data:`~seqcore.security.access.SAMPLE` are
:class:`~seqcore.security.access.Frozen` by the conditions here, so the ACL of a context and
the SQL condition of a list agree, and a refusal's denying entry
(:func:`refused_by_archive`) lets each transport say that the archive is the reason.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.orm import aliased

from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample
from seqcore.security.permissions import Permission

#: Denied on an archived project and below it.
PROJECT_READ_ONLY = (Permission.PROJECT_WRITE, Permission.SAMPLE_CREATE,
                     Permission.NCBI_SUBMIT, Permission.SAMPLE_WRITE, Permission.SAMPLE_OWN)
#: Denied on a sample an archived project owns.
SAMPLE_READ_ONLY = (Permission.SAMPLE_WRITE, Permission.SAMPLE_OWN)

ARCHIVED_MESSAGE = "Project {name} is archived: it is read-only until it is unarchived."


def archived_project(project_id: Any) -> ColumnElement[bool]:
    """True for an archived project. Over aliases: a query selecting from ``project`` (or
    ``project_sample``) itself must not correlate this subquery with its own rows."""
    project = aliased(Project)
    return exists(select(project.id).where(project.id == project_id,
                                           project.archived_at.is_not(None)))


def owned_by_archived_project(sample_id: Any) -> ColumnElement[bool]:
    """True for a sample an archived project owns."""
    project, held = aliased(Project), aliased(ProjectSample)
    return exists(select(held.id)
                  .join(project, project.id == held.project_id)
                  .where(held.sample_id == sample_id, held.owner.is_(True),
                         project.archived_at.is_not(None)))


def refused_by_archive(result: Any) -> bool:
    """Whether a permission check's result (Pyramid's ``ACLDenied``) was refused by an
    archive's denying entry rather than for want of a grant."""
    ace = getattr(result, "ace", None)
    return (not result and isinstance(ace, tuple) and len(ace) == 3
            and ace[2] in (PROJECT_READ_ONLY, SAMPLE_READ_ONLY))


def archived_project_of(db: Any, context: Any) -> Project | None:
    """The archived project whose archive froze ``context`` (a project, a sample it owns,
    or something below either), for a refusal's message; ``None`` if there is none."""
    node = context
    while node is not None:
        row = getattr(node, "row", None)
        if row is not None and getattr(row, "archived_at", None) is not None:
            return db.get(Project, row.id)  # type: ignore[no-any-return]
        sample = getattr(node, "sample", None)
        if sample is not None:
            found = db.scalar(select(Project).join(
                ProjectSample, ProjectSample.project_id == Project.id).where(
                ProjectSample.sample_id == sample.id, ProjectSample.owner.is_(True),
                Project.archived_at.is_not(None)).limit(1))
            if found is not None:
                return found  # type: ignore[no-any-return]
        node = getattr(node, "__parent__", None)
    return None


def archive_message(db: Any, context: Any) -> str:
    project = archived_project_of(db, context)
    return ARCHIVED_MESSAGE.format(name=project.name if project is not None else "")
