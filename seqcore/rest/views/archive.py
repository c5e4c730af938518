"""``/api/projects/{id}/archive`` (seqcore's): whether the project is archived; ``POST``
archives it, ``DELETE`` unarchives it (:mod:`seqcore.projects.archive`).

Archiving is a write (``project:write``, refused on an archived project, naming the
archive); reading the state and unarchiving need only read the project: the owner check is
the operation's (403 for a reader who does not own it).
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.projects.archive import archive_project, unarchive_project
from seqcore.rest.body import read_json
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission


def _state(request: Request) -> dict[str, Any]:
    context = request.context
    project = context.__dict__.get("_project") or context.row
    return {"resource": {
        "archived": project.archived_at is not None,
        "archivedDate": epoch_ms(project.archived_at),
        "links": [{"rel": "self", "href": url_for(request, context, "archive")},
                  {"rel": "project", "href": url_for(request, context)}]}}


def get_archive(request: Request) -> dict:
    return _state(request)


def archive(request: Request) -> dict:
    """Archive the project. The request needs no body; one that is sent must be a JSON object
    (a malformed one is a 400 and archives nothing, as every POST answers)."""
    if request.body:
        read_json(request)
    archive_project(request.db, request.context.project, request.identity.user_id)
    return _state(request)


def unarchive(request: Request) -> dict:
    unarchive_project(request.db, request.context.project, request.identity.user_id)
    return _state(request)


ENDPOINTS = [
    Endpoint("api.project.archive", "/api/projects/{pid:\\d+}/archive", {
        "GET": View(get_archive, Permission.PROJECT_READ),
        "POST": View(archive, Permission.PROJECT_WRITE),
        "DELETE": View(unarchive, Permission.PROJECT_READ),
    }, traverse="/api/projects/{pid}",
       description="Whether the project is archived (read-only, listed only with "
                   "?archived=true); POST archives it, DELETE unarchives it (owners)."),
]
