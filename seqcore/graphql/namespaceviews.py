"""What GraphQL's ``Namespace`` shows, from a group or an account's personal namespace;
apart from the types so that ``Project.parent`` and the group types both read it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from seqcore.models.group import Group as GroupModel
from seqcore.models.project import Project as ProjectModel


@dataclass(frozen=True)
class NamespaceView:
    """What a namespace shows, from a group or from an account's personal namespace."""

    gid_type: str
    id: int
    name: str
    path: str
    full_path: str
    full_name: str
    description: str | None
    puid: str | None
    created: datetime | None
    modified: datetime | None
    group_id: int | None

    @classmethod
    def of_group(cls, group: GroupModel) -> NamespaceView:
        return cls("Group", group.id, group.name, group.path, group.full_path,
                   group.full_name, group.description, group.puid, group.created,
                   group.modified, group.id)

    @classmethod
    def of_user(cls, namespace: str, user: Any) -> NamespaceView:
        return cls("User", user.id, namespace, namespace, namespace, namespace, None,
                   user.namespace_puid, user.created, user.modified, None)


    @classmethod
    def of_hidden_group(cls, group: GroupModel) -> NamespaceView:
        """A group the caller may not read, above a project it may (shared with it): only
        what the project's own ``fullPath`` already tells (the path), and the PUID."""
        return cls("Group", group.id, group.path, group.path, group.full_path,
                   group.full_path, None, group.puid, group.created, None, group.id)


async def project_namespace(project: ProjectModel, info: Any) -> NamespaceView:
    """The namespace a project lives in; never null, as IRIDA Next's ``Project.parent``
    (a group the caller may not read shows only its path and PUID)."""
    loaders = info.context.loaders
    if project.group_id is not None:
        group = await loaders.group.load(project.group_id)
        if group is None:
            return NamespaceView.of_hidden_group(
                info.context.db.get(GroupModel, project.group_id))
        return NamespaceView.of_group(group)
    user = await loaders.user_namespace.load(project.namespace)
    if user is None:  # the account was deleted; its projects keep their namespace
        return NamespaceView("User", 0, project.namespace, project.namespace,
                             project.namespace, project.namespace, None, None,
                             project.created, None, None)
    return NamespaceView.of_user(project.namespace, user)


