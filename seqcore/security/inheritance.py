"""Who reaches a group or a project through groups, at or above an access level.

Each function returns the ``(object_id, user_id)`` pairs of one route by which an account
holds at least ``level`` (IRIDA Next's numbers, :class:`seqcore.models.group.AccessLevel`)
on a group or a project; :mod:`seqcore.security.access` turns each route into a grant, so the
traversal ACL and the SQL visibility condition are built from the same pairs.

The routes, as DECISIONS.md rules ("access is the highest level from direct membership,
group membership inherited down the tree, and group shares capped at their maximum level"):

* membership of the group or of any group above it (``group_hierarchy`` holds every
  ancestor, the group itself included);
* a share of the project, or of a group at or above it, with a group the account is a
  member of (directly or through a group above it): the account's level there, capped at
  the share's level. ``min(share, membership) >= level`` is both being ``>= level``.

Every route reads only memberships still in force (``active``,
:class:`seqcore.models.expiry.Expiring`): from its ``expires_at`` on, a group membership
reaches neither the group, nor the groups and projects below it, nor what is shared with the
group.

A project's bots (:class:`seqcore.models.bot.NamespaceBot`) are a route of their own: a bot
reaches its project at the level it was made with, until it is deleted.

``exact=True`` keeps only the pairs whose level on that route is ``level`` itself (for a
share, the lower of the share's and the membership's): IRIDA Next gives ``UPLOADER`` rights
that the levels just above it do not have (creating samples), so they are granted to that
level alone.

Shares do not pass on: a group shared with a group that is itself shared gives the second
group's members nothing (as IRIDA Next, which reads one share deep).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import aliased

from seqcore.db import AnySelect
from seqcore.models.bot import NamespaceBot
from seqcore.models.group import GroupHierarchy, GroupMember, GroupShare
from seqcore.models.project import Project


def _at(level: int, exact: bool, *levels: Any) -> ColumnElement[bool]:
    """Every one of ``levels`` at ``level`` or above; with ``exact``, their lowest is
    ``level``."""
    condition = and_(*(column >= level for column in levels))
    return and_(condition, or_(*(column == level for column in levels))) if exact else condition


def group_members(level: int, exact: bool = False) -> AnySelect:
    """Members of the group or of a group above it, at ``level`` or above."""
    tree, member = aliased(GroupHierarchy), aliased(GroupMember)
    return (select(tree.descendant_id.label("object_id"), member.user_id)
            .join(member, member.group_id == tree.ancestor_id)
            .where(_at(level, exact, member.access_level), member.active))


def group_sharees(level: int, exact: bool = False) -> AnySelect:
    """Members of a group that the group (or a group above it) is shared with at
    ``level`` or above."""
    shared, tree, member = aliased(GroupHierarchy), aliased(GroupHierarchy), aliased(GroupMember)
    return (select(shared.descendant_id.label("object_id"), member.user_id)
            .join(GroupShare, GroupShare.shared_group_id == shared.ancestor_id)
            .join(tree, tree.descendant_id == GroupShare.group_id)
            .join(member, member.group_id == tree.ancestor_id)
            .where(_at(level, exact, GroupShare.access_level, member.access_level),
                   member.active))


def project_group_members(level: int, exact: bool = False) -> AnySelect:
    """Members of the project's group or a group above it, at ``level`` or above."""
    tree, member = aliased(GroupHierarchy), aliased(GroupMember)
    return (select(Project.id.label("object_id"), member.user_id)
            .join(tree, tree.descendant_id == Project.group_id)
            .join(member, member.group_id == tree.ancestor_id)
            .where(_at(level, exact, member.access_level), member.active))


def project_sharees(level: int, exact: bool = False) -> AnySelect:
    """Members of a group the project itself is shared with, capped at the share."""
    tree, member = aliased(GroupHierarchy), aliased(GroupMember)
    return (select(GroupShare.project_id.label("object_id"), member.user_id)
            .join(tree, tree.descendant_id == GroupShare.group_id)
            .join(member, member.group_id == tree.ancestor_id)
            .where(GroupShare.project_id.is_not(None),
                   _at(level, exact, GroupShare.access_level, member.access_level),
                   member.active))


def project_group_sharees(level: int, exact: bool = False) -> AnySelect:
    """Members of a group that the project's group (or one above it) is shared with,
    capped at the share."""
    shared, tree, member = aliased(GroupHierarchy), aliased(GroupHierarchy), aliased(GroupMember)
    return (select(Project.id.label("object_id"), member.user_id)
            .join(shared, shared.descendant_id == Project.group_id)
            .join(GroupShare, GroupShare.shared_group_id == shared.ancestor_id)
            .join(tree, tree.descendant_id == GroupShare.group_id)
            .join(member, member.group_id == tree.ancestor_id)
            .where(_at(level, exact, GroupShare.access_level, member.access_level),
                   member.active))


def project_bots(level: int, exact: bool = False) -> AnySelect:
    """The project's own bots that are not deleted, at their level."""
    return (select(NamespaceBot.project_id.label("object_id"), NamespaceBot.user_id)
            .where(NamespaceBot.project_id.is_not(None), NamespaceBot.deleted_at.is_(None),
                   _at(level, exact, NamespaceBot.access_level)))


#: The routes to a group and to a project through groups (and a project's bots).
GROUP_ROUTES = (group_members, group_sharees)
PROJECT_ROUTES = (project_group_members, project_sharees, project_group_sharees, project_bots)
