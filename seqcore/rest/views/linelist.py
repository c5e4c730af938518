"""``GET /api/projects/{id}/linelist?template=&format=csv|tsv|xlsx``: the project's line
list, streamed (:mod:`seqcore.samples.linelist`)."""

from __future__ import annotations

from collections.abc import Iterator

from pyramid.request import Request
from pyramid.response import Response

from seqcore.db import request_engine
from seqcore.files.disposition import content_disposition
from seqcore.framework.contrib import Endpoint, View
from seqcore.samples.linelist import (
    FORMATS,
    check_format,
    file_name,
    linelist_chunks,
    linelist_columns,
)
from seqcore.security.fieldaccess import Caller
from seqcore.security.permissions import Permission


def get_linelist(request: Request) -> Response:
    """Columns and permissions are settled in the request's transaction; the rows are read
    while the response is written, on a connection of their own (as every streamed
    collection)."""
    fmt = check_format(request.GET.get("format"))
    project = request.context.project
    linelist = linelist_columns(request.db, Caller.of(request.identity), project.id,
                                request.GET.get("template") or None)
    engine = request_engine(request)

    def body() -> Iterator[bytes]:
        with engine.connect() as conn:
            yield from linelist_chunks(conn, linelist, fmt)

    response = Response(app_iter=body(), content_type=FORMATS[fmt])
    if fmt != "xlsx":
        response.charset = "utf-8"
    response.headers["Content-Disposition"] = content_disposition(
        file_name(project.path, fmt))
    return response


ENDPOINTS = [
    Endpoint("api.project.linelist", "/api/projects/{pid:\\d+}/linelist", {
        "GET": View(get_linelist, Permission.PROJECT_READ, renderer=None),
    }, traverse="/api/projects/{pid}",
       description="The project's line list: one row per sample, the template's columns (or "
                   "every readable field); format csv (default), tsv or xlsx; streamed."),
]
