"""``/api/projects/{id}/trash`` (owners): what was deleted from the project and can still be
restored (``seqcore.retention.days``); ``POST .../trash/{trid}/restore`` puts it back."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.governance.trash import get_entry, project_trash, restore_entry
from seqcore.models.trash import TrashEntry
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission


def _entry(request: Request, entry: TrashEntry) -> dict[str, Any]:
    base = url_for(request, request.context, "trash", str(entry.id))
    return {"kind": entry.kind, "label": entry.label, "sampleId": entry.sample_id,
            "objectId": entry.object_id, "deletedBy": entry.deleted_by,
            "deletedDate": epoch_ms(entry.deleted), "expiresDate": epoch_ms(entry.expires),
            "identifier": str(entry.id),
            "links": [{"rel": "restore", "href": f"{base}/restore"}]}


def list_trash(request: Request) -> dict:
    entries = project_trash(request.db, request.context.project_id)
    return {"resource": {"resources": [_entry(request, e) for e in entries], "links": [
        {"rel": "self", "href": url_for(request, request.context, "trash")},
        {"rel": "project", "href": url_for(request, request.context)}]}}


def restore(request: Request) -> dict:
    entry = get_entry(request.db, request.context.project_id, int(request.matchdict["trid"]))
    sample = restore_entry(request.db, entry)
    href = url_for(request, request.root["api"]["samples"], sample.id)
    return {"resource": {"links": [{"rel": "sample", "href": href}],
                         "sampleId": str(sample.id)}}


ENDPOINTS = [
    Endpoint("api.project.trash", "/api/projects/{pid:\\d+}/trash", {
        "GET": View(list_trash, Permission.PROJECT_WRITE),
    }, traverse="/api/projects/{pid}",
       description="Deleted samples and files of the project, restorable until they expire "
                   "(owners)."),
    Endpoint("api.project.trash.restore",
             "/api/projects/{pid:\\d+}/trash/{trid:\\d+}/restore", {
                 "POST": View(restore, Permission.PROJECT_WRITE),
             }, traverse="/api/projects/{pid}",
             description="Restore a trashed sample or sequencing object (owners)."),
]
