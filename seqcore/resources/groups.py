"""Groups, their subgroups, projects, members and shares; and the shares of a project.

The children of a group have no ACL of their own: they inherit the group's
(:data:`seqcore.security.access.GROUP`) through ``__parent__``, so reading them needs ``group:read``
and changing them ``group:write``, whatever view asks.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import select

from seqcore.models.group import Group, GroupMember, GroupShare
from seqcore.models.user import User
from seqcore.resources.base import Context, ProjectNode, int_key
from seqcore.security.access import GROUP, GROUPS, Ace
from seqcore.security.permissions import Permission


class GroupsCollection(Context):
    """``/api/groups``."""

    __acl__ = GROUPS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        group = self.db.get(Group, int_key(key))
        if group is None:
            raise KeyError(key)
        return GroupResource(self.request, str(group.id), self, group)

    def resource_for(self, group: Group) -> GroupResource:
        return GroupResource(self.request, str(group.id), self, group)


class GroupResource(Context):
    read_permission = GROUP.read

    def __init__(self, request: Any, name: str, parent: Context, group: Group) -> None:
        super().__init__(request, name, parent)
        self.group = group

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.GROUP`: members of the group or a group above it, and
        of groups it is shared with."""
        if not hasattr(self, "_acl"):
            self._acl = GROUP.acl(self.db, self.group)
        return self._acl

    def child(self, key: str) -> Any:
        from seqcore.resources.bots import NamespaceBots

        children = {"groups": Subgroups, "projects": GroupProjects, "members": GroupMembers,
                    "shares": GroupShares, "bots": NamespaceBots}
        if key in children:
            return children[key](self.request, key, self)
        raise KeyError(key)


class Subgroups(Context):
    """``/api/groups/{id}/groups``: the groups directly below."""


class GroupProjects(Context):
    """``/api/groups/{id}/projects``: the projects in the group's namespace."""


class GroupMembers(Context):
    """``/api/groups/{id}/members``: members, by username."""

    __parent__: GroupResource

    def child(self, key: str) -> Any:
        row = self.db.execute(
            select(GroupMember, User).join(User, User.id == GroupMember.user_id)
            .where(GroupMember.group_id == self.__parent__.group.id, User.username == key)
        ).first()
        if row is None:
            raise KeyError(key)
        return GroupMemberResource(self.request, row.User.username, self, row.GroupMember,
                                   row.User)


class GroupMemberResource(Context):
    """A direct membership of a group."""

    def __init__(self, request: Any, name: str, parent: Context, member: GroupMember,
                 user: User) -> None:
        super().__init__(request, name, parent)
        self.member = member
        self.user = user


class GroupShares(Context):
    """``/api/groups/{id}/shares``: the groups this group is shared with."""

    __parent__: GroupResource

    def child(self, key: str) -> Any:
        share = self.db.get(GroupShare, int_key(key))
        if share is None or share.shared_group_id != self.__parent__.group.id:
            raise KeyError(key)
        return ShareResource(self.request, key, self, share)


class ProjectShares(Context):
    """``/api/projects/{id}/shares``: the groups a project is shared with."""

    def child(self, key: str) -> Any:
        share = self.db.get(GroupShare, int_key(key))
        if share is None or share.project_id != cast(ProjectNode, self.__parent__).project_id:
            raise KeyError(key)
        return ShareResource(self.request, key, self, share)


class ShareResource(Context):
    def __init__(self, request: Any, name: str, parent: Context, share: GroupShare) -> None:
        super().__init__(request, name, parent)
        self.share = share
