"""Moving and retiring from the workbench: a project's management page archives,
unarchives and moves it; a group's page moves the group. Each form posts (with its CSRF
token) to the domain's operations (:mod:`seqcore.projects.archive`,
:mod:`seqcore.projects.transfer`) under the permissions REST asks, and the operations
check ownership and the right to create at the destination."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.models.group import Group
from seqcore.models.project import Project
from seqcore.projects.archive import archive_project, unarchive_project
from seqcore.projects.transfer import transfer_group, transfer_project
from seqcore.security.access import GROUP
from seqcore.security.permissions import Permission
from seqcore.web.guard import PageError, add_page, context_at, require, signed_in
from seqcore.web.i18n import _


def destinations(request: Request, exclude: Group | None = None) -> list[Group]:
    """The groups the caller may write, for a move form's choices (the operation decides
    whether the caller's own membership lets it create there); ``exclude`` leaves out a
    group and those below it (a group is not moved under itself)."""
    identity = request.identity
    groups = list(request.db.scalars(select(Group).where(
        GROUP.condition(Permission.GROUP_WRITE, identity.user_id, identity.role))
        .order_by(Group.full_path)))
    if exclude is None:
        return groups
    below = exclude.full_path + "/"
    return [g for g in groups if g.id != exclude.id and not g.full_path.startswith(below)]


def _project(request: Request, write: bool) -> Project:
    context = context_at(request, "projects", request.matchdict["id"])
    if write:
        require(request, context, Permission.PROJECT_WRITE)
    return context.project


def _to_manage(request: Request, project: Project, message: Any) -> Response:
    request.session.flash(request.localizer.translate(message))
    return HTTPSeeOther(location=request.route_path("web.project.manage", id=project.id))


def _chosen_group(request: Request, field: str) -> Group | None:
    """The group a move form names (``None``: the empty choice), one the caller reads."""
    value = request.POST.get(field, "")
    if not value:
        return None
    if not value.isascii() or not value.isdigit():
        raise PageError(400, _("Choose a group from the list."))
    return context_at(request, "groups", value).group


def archive(request: Request) -> Response:
    identity = signed_in(request)
    project = _project(request, write=True)
    archive_project(request.db, project, identity.user_id)
    return _to_manage(request, project, _("The project is archived: it is read-only."))


def unarchive(request: Request) -> Response:
    identity = signed_in(request)
    project = _project(request, write=False)
    unarchive_project(request.db, project, identity.user_id)
    return _to_manage(request, project, _("The project is no longer archived."))


def move_project(request: Request) -> Response:
    identity = signed_in(request)
    project = _project(request, write=True)
    group = _chosen_group(request, "group_id")
    transfer_project(request.db, project, identity.user_id, group)
    return _to_manage(request, project, _("The project moved to ${path}.",
                                          mapping={"path": project.full_path}))


def move_group(request: Request) -> Response:
    identity = signed_in(request)
    group = context_at(request, "groups", request.matchdict["id"]).group
    parent = _chosen_group(request, "parent_id")
    if parent is None:
        require(request, context_at(request, "groups"), Permission.GROUP_CREATE)
    transfer_group(request.db, group, identity.user_id, parent)
    request.session.flash(request.localizer.translate(
        _("The group moved to ${path}.", mapping={"path": group.full_path})))
    return HTTPSeeOther(location=request.route_path("web.group", id=group.id))


def includeme(config: Configurator) -> None:
    base = "/-/projects/{id:\\d+}/manage"
    add_page(config, "web.project.archive", base + "/archive", archive, method="POST")
    add_page(config, "web.project.unarchive", base + "/unarchive", unarchive, method="POST")
    add_page(config, "web.project.transfer", base + "/transfer", move_project, method="POST")
    add_page(config, "web.group.transfer", "/-/groups/{id:\\d+}/transfer", move_group,
             method="POST")
