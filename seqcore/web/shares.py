"""Sharing with groups, on a project's Manage page and on a group's page: the groups the
project (or group) is shared with and up to which access level, a form sharing it with a
group the caller may read, changing a share's level, and unsharing. The operations are the
domain's (:func:`seqcore.projects.groups.share_with_group`,
:func:`~seqcore.projects.groups.change_share_level`, :func:`~seqcore.projects.groups.unshare`),
under the permissions REST's ``/shares`` endpoints ask (``project:write``, ``group:write``)
and on the same traversal contexts, so a page refuses what REST refuses, in its words."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid
from seqcore.models.group import AccessLevel, Group, GroupShare
from seqcore.projects.groups import change_share_level, parse_level, share_with_group, unshare
from seqcore.security.access import GROUP
from seqcore.security.identity import Identity
from seqcore.security.permissions import Permission
from seqcore.web.guard import add_page, context_at, require, signed_in
from seqcore.web.i18n import _

#: The levels a share may give (IRIDA Next's, without "no access").
SHARE_LEVELS = tuple(level for level in AccessLevel if level is not AccessLevel.NO_ACCESS)


def shares_of(db: Session, *, project_id: int | None = None, group_id: int | None = None
              ) -> list[tuple[GroupShare, Group]]:
    """The shares of a project or a group with the groups they are shared with, as REST's
    ``/shares`` lists them (in the order they were made)."""
    query = select(GroupShare, Group).join(Group, Group.id == GroupShare.group_id)
    if project_id is not None:
        query = query.where(GroupShare.project_id == project_id)
    else:
        query = query.where(GroupShare.shared_group_id == group_id)
    return [(share, group) for share, group in db.execute(query.order_by(GroupShare.id))]


def grantee_choices(db: Session, identity: Identity, exclude: int | None = None
                    ) -> list[Group]:
    """The groups the caller may share with: those it may read (REST's ``groupId`` rule)."""
    query = select(Group).where(GROUP.readable(identity.user_id, identity.role))
    if exclude is not None:
        query = query.where(Group.id != exclude)
    return list(db.scalars(query.order_by(Group.full_path)))


def _actor(identity: Identity) -> int | None:
    """Whose own level bounds the share (``None``: an administrator's, unbounded)."""
    return None if identity.is_admin else identity.user_id


def _grantee(request: Request, identity: Identity) -> Group:
    """The form's group, if the caller may read it; the domain's words otherwise."""
    value = request.POST.get("group_id", "").strip()
    grantee = request.db.scalar(select(Group).where(
        Group.id == int(value), GROUP.readable(identity.user_id, identity.role))
    ) if value.isdigit() and len(value) < 10 else None
    if grantee is None:
        raise Invalid.field("groupId", f"There is no group with id {value or '(none)'}.")
    return grantee


def _level(request: Request) -> AccessLevel:
    """The form's level: its number as the select sends it (or a name, as REST takes)."""
    value = request.POST.get("access_level", "").strip()
    return parse_level(int(value) if value.isdigit() and len(value) < 4 else value)


def _back(request: Request, route: str, owner_id: int, message: Any) -> Response:
    request.session.flash(request.localizer.translate(message))
    return HTTPSeeOther(location=request.route_path(route, id=owner_id) + "#shares")


def share_project(request: Request) -> Response:
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"], "shares")
    require(request, context, Permission.PROJECT_WRITE)
    project = context.__parent__.project
    grantee = _grantee(request, identity)
    level = _level(request)
    share_with_group(request.db, grantee, level, project=project, actor_id=_actor(identity))
    return _back(request, "web.project.manage", project.id,
                 _("Shared with ${group}.", mapping={"group": grantee.full_path}))


def unshare_project(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"], "shares",
                         request.matchdict["share"])
    require(request, context, Permission.PROJECT_WRITE)
    grantee = request.db.get(Group, context.share.group_id)
    project_id = context.share.project_id
    unshare(request.db, context.share)
    return _back(request, "web.project.manage", project_id,
                 _("No longer shared with ${group}.", mapping={"group": grantee.full_path}))


def change_project_share(request: Request) -> Response:
    identity = signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"], "shares",
                         request.matchdict["share"])
    require(request, context, Permission.PROJECT_WRITE)
    share = change_share_level(request.db, context.share, _level(request),
                               actor_id=_actor(identity))
    grantee = request.db.get(Group, share.group_id)
    return _back(request, "web.project.manage", int(request.matchdict["id"]),
                 _("${name} changed.", mapping={"name": grantee.full_path}))


def share_group(request: Request) -> Response:
    identity = signed_in(request)
    context = context_at(request, "groups", request.matchdict["id"], "shares")
    require(request, context, Permission.GROUP_WRITE)
    group = context.__parent__.group
    grantee = _grantee(request, identity)
    level = _level(request)
    share_with_group(request.db, grantee, level, group=group, actor_id=_actor(identity))
    return _back(request, "web.group", group.id,
                 _("Shared with ${group}.", mapping={"group": grantee.full_path}))


def unshare_group(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "groups", request.matchdict["id"], "shares",
                         request.matchdict["share"])
    require(request, context, Permission.GROUP_WRITE)
    grantee = request.db.get(Group, context.share.group_id)
    group_id = context.share.shared_group_id
    unshare(request.db, context.share)
    return _back(request, "web.group", group_id,
                 _("No longer shared with ${group}.", mapping={"group": grantee.full_path}))


def change_group_share(request: Request) -> Response:
    identity = signed_in(request)
    context = context_at(request, "groups", request.matchdict["id"], "shares",
                         request.matchdict["share"])
    require(request, context, Permission.GROUP_WRITE)
    share = change_share_level(request.db, context.share, _level(request),
                               actor_id=_actor(identity))
    grantee = request.db.get(Group, share.group_id)
    return _back(request, "web.group", int(request.matchdict["id"]),
                 _("${name} changed.", mapping={"name": grantee.full_path}))


def includeme(config: Configurator) -> None:
    project = "/-/projects/{id:\\d+}/manage/shares"
    add_page(config, "web.project.shares", project, share_project, method="POST")
    add_page(config, "web.project.share.remove", project + "/{share:\\d+}/remove",
             unshare_project, method="POST")
    add_page(config, "web.project.share.level", project + "/{share:\\d+}/level",
             change_project_share, method="POST")
    group = "/-/groups/{id:\\d+}/shares"
    add_page(config, "web.group.shares", group, share_group, method="POST")
    add_page(config, "web.group.share.remove", group + "/{share:\\d+}/remove", unshare_group,
             method="POST")
    add_page(config, "web.group.share.level", group + "/{share:\\d+}/level",
             change_group_share, method="POST")
