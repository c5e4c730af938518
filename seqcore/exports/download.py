"""An export's bundle as an HTTP answer, the same whichever transport serves it: REST's
``/api/exports/{id}/download`` (with a bearer token) and the web pages'
``/-/exports/{id}/download`` (with the session). The caller was already found allowed to
read the export (``export:read`` on its traversal context).

From a local directory the bundle is sent with ranges, so a broken download resumes. From an
object store the answer is ``303 See Other`` to a signed URL of the store (never cached: the
URL is the credential), so the bytes never pass through seqcore, unless ``stream`` asks for
the bytes through seqcore (``seqcore.storage.downloads = stream``, or REST's ``?stream=1``).
"""

from __future__ import annotations

from typing import Any

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.response import Response
from webob.static import FileIter

from seqcore.errors.domain import Conflict, NotFound
from seqcore.models.export import DataExport, ExportState
from seqcore.parsing.timestamps import epoch_ms


def bundle_response(storage: Any, export: DataExport, stream: bool = False) -> Response:
    """The bundle, with ranges for resuming (206 for a satisfiable ``Range``, 416 for one
    that is not, ``If-Range`` by the strong ETag or the date) from a local directory, a
    redirect to the object store (or its bytes, with ``stream``) otherwise; :class:`Conflict`
    while it is being prepared, :class:`NotFound` once it expired or failed."""
    if export.state in (ExportState.QUEUED.value, ExportState.RUNNING.value):
        raise Conflict(f"Data export {export.id} is being prepared ({export.state}); "
                       "download it once it is READY.")
    if export.state != ExportState.READY.value or not export.path:
        raise NotFound(f"Data export {export.id} has no bundle to download: it is "
                       f"{export.state}.")
    name = f"seqcore-export-{export.id}.zip"
    if not storage.is_local:
        return _from_store(storage, export, name, stream)
    path = storage.path(export.path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - the response's iterator closes it
    except FileNotFoundError:
        raise NotFound(f"Data export {export.id} has no bundle to download.") from None
    response = Response(conditional_response=True, content_type="application/zip",
                        app_iter=FileIter(handle), content_length=export.size)
    response.etag = (f"export-{export.id}-{export.size}-{epoch_ms(export.ready_at)}", True)
    response.last_modified = export.ready_at
    response.accept_ranges = "bytes"
    response.cache_control = "private, no-transform"
    response.content_disposition = f'attachment; filename="{name}"'
    return response


def _from_store(storage: Any, export: DataExport, name: str, stream: bool) -> Response:
    if not stream:
        redirect = HTTPSeeOther(location=storage.signed_url(export.path, "GET"))
        redirect.cache_control = "no-store"
        return redirect
    size = storage.size(export.path)
    if size is None:
        raise NotFound(f"Data export {export.id} has no bundle to download.")
    response = Response(app_iter=FileIter(storage.open(export.path)),
                        content_type="application/zip", content_length=size)
    response.cache_control = "private, no-transform"
    response.content_disposition = f'attachment; filename="{name}"'
    return response
