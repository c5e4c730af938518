"""Data exports: ``POST``/``GET /api/projects/{id}/exports``, ``GET``/``DELETE
/api/exports/{id}``, ``GET /api/exports`` and ``GET /api/exports/{id}/download``."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.analysis.launching import Actor
from seqcore.exports.contents import export_kinds
from seqcore.exports.download import bundle_response
from seqcore.exports.jobs import delete_export
from seqcore.exports.selection import create_export
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.export import DataExport, ExportState
from seqcore.resources.exports import ExportDownload, ExportResource, ProjectExports
from seqcore.rest.body import read_json
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.storedfiles import wants_stream
from seqcore.rest.values import epoch_ms
from seqcore.security.access import EXPORT
from seqcore.security.permissions import Permission

#: IRIDA Next's ``status`` beside seqcore's ``state``.
STATUS = {ExportState.QUEUED.value: "processing", ExportState.RUNNING.value: "processing",
          ExportState.READY.value: "ready", ExportState.ERROR.value: "error",
          ExportState.EXPIRED.value: "expired"}


def export_fields(export: DataExport, manifest: bool = True) -> dict[str, Any]:
    """An export as REST shows it; ``manifest`` (every entry's path, size and SHA-256) only
    on the export itself, not in lists."""
    fields: dict[str, Any] = {
        "name": export.name,
        "state": export.state,
        "status": STATUS.get(export.state, export.state.lower()),
        "projectId": str(export.project_id),
        "requester": str(export.requester_id) if export.requester_id is not None else None,
        "selection": dict(export.selection or {}),
        "size": export.size,
        "entries": len(export.manifest) if export.manifest is not None else None,
        "error": export.error,
        "createdDate": epoch_ms(export.created),
        "modifiedDate": epoch_ms(export.modified),
        "readyDate": epoch_ms(export.ready_at),
        "expiresDate": epoch_ms(export.expires_at),
        "label": export.name or f"Data export {export.id}",
    }
    if manifest:
        fields["manifest"] = list(export.manifest) if export.manifest is not None else None
    return fields


def _exports_root(request: Request) -> Any:
    return request.root["api"]["exports"]


def export_entry(request: Request, context: ExportResource, manifest: bool = True
                 ) -> dict[str, Any]:
    return entry(request, context, export_fields(context.export, manifest),
                 identifier=context.export.id)


def readable_exports(request: Request, project_id: int | None = None) -> list[DataExport]:
    """The exports the caller may read (of one project, if given), newest first: the SQL
    condition of :data:`seqcore.security.access.EXPORT`, as the item's ACL says."""
    identity = request.identity
    query = select(DataExport).where(EXPORT.readable(identity.user_id, identity.role))
    if project_id is not None:
        query = query.where(DataExport.project_id == project_id)
    return list(request.db.scalars(query.order_by(DataExport.id.desc())))


def list_project_exports(request: Request) -> dict:
    context: ProjectExports = request.context
    root = _exports_root(request)
    entries = [export_entry(request, root.resource_for(export), manifest=False)
               for export in readable_exports(request, context.project_ctx.project_id)]
    return collection(request, context, entries)


def list_exports(request: Request) -> dict:
    root = request.context
    entries = [export_entry(request, root.resource_for(export), manifest=False)
               for export in readable_exports(request)]
    return collection(request, root, entries)


def create(request: Request) -> dict:
    """Check the selection (one 400 with every problem, nothing stored), then queue the
    export for the caller; the worker builds it."""
    context: ProjectExports = request.context
    export = create_export(request.db, Actor(request), context.project_ctx.project,
                           read_json(request), export_kinds(request.registry))
    resource = _exports_root(request).resource_for(export)
    request.response.status = 201
    request.response.location = url_for(request, resource)
    return {"resource": export_entry(request, resource)}


def get_export(request: Request) -> dict:
    return {"resource": export_entry(request, request.context)}


def remove_export(request: Request) -> dict:
    """The export goes: its row now, its bundle once this commits; one being built is
    cancelled."""
    context: ExportResource = request.context
    delete_export(request.db, request.storage, request.tm, context.export)
    return links_only([("collection", url_for(request, context.__parent__))])


def download(request: Request) -> Response:
    """The bundle (:func:`seqcore.exports.download.bundle_response`: ranges for resuming);
    404 until it is ready and once it expired."""
    context: ExportDownload = request.context
    return bundle_response(request.storage, context.export, stream=wants_stream(request))


ENDPOINTS = [
    Endpoint("api.project.exports", "/api/projects/{pid:\\d+}/exports", {
        "GET": View(list_project_exports, Permission.PROJECT_READ),
        "POST": View(create, Permission.EXPORT_CREATE),
    }, description="The project's data exports the caller may read (its own; "
                   "administrators: all), newest first; POST asks for "
                   "one (samples, file kinds, analyses and outputs, line-list columns): "
                   "every field checked first (400 with every problem, nothing stored), "
                   "then 201 and the worker builds the bundle."),
    Endpoint("api.exports", "/api/exports", {
        "GET": View(list_exports, Permission.API_READ),
    }, description="The data exports the caller may read, newest first."),
    Endpoint("api.export", "/api/exports/{eid:\\d+}", {
        "GET": View(get_export, Permission.EXPORT_READ),
        "DELETE": View(remove_export, Permission.EXPORT_DELETE),
    }, description="One data export: its state, manifest and, when ready, its download "
                   "link; DELETE removes it and its bundle."),
    Endpoint("api.export.download", "/api/exports/{eid:\\d+}/download", {
        "GET": View(download, Permission.EXPORT_READ, renderer=None),
    }, description="The export's zip, with HTTP ranges for resuming (206, 416, If-Range)."),
]
