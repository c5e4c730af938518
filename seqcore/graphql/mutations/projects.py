"""``createProject``."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.graphql.mutations.base import Problems, UserError, problem, run, validate
from seqcore.graphql.types import Project
from seqcore.namespaces import namespace_for, path_problem, path_taken
from seqcore.projects import PathTaken, create_project
from seqcore.rest.schemas import ProjectSchema
from seqcore.security.permissions import Permission


class CreateProject(graphene.relay.ClientIDMutation):
    """Create a project in the caller's namespace; the caller becomes its owner."""

    class Input:
        name = graphene.String(required=True)
        description = graphene.String()
        path = graphene.String(description="URL-safe path in the caller's namespace; default: "
                                           "derived from the name.")

    project = graphene.Field(Project)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, name: str,
                               description: str | None = None, path: str | None = None,
                               **_: Any) -> Any:
        def work() -> dict[str, Any]:
            request = info.context.request
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
            namespace = namespace_for(info.context.identity.username)
            if path is not None:
                trouble = path_problem(path)
                if trouble is None and path_taken(info.context.db, namespace, path):
                    trouble = "Path has already been taken"
                if trouble is not None:
                    errors.append({"message": trouble, "path": ["project", "path"]})
            if errors:
                raise Problems(errors)
            values = {"name": data["name"], "description": data.get("projectDescription")}
            try:  # a concurrent create may take the path after the check above
                project = create_project(info.context.db, info.context.identity.user_id,
                                         namespace, values, path=path)
            except PathTaken:
                raise problem("Path has already been taken", "project", "path") from None
            return {"project": project}

        return run(info, cls, work)
