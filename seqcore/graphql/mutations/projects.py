"""``createProject``."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.errors.domain import Invalid
from seqcore.graphql.mutations.base import (
    Problems,
    UserError,
    problem,
    problems_from,
    run,
    validate,
)
from seqcore.graphql.mutations.groups import group_to_create_in
from seqcore.graphql.types import Project
from seqcore.parsing.schemas import ProjectSchema
from seqcore.projects.namespaces import namespace_for, unusable_path
from seqcore.projects.projects import ProjectValues, new_project
from seqcore.security.permissions import Permission


class CreateProject(graphene.relay.ClientIDMutation):
    """Create a project in the caller's namespace; the caller becomes its owner."""

    class Input:
        name = graphene.String(required=True)
        description = graphene.String()
        path = graphene.String(description="URL-safe path in the namespace; default: "
                                           "derived from the name.")
        group_id = graphene.ID(description="The group to create it in (default: the "
                                           "caller's namespace).")
        group_puid = graphene.ID(description="The PUID of the group to create it in.")

    project = graphene.Field(Project)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, name: str,
                               description: str | None = None, path: str | None = None,
                               group_id: str | None = None, group_puid: str | None = None,
                               **_: Any) -> Any:
        def work() -> dict[str, Any]:
            request = info.context.request
            group = group_to_create_in(info, group_id, group_puid)
            collection = request.root["api"]["projects"]
            if not request.has_permission(Permission.PROJECT_CREATE, collection):
                raise problem("You are not authorized to create projects.", "project")
            errors = []
            try:
                data = validate(info, ProjectSchema(),
                                {"name": name, "projectDescription": description},
                                "project", {"projectDescription": "description"})
            except Problems as err:
                errors, data = err.errors, {}
            username = info.context.identity.username
            if path is not None:
                namespace = namespace_for(username) if group is None else group.full_path
                trouble = unusable_path(info.context.db, namespace, path)
                if trouble is not None:
                    errors.append({"message": trouble, "path": ["project", "path"]})
            if errors:
                raise Problems(errors)
            values = ProjectValues(name=data["name"],
                                   description=data.get("projectDescription"))
            try:  # a concurrent create may take the path after the check above
                project = new_project(info.context.db, info.context.identity.user_id,
                                      username, values, path=path, group=group)
            except Invalid as err:
                raise problems_from(err, ["project"]) from None
            return {"project": project}

        return run(info, cls, work)
