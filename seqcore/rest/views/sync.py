"""Synchronized projects over REST: ``POST /api/projects/synchronized`` makes one from a
remote project, ``/api/projects/{id}/sync`` shows its sync state (``GET``) and asks for a
sync now (``POST``)."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.errors.domain import NotFound
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.user import User
from seqcore.rest.body import read_json
from seqcore.rest.errors import validation_error
from seqcore.rest.views.projects import project_entry
from seqcore.security.permissions import Permission
from seqcore.sync.create import create_synchronized_project
from seqcore.sync.state import describe, sync_now, sync_of


def create_synchronized(request: Request) -> dict[str, Any]:
    """A new project of the caller mirroring a remote one (``remoteApi``: the remote API's
    id; ``projectUrl``: the project's URL there, or its id; ``syncFrequency``: ``NEVER``,
    ``DAILY``, ``WEEKLY`` (the default), ``SEMIMONTHLY``, ``MONTHLY``, ``QUARTERLY``)."""
    body = read_json(request)
    problems: dict[str, list[str]] = {}
    remote_api = body.get("remoteApi")
    if isinstance(remote_api, str) and remote_api.isdigit():
        remote_api = int(remote_api)
    if not isinstance(remote_api, int) or isinstance(remote_api, bool):
        problems["remoteApi"] = ["Give the remote API's identifier."]
    url = body.get("projectUrl")
    if isinstance(url, int) and not isinstance(url, bool):
        url = str(url)
    if not isinstance(url, str) or not url.strip():
        problems["projectUrl"] = ["Give the remote project's URL or identifier."]
    frequency = body.get("syncFrequency")
    if frequency is not None and not isinstance(frequency, str):
        problems["syncFrequency"] = ["Give the frequency as text."]
    if problems or not isinstance(remote_api, int) or not isinstance(url, str):
        raise validation_error(problems)
    user = request.db.get_one(User, request.identity.user_id)
    project = create_synchronized_project(request.db, user, remote_api, url, frequency)
    context = request.context.resource_for(project)
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": project_entry(request, context)}


def _state(request: Request) -> Any:
    row = sync_of(request.db, request.context.project.id)
    if row is None:
        raise NotFound("This project is not synchronized from a remote install.")
    return row


def _answer(request: Request, row: Any) -> dict[str, Any]:
    context = request.context
    return {"resource": {**describe(request.db, row), "links": [
        {"rel": "self", "href": url_for(request, context, "sync")},
        {"rel": "project", "href": url_for(request, context)}]}}


def get_sync(request: Request) -> dict[str, Any]:
    return _answer(request, _state(request))


def post_sync(request: Request) -> dict[str, Any]:
    """Sync now: the project is due at once (a worker's next round takes it)."""
    row = _state(request)
    sync_now(request.db, row)
    request.response.status = 202
    return _answer(request, row)


ENDPOINTS = [
    Endpoint("api.projects.synchronized", "/api/projects/synchronized", {
        "POST": View(create_synchronized, Permission.PROJECT_CREATE),
    }, traverse="/api/projects",
       description="Create a project that mirrors a project of a remote API the caller is "
                   "connected to (remoteApi, projectUrl, syncFrequency)."),
    Endpoint("api.project.sync", "/api/projects/{pid:\\d+}/sync", {
        "GET": View(get_sync, Permission.PROJECT_READ),
        "POST": View(post_sync, Permission.PROJECT_WRITE),
    }, traverse="/api/projects/{pid}",
       description="A synchronized project's sync state (status, error, last and next sync, "
                   "running); POST syncs it now."),
]
