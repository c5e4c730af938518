"""``transferProject`` and ``transferGroup`` (seqcore's: IRIDA Next's public schema has no
mutation for either): move a project to another namespace, a group under another group
or to the top (:mod:`seqcore.projects.transfer`)."""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.errors.domain import DomainError
from seqcore.graphql.groups import Group
from seqcore.graphql.mutations.base import (
    UserError,
    either,
    find_project,
    problem,
    problems_from,
    run,
)
from seqcore.graphql.mutations.groups import find_group, readable_group
from seqcore.graphql.types import Project
from seqcore.models.puid import GROUP, USER_NAMESPACE, is_puid
from seqcore.models.user import User as UserModel
from seqcore.projects.ownership import check_owns_group, check_owns_project
from seqcore.projects.transfer import transfer_group, transfer_project
from seqcore.security.permissions import Permission


def _destination(info: Any, namespace_id: str | None, namespace_puid: str | None) -> Any:
    """The group a project moves into (a group the caller may create in), or ``None`` for
    the caller's own personal namespace (a ``User`` global id or an ``INXT_USR_`` PUID
    naming it; another account's namespace is refused)."""
    ident = either(namespace_id, namespace_puid, "namespace")
    field = "namespaceId" if namespace_id is not None else "namespacePuid"
    if namespace_id is not None:
        kind, pk = info.context.parse(namespace_id, "Group", "User")
        if kind == "Group":
            return find_group(info, namespace_id, None, field).group
        mine = pk == info.context.identity.user_id
    elif is_puid(ident, GROUP):
        return find_group(info, None, ident, field).group
    elif is_puid(ident, USER_NAMESPACE):
        owner = info.context.db.scalar(select(UserModel.id).where(
            UserModel.namespace_puid == ident))
        mine = owner is not None and owner == info.context.identity.user_id
    else:
        raise problem("Namespace not found by provided PUID", field)
    if not mine:
        raise problem("A project moves into a group or into your own namespace, not "
                      "another account's.", field)
    return None


def _moved_group(info: Any, group_id: str | None, group_puid: str | None) -> Any:
    """The group to move, if the caller may read it ("not found" otherwise, as for an
    unknown one); whether it owns it is the operation's question."""
    either(group_id, group_puid, "group")
    field = "groupId" if group_id is not None else "groupPuid"
    return readable_group(info, group_id, group_puid, field).group


class TransferProject(graphene.relay.ClientIDMutation):
    """Move a project into another namespace: a group the caller may create projects in,
    or the caller's own namespace. Only an owner of the project moves it; its PUID, members,
    samples and shares stay, its ``fullPath`` and the access inherited through groups
    change (seqcore extension)."""

    class Input:
        project_id = graphene.ID(description="The project to move.")
        project_puid = graphene.ID(description="The PUID of the project to move.")
        namespace_id = graphene.ID(description="Where to: a Group's ID, or the caller's "
                                               "own namespace (its User ID).")
        namespace_puid = graphene.ID(description="Where to, by PUID: a group's "
                                                 "(INXT_GRP_...) or the caller's own "
                                                 "namespace's (INXT_USR_...).")

    project = graphene.Field(Project)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str | None = None,
                               project_puid: str | None = None,
                               namespace_id: str | None = None,
                               namespace_puid: str | None = None, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            context = find_project(info, either(project_id, project_puid, "project"),
                                   "project", Permission.PROJECT_WRITE, "transfer")
            db, user_id = info.context.db, info.context.identity.user_id
            # Who may move it before where to: one who may not is told so.
            try:
                check_owns_project(db, context.project, user_id)
            except DomainError as err:
                raise problems_from(err, ["project"]) from None
            group = _destination(info, namespace_id, namespace_puid)
            try:
                project = transfer_project(info.context.db, context.project,
                                           info.context.identity.user_id, group)
            except DomainError as err:
                raise problems_from(err, ["project"]) from None
            return {"project": project}

        return run(info, cls, work)


class TransferGroup(graphene.relay.ClientIDMutation):
    """Move a group, with its subgroups and projects, under another group the caller may
    create in, or to the top level. Only an owner of the group moves it; PUIDs stay,
    full paths and inherited access change (seqcore extension)."""

    class Input:
        group_id = graphene.ID(description="The group to move.")
        group_puid = graphene.ID(description="The PUID of the group to move.")
        new_parent_id = graphene.ID(description="The group to move it under.")
        new_parent_puid = graphene.ID(description="The PUID of the group to move it under.")
        to_top_level = graphene.Boolean(description="Move it to the top level instead.")

    group = graphene.Field(Group)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, group_id: str | None = None,
                               group_puid: str | None = None,
                               new_parent_id: str | None = None,
                               new_parent_puid: str | None = None,
                               to_top_level: bool | None = None, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            moved = _moved_group(info, group_id, group_puid)
            try:
                check_owns_group(info.context.db, moved, info.context.identity.user_id)
            except DomainError as err:
                raise problems_from(err, ["group"]) from None
            given = sum(x is not None for x in (new_parent_id, new_parent_puid)) + bool(
                to_top_level)
            if given != 1:
                raise problem("Give exactly one of newParentId, newParentPuid and "
                              "toTopLevel: true.", "newParentId")
            parent = None
            if to_top_level:
                request = info.context.request
                if not request.has_permission(Permission.GROUP_CREATE,
                                              request.root["api"]["groups"]):
                    raise problem("You are not authorized to create top-level groups.",
                                  "toTopLevel")
            else:
                field = "newParentId" if new_parent_id is not None else "newParentPuid"
                parent = find_group(info, new_parent_id, new_parent_puid, field).group
            try:
                group = transfer_group(info.context.db, moved, info.context.identity.user_id,
                                       parent)
            except DomainError as err:
                raise problems_from(err, ["group"]) from None
            return {"group": group}

        return run(info, cls, work)
