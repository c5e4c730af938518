"""``archiveProject`` and ``unarchiveProject`` (seqcore's: IRIDA Next has no project
archive): make a project read-only and hidden from default listings, and back
(:mod:`seqcore.projects.archive`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import graphene

from seqcore.errors.domain import DomainError
from seqcore.graphql.mutations.base import UserError, either, find_project, problems_from, run
from seqcore.graphql.types import Project
from seqcore.projects.archive import archive_project, unarchive_project
from seqcore.security.permissions import Permission


class ProjectInput:
    project_id = graphene.ID(description="The project.")
    project_puid = graphene.ID(description="The PUID of the project.")


def _change(info: Any, payload: type, project_id: str | None, project_puid: str | None,
            change: Callable[..., Any], permission: Permission, verb: str) -> Any:
    """Archiving is a write (refused on an archived project, naming the archive);
    unarchiving needs only to read the project. Owning it is the operation's check."""

    def work() -> dict[str, Any]:
        context = find_project(info, either(project_id, project_puid, "project"),
                               "project", permission, verb)
        try:
            project = change(info.context.db, context.project, info.context.identity.user_id)
        except DomainError as err:
            raise problems_from(err, ["project"]) from None
        return {"project": project}

    return run(info, payload, work)


class ArchiveProject(graphene.relay.ClientIDMutation):
    """Archive a project: read-only for everyone and left out of default listings until it
    is unarchived. Owners only (seqcore extension)."""

    Input = ProjectInput
    project = graphene.Field(Project)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str | None = None,
                               project_puid: str | None = None, **_: Any) -> Any:
        return _change(info, cls, project_id, project_puid, archive_project,
                       Permission.PROJECT_WRITE, "archive")


class UnarchiveProject(graphene.relay.ClientIDMutation):
    """Unarchive a project: writable and listed again. Owners only (seqcore extension)."""

    Input = ProjectInput
    project = graphene.Field(Project)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str | None = None,
                               project_puid: str | None = None, **_: Any) -> Any:
        return _change(info, cls, project_id, project_puid, unarchive_project,
                       Permission.PROJECT_READ, "unarchive")
