"""Sharing with groups, on a project's Manage page and on a group's page: the groups the
project (or group) is shared with and up to which access level, a form sharing it with a
group the caller may read, changing a share's level, and unsharing. The operations are the
domain's (:func:`seqcore.projects.groups.share_with_group`,
:func:`~seqcore.projects.groups.change_share_level`, :func:`~seqcore.projects.groups.unshare`),
under the permissions REST's ``/shares`` endpoints ask (``project:write``, ``group:write``)
and on the same traversal contexts, so a page refuses what REST refuses, in its words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Owner:
    """What is shared: its traversal collection, the permission its shares ask, the page that
    lists them, and :func:`share_with_group`'s keyword for it. The project's and the group's
    forms are the same views over these."""

    collection: str
    permission: str
    page: str
    keyword: str


PROJECT_OWNER = _Owner("projects", Permission.PROJECT_WRITE, "web.project.manage", "project")
GROUP_OWNER = _Owner("groups", Permission.GROUP_WRITE, "web.group", "group")


def _shares(request: Request, owner: _Owner, *share: str) -> Any:
    """The ``shares`` context (or one share's) under the owner in the URL, once the caller
    was found allowed to change them."""
    context = context_at(request, owner.collection, request.matchdict["id"], "shares", *share)
    require(request, context, owner.permission)
    return context


def share_view(owner: _Owner) -> Callable[[Request], Response]:
    def share(request: Request) -> Response:
        identity = signed_in(request)
        context = _shares(request, owner)
        shared = getattr(context.__parent__, owner.keyword)
        grantee = _grantee(request, identity)
        share_with_group(request.db, grantee, _level(request), actor_id=_actor(identity),
                         **{owner.keyword: shared})
        return _back(request, owner.page, shared.id,
                     _("Shared with ${group}.", mapping={"group": grantee.full_path}))

    return share


def unshare_view(owner: _Owner) -> Callable[[Request], Response]:
    def remove(request: Request) -> Response:
        signed_in(request)
        context = _shares(request, owner, request.matchdict["share"])
        grantee = request.db.get(Group, context.share.group_id)
        unshare(request.db, context.share)
        return _back(request, owner.page, int(request.matchdict["id"]),
                     _("No longer shared with ${group}.", mapping={"group": grantee.full_path}))

    return remove


def level_view(owner: _Owner) -> Callable[[Request], Response]:
    def change(request: Request) -> Response:
        identity = signed_in(request)
        context = _shares(request, owner, request.matchdict["share"])
        share = change_share_level(request.db, context.share, _level(request),
                                   actor_id=_actor(identity))
        grantee = request.db.get(Group, share.group_id)
        return _back(request, owner.page, int(request.matchdict["id"]),
                     _("${name} changed.", mapping={"name": grantee.full_path}))

    return change


def includeme(config: Configurator) -> None:
    for owner, prefix, base in ((PROJECT_OWNER, "web.project", "/-/projects/{id:\\d+}/manage"),
                                (GROUP_OWNER, "web.group", "/-/groups/{id:\\d+}")):
        shares = base + "/shares"
        add_page(config, prefix + ".shares", shares, share_view(owner), method="POST")
        add_page(config, prefix + ".share.remove", shares + "/{share:\\d+}/remove",
                 unshare_view(owner), method="POST")
        add_page(config, prefix + ".share.level", shares + "/{share:\\d+}/level",
                 level_view(owner), method="POST")
