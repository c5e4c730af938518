"""IRIDA Next's ``Group``, ``Namespace`` and ``Member`` types.

Visibility is the group rules' (:data:`seqcore.security.access.GROUP`, through the loaders and
:func:`seqcore.graphql.loaders.readable_group`), the same REST's ``/api/groups`` answers
with. The connections under a group (``descendantGroups``, ``projects``, ``members``) are
fetched for every group of a page at once (:func:`seqcore.graphql.connections.paginate_many`),
so a page of groups with their subgroups, projects and members costs the same statements at
any size.

A namespace is a group's or an account's: ``Namespace.id`` is the global id of that group
or account (``gid://seqcore/Group/1``, ``gid://seqcore/User/3``), so ``node(id:)`` answers
with the group or the account.
"""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import func, select
from sqlalchemy.orm import InstrumentedAttribute

from seqcore.files.attachments import Owner
from seqcore.graphql.attachments import Attachment, attachment_args, owner_attachments
from seqcore.graphql.connections import (
    Ordering,
    connection_args,
    connection_for,
    paginate_many,
)
from seqcore.graphql.filters import OrderDirection, plain
from seqcore.graphql.loaders import readable_project
from seqcore.graphql.namespaceviews import NamespaceView
from seqcore.graphql.nodes import Node, _gid
from seqcore.graphql.ransack import namespace_filter
from seqcore.graphql.types import Project, User
from seqcore.models.group import AccessLevel, GroupHierarchy, GroupMember
from seqcore.models.group import Group as GroupModel
from seqcore.models.project import Project as ProjectModel
from seqcore.models.user import User as UserModel

GroupOrderField = graphene.Enum("GroupOrderField", [
    ("created_at", "created_at"), ("name", "name"), ("updated_at", "updated_at")])


class GroupOrder(graphene.InputObjectType):
    """Specify a sort for the groups."""

    field = GroupOrderField(required=True)
    direction = OrderDirection(default_value="asc")


GROUP_FILTER = namespace_filter("GroupFilter", "groups")
GroupFilter = GROUP_FILTER.input_type()


def group_filter_conditions(filter_: Any) -> list[Any]:
    return GROUP_FILTER.conditions(filter_, {
        "name_or_puid": (GroupModel.name, GroupModel.puid), "name": GroupModel.name,
        "puid": GroupModel.puid, "created_at": GroupModel.created,
        "updated_at": func.coalesce(GroupModel.modified, GroupModel.created)}, where="filter.")


def group_ordering(order_by: Any) -> tuple[Ordering, Any]:
    field = plain(order_by.get("field")) if order_by else "created_at"
    descending = bool(order_by) and plain(order_by.get("direction")) == "desc"
    if field == "name":
        return Ordering(GroupModel.name, GroupModel.id, descending), lambda g: g.name
    if field == "updated_at":
        key = func.coalesce(GroupModel.modified, GroupModel.created)
        return (Ordering(key, GroupModel.id, descending, temporal=True),
                lambda g: g.modified or g.created)
    return (Ordering(GroupModel.created, GroupModel.id, descending, temporal=True),
            lambda g: g.created)


def _project_order() -> tuple[Ordering, Any]:
    return (Ordering(ProjectModel.created, ProjectModel.id, temporal=True),
            lambda p: p.created)


def _page_key(info: Any, **arguments: Any) -> tuple:
    return (info.parent_type.name, info.field_name,
            tuple(sorted((k, repr(v)) for k, v in arguments.items())))


# -- namespaces -------------------------------------------------------------------------------


def namespace_projects(info: Any, view: NamespaceView, include_sub_groups: bool,
                       page: dict[str, Any]) -> Any:
    """The readable projects of a namespace (and, for a group, of the groups below it)."""
    if view.group_id is not None:
        return _group_projects(info, view.group_id, include_sub_groups, page)
    order, value = _project_order()
    loader = info.context.loaders.pages(
        _page_key(info, user_namespace=True, **page),
        lambda keys: paginate_many(
            info.context.db,
            select(ProjectModel).where(ProjectModel.group_id.is_(None),
                                       ProjectModel.archived_at.is_(None),
                                       readable_project(info.context.identity)),
            ProjectModel.namespace, keys, order, value, **page))
    return loader.load(view.full_path)


def _group_projects(info: Any, group_id: int, include_sub_groups: bool,
                    page: dict[str, Any]) -> Any:
    order, value = _project_order()
    query = select(ProjectModel).where(readable_project(info.context.identity),
                                       ProjectModel.archived_at.is_(None))
    if include_sub_groups:
        query = query.join(GroupHierarchy, GroupHierarchy.descendant_id == ProjectModel.group_id)
        partition: InstrumentedAttribute[Any] = GroupHierarchy.ancestor_id
    else:
        partition = ProjectModel.group_id
    loader = info.context.loaders.pages(
        _page_key(info, include=include_sub_groups, **page),
        lambda keys: paginate_many(info.context.db, query, partition, keys, order, value,
                                   **page))
    return loader.load(group_id)


class Namespace(graphene.ObjectType):
    """A namespace: a group's, or an account's personal one (its username)."""

    class Meta:
        interfaces = (Node,)
        possible_types = (NamespaceView,)

    name = graphene.String(required=True)
    path = graphene.String(required=True)
    full_path = graphene.ID(required=True)
    full_name = graphene.String(required=True)
    description = graphene.String()
    puid = graphene.ID(description="Persistent unique id: INXT_GRP_... for a group, "
                                   "INXT_USR_... for an account's namespace (null only for "
                                   "the namespace of an account that was deleted).")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    projects = graphene.Field(lambda: connection_for(Project), **connection_args(),
                              include_sub_groups=graphene.Boolean(default_value=False),
                              description="Readable projects within this namespace.")

    @staticmethod
    def resolve_id(view: NamespaceView, info: Any) -> str:
        return info.context.gid(view.gid_type, view.id)

    @staticmethod
    def resolve_created_at(view: NamespaceView, info: Any) -> Any:
        return view.created

    @staticmethod
    def resolve_updated_at(view: NamespaceView, info: Any) -> Any:
        return view.modified or view.created

    @staticmethod
    def resolve_projects(view: NamespaceView, info: Any, include_sub_groups: bool = False,
                         **page: Any) -> Any:
        return namespace_projects(info, view, include_sub_groups, page)


# -- members ----------------------------------------------------------------------------------


class Member(graphene.ObjectType):
    """A member of a group, directly or through a group above it."""

    class Meta:
        interfaces = (Node,)
        possible_types = (GroupMember,)

    access_level = graphene.String(required=True, description="IRIDA Next's name of the "
                                                              "level: Guest ... Owner.")
    access_level_value = graphene.Int(required=True, description="The level's number "
                                                                 "(10 ... 50).")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    expires_at = graphene.DateTime(description="When the membership ends (null: never). From "
                                              "then on it grants nothing; it stays listed "
                                              "until the worker removes it.")
    user = graphene.Field(User, required=True)
    group = graphene.Field(lambda: Group, description="The group the membership is of.")

    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_access_level(member: GroupMember, info: Any) -> str:
        return AccessLevel(member.access_level).label

    @staticmethod
    def resolve_access_level_value(member: GroupMember, info: Any) -> int:
        return member.access_level

    @staticmethod
    def resolve_created_at(member: GroupMember, info: Any) -> Any:
        return member.created

    @staticmethod
    def resolve_updated_at(member: GroupMember, info: Any) -> Any:
        return member.modified or member.created

    @staticmethod
    def resolve_expires_at(member: GroupMember, info: Any) -> Any:
        return member.expires_at

    @staticmethod
    def resolve_user(member: GroupMember, info: Any) -> Any:
        return info.context.loaders.user.load(member.user_id)

    @staticmethod
    def resolve_group(member: GroupMember, info: Any) -> Any:
        return info.context.loaders.group.load(member.group_id)

    @classmethod
    async def get_node(cls, info: Any, pk: int) -> GroupMember | None:
        member = info.context.db.get(GroupMember, pk)
        if member is None or await info.context.loaders.group.load(member.group_id) is None:
            return None
        return member


# -- groups -----------------------------------------------------------------------------------


class Group(graphene.ObjectType):
    """A group: a namespace that holds projects and groups, with members."""

    class Meta:
        interfaces = (Node,)
        possible_types = (GroupModel,)

    name = graphene.String(required=True)
    path = graphene.String(required=True)
    full_path = graphene.ID(required=True)
    full_name = graphene.String(required=True)
    description = graphene.String()
    puid = graphene.ID(required=True)
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    parent = graphene.Field(lambda: Group, description="The group above; null at the top "
                                                       "(or when the caller may not read it).")
    descendant_groups = graphene.Field(
        lambda: connection_for(Group), **connection_args(),
        include_parent_descendants=graphene.Boolean(
            default_value=True, description="Every group below (true) or the groups directly "
                                            "below (false)."))
    projects = graphene.Field(lambda: connection_for(Project), **connection_args(),
                              include_sub_groups=graphene.Boolean(default_value=False),
                              description="Readable projects within this group.")
    members = graphene.Field(
        lambda: connection_for(Member), **connection_args(),
        direct_only=graphene.Boolean(default_value=False,
                                     description="Only direct members (not those of the "
                                                 "groups above)."),
        user_type=graphene.List(graphene.NonNull(graphene.String),
                                default_value=["human"],
                                description="Kinds of accounts listed (`human`, "
                                            "`group_bot`, `project_bot`, "
                                            "`project_automation_bot`): people only by "
                                            "default, as IRIDA Next lists them."))
    attachments = graphene.Field(lambda: connection_for(Attachment), **attachment_args(),
                                 description="Attachments on the group")

    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_created_at(group: GroupModel, info: Any) -> Any:
        return group.created

    @staticmethod
    def resolve_updated_at(group: GroupModel, info: Any) -> Any:
        return group.modified or group.created

    @staticmethod
    def resolve_parent(group: GroupModel, info: Any) -> Any:
        return None if group.parent_id is None else info.context.loaders.group.load(
            group.parent_id)

    @staticmethod
    def resolve_descendant_groups(group: GroupModel, info: Any,
                                  include_parent_descendants: bool = True, **page: Any) -> Any:
        from seqcore.graphql.loaders import readable_group

        order, value = group_ordering(None)
        query = (select(GroupModel)
                 .join(GroupHierarchy, GroupHierarchy.descendant_id == GroupModel.id)
                 .where(readable_group(info.context.identity),
                        GroupHierarchy.depth >= 1 if include_parent_descendants
                        else GroupHierarchy.depth == 1))
        loader = info.context.loaders.pages(
            _page_key(info, all=include_parent_descendants, **page),
            lambda keys: paginate_many(info.context.db, query, GroupHierarchy.ancestor_id,
                                       keys, order, value, **page))
        return loader.load(group.id)

    @staticmethod
    def resolve_projects(group: GroupModel, info: Any, include_sub_groups: bool = False,
                         **page: Any) -> Any:
        return _group_projects(info, group.id, include_sub_groups, page)

    @staticmethod
    def resolve_members(group: GroupModel, info: Any, direct_only: bool = False,
                        user_type: list[str] | None = None, **page: Any) -> Any:
        query = (select(GroupMember)
                 .join(GroupHierarchy, GroupHierarchy.ancestor_id == GroupMember.group_id))
        if direct_only:
            query = query.where(GroupHierarchy.depth == 0)
        if user_type is not None:
            query = query.join(UserModel, UserModel.id == GroupMember.user_id).where(
                UserModel.account_type.in_(sorted(set(user_type))))
        order = Ordering(GroupMember.created, GroupMember.id, temporal=True)
        loader = info.context.loaders.pages(
            _page_key(info, direct=direct_only, types=tuple(user_type or ()), **page),
            lambda keys: paginate_many(info.context.db, query, GroupHierarchy.descendant_id,
                                       keys, order, lambda m: m.created, **page))
        return loader.load(group.id)

    @staticmethod
    def resolve_attachments(group: GroupModel, info: Any, **arguments: Any) -> Any:
        """The group's own attachments, batched for a page of groups
        (:func:`~seqcore.graphql.attachments.owner_attachments`)."""
        return owner_attachments(info, Owner("group", group.id), **arguments)

    @classmethod
    def get_node(cls, info: Any, pk: int) -> Any:
        return info.context.loaders.group.load(pk)


GROUP_TYPES = [Group, Namespace, Member]
