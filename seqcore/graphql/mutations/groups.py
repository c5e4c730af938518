"""``createGroup``: a group at the top or below one the caller maintains or owns."""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.graphql.groups import Group
from seqcore.graphql.mutations.base import UserError, api_context, problem, problems_from, run
from seqcore.models.group import Group as GroupModel
from seqcore.models.puid import GROUP, is_puid
from seqcore.projects.groups import create_group
from seqcore.security.permissions import Permission


def readable_group(info: Any, group_id: str | None, group_puid: str | None,
                   *path: str) -> Any:
    """The group context named by ``groupId`` (or else ``groupPuid``) if the caller may read
    it; "not found" on ``path`` alike for an unknown group and one the caller cannot read,
    as REST answers 404 for both."""
    db = info.context.db
    if group_id is not None:
        _, pk = info.context.parse(group_id, "Group")
    else:
        pk = db.scalar(select(GroupModel.id).where(GroupModel.puid == group_puid)) \
            if is_puid(group_puid, GROUP) else None
    context = api_context(info, "groups", pk) if pk is not None else None
    if context is None or not info.context.request.has_permission(Permission.GROUP_READ,
                                                                  context):
        raise problem("Group not found by provided ID", *path)
    return context


def find_group(info: Any, group_id: str | None, group_puid: str | None, field: str) -> Any:
    """The group context named by ``groupId`` or ``groupPuid`` if the caller may write it
    (``group:write``); "not found" alike for an unknown group and one the caller cannot
    read (:func:`readable_group`)."""
    if group_id is not None and group_puid is not None:
        raise problem("Give groupId or groupPuid, not both.", field)
    context = readable_group(info, group_id, group_puid, field)
    if not info.context.request.has_permission(Permission.GROUP_WRITE, context):
        raise problem(f"You are not authorized to create in group {context.group.full_path}.",
                      field)
    return context


def group_to_create_in(info: Any, group_id: str | None, group_puid: str | None
                       ) -> GroupModel | None:
    """The group a ``create*`` mutation's ``groupId``/``groupPuid`` names (by
    :func:`find_group`'s rules, its errors on the field given); ``None`` when neither is
    given, and the mutation creates at its default place."""
    if group_id is None and group_puid is None:
        return None
    field = "groupId" if group_id is not None else "groupPuid"
    return find_group(info, group_id, group_puid, field).group


class CreateGroup(graphene.relay.ClientIDMutation):
    """Create a group (below ``groupId``/``groupPuid``, or at the top); the caller becomes
    its owner."""

    class Input:
        name = graphene.String(required=True)
        description = graphene.String()
        path = graphene.String(description="URL-safe path; default: derived from the name.")
        group_id = graphene.ID(description="The group to create it in.")
        group_puid = graphene.ID(description="The PUID of the group to create it in.")

    group = graphene.Field(Group)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, name: str,
                               description: str | None = None, path: str | None = None,
                               group_id: str | None = None, group_puid: str | None = None,
                               **_: Any) -> Any:
        def work() -> dict[str, Any]:
            request = info.context.request
            parent = group_to_create_in(info, group_id, group_puid)
            if parent is None and not request.has_permission(
                    Permission.GROUP_CREATE, request.root["api"]["groups"]):
                raise problem("You are not authorized to create groups.", "group")
            try:
                group = create_group(info.context.db, info.context.identity.user_id, name,
                                     path, description, parent)
            except Invalid as err:
                raise problems_from(err, ["group"]) from None
            return {"group": group}

        return run(info, cls, work)
