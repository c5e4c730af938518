"""``group``, ``groups`` and ``namespace``: IRIDA Next's query fields for groups and
namespaces, answering what the group rules let the caller read (null, or absent from the
list, otherwise: a hidden group and a missing one look the same)."""

from __future__ import annotations

from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import func, select

from seqcore.graphql.connections import connection_args, connection_for, paginate
from seqcore.graphql.groups import (
    Group,
    GroupFilter,
    GroupOrder,
    Namespace,
    group_filter_conditions,
    group_ordering,
)
from seqcore.graphql.loaders import readable_group
from seqcore.graphql.namespaceviews import NamespaceView
from seqcore.models.group import Group as GroupModel
from seqcore.models.puid import GROUP, is_puid
from seqcore.models.user import User as UserModel


def one_of(full_path: str | None, puid: str | None) -> None:
    """Exactly one of ``fullPath`` and ``puid``, as IRIDA Next requires."""
    if (full_path is None) == (puid is None):
        raise GraphQLError("Exactly one of fullPath and puid must be given.",
                           extensions={"code": "invalid_argument"})


async def group_by(info: Any, full_path: str | None, puid: str | None) -> GroupModel | None:
    """The readable group with that full path or PUID, or ``None``."""
    if puid is not None:
        if not is_puid(puid, GROUP):
            return None
        condition = GroupModel.puid == puid
    else:
        if not isinstance(full_path, str) or len(full_path) > 255:
            return None
        condition = func.lower(GroupModel.full_path) == full_path.lower()
    pk = info.context.db.scalar(select(GroupModel.id).where(condition))
    return None if pk is None else await info.context.loaders.group.load(pk)


class GroupQuery(graphene.ObjectType):
    group = graphene.Field(Group, full_path=graphene.ID(), puid=graphene.ID(),
                           description="A group by full path (`lab/outbreaks`) or PUID; "
                                       "null if there is none the caller may read.")
    groups = graphene.Field(graphene.NonNull(connection_for(Group)), **connection_args(),
                            filter=GroupFilter(), order_by=GroupOrder(),
                            description="Groups the caller may read.")
    namespace = graphene.Field(Namespace, full_path=graphene.ID(), puid=graphene.ID(),
                               description="A group's namespace, or the caller's own; null "
                                           "if there is none the caller may read.")

    @staticmethod
    async def resolve_group(root: Any, info: Any, full_path: str | None = None,
                            puid: str | None = None) -> Any:
        one_of(full_path, puid)
        return await group_by(info, full_path, puid)

    @staticmethod
    def resolve_groups(root: Any, info: Any, filter: Any = None, order_by: Any = None,
                       **page: Any) -> Any:
        query = select(GroupModel).where(*group_filter_conditions(filter),
                                         readable_group(info.context.identity))
        ordering, value = group_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @staticmethod
    async def resolve_namespace(root: Any, info: Any, full_path: str | None = None,
                                puid: str | None = None) -> Any:
        one_of(full_path, puid)
        group = await group_by(info, full_path, puid)
        if group is not None:
            return NamespaceView.of_group(group)
        identity = info.context.identity
        if full_path is None or "/" in full_path:
            return None
        user = info.context.db.scalar(select(UserModel).where(
            func.lower(UserModel.username) == full_path.lower()))
        if user is None or not (identity.is_admin or user.id == identity.user_id):
            return None
        return NamespaceView.of_user(user.username.lower(), user)
