"""Synchronized projects in the workbench: the page picking a remote project to mirror
(from the remote APIs the account is connected to), the sync state on a project's page,
and its "Sync now" button."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.imports.remote import RemoteError
from seqcore.models.project import Project
from seqcore.models.remote import RemoteApi, RemoteConnection
from seqcore.models.user import User
from seqcore.security.permissions import Permission
from seqcore.sync.create import connected_remote, create_synchronized_project, remote_projects
from seqcore.sync.frequency import INTERVALS
from seqcore.sync.state import describe, sync_now, sync_of
from seqcore.web.guard import PageError, add_page, context_at, require, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.render import page

FREQUENCIES = {"NEVER": _("Only when asked"), "DAILY": _("Every day"),
               "WEEKLY": _("Every week"), "SEMIMONTHLY": _("Twice a month"),
               "MONTHLY": _("Every month"), "QUARTERLY": _("Every three months")}

STATUSES = {"scheduled": _("Scheduled"), "updating": _("Synchronizing"),
            "synchronized": _("Synchronized"), "error": _("Failed"),
            "unauthorized": _("Connection refused")}


def sync_panel(request: Request, project: Project, can_write: bool) -> dict[str, Any] | None:
    """What the project's page shows of its sync, ``None`` for a project that is not
    synchronized."""
    row = sync_of(request.db, project.id)
    if row is None:
        return None
    return {**describe(request.db, row), "status_label": STATUSES.get(row.status, row.status),
            "last": row.last_sync, "next": row.next_sync, "can_sync": can_write,
            "action": request.route_path("web.project.sync", id=project.id)}


def synchronize_now(request: Request) -> Response:
    signed_in(request)
    context = context_at(request, "projects", request.matchdict["id"])
    require(request, context, Permission.PROJECT_WRITE)
    row = sync_of(request.db, context.project.id)
    if row is None:
        raise PageError(404, _("This project is not synchronized from a remote install."))
    sync_now(request.db, row)
    request.session.flash(translate(request, _(
        "The project will be synchronized in a moment.")))
    return HTTPSeeOther(location=request.route_path("web.project", id=context.project.id))


def picker(request: Request, status: int = 200, **values: Any) -> Response:
    """The remote APIs the account is connected to; with ``?remote=ID``, the projects its
    account reads there, each with a form making a synchronized project of it."""
    identity = signed_in(request)
    require(request, context_at(request, "projects"), Permission.PROJECT_CREATE)
    db = request.db
    apis = list(db.scalars(select(RemoteApi).join(
        RemoteConnection, RemoteConnection.remote_api_id == RemoteApi.id).where(
        RemoteConnection.user_id == identity.user_id).order_by(RemoteApi.name)))
    chosen, projects, problem = None, [], None
    wanted = request.params.get("remote", "")
    if wanted:
        if not wanted.isdigit():
            raise PageError(400, _("Choose a remote API from the list."))
        chosen, remote = connected_remote(db, identity.user_id, int(wanted))
        try:
            projects = remote_projects(remote)
        except RemoteError as err:
            problem = str(err)
    return page(request, "synchronize.mako", status=status, apis=apis, chosen=chosen,
                projects=projects, problem=problem, frequencies=FREQUENCIES,
                **values)


def create(request: Request) -> Response:
    identity = signed_in(request)
    require(request, context_at(request, "projects"), Permission.PROJECT_CREATE)
    remote = request.POST.get("remote", "")
    frequency = request.POST.get("frequency", "WEEKLY")
    url = request.POST.get("project_url", "").strip()
    if not remote.isdigit() or not url or frequency not in INTERVALS:
        raise PageError(400, _("Choose a remote project and how often to synchronize it."))
    user = request.db.get_one(User, identity.user_id)
    project = create_synchronized_project(request.db, user, int(remote), url, frequency)
    request.session.flash(translate(request, _(
        "Project ${name} created; it is being synchronized.", mapping={"name": project.name})))
    return HTTPSeeOther(location=request.route_path("web.project", id=project.id))


def includeme(config: Configurator) -> None:
    add_page(config, "web.synchronized", "/-/synchronized", picker)
    add_page(config, "web.synchronized", None, create, method="POST")
    add_page(config, "web.project.sync", "/-/projects/{id:\\d+}/sync", synchronize_now,
             method="POST")
