"""``/downloads/linelist/{token}``: a line list behind a signed, short-lived link (the one
GraphQL's ``linelistDownload`` hands out). The token names the account; the account must
still read the project when the link is used, and sees only the fields it may read then."""

from __future__ import annotations

from collections.abc import Iterator

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPForbidden
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.db import request_engine
from seqcore.models.project import Project
from seqcore.models.user import User
from seqcore.samples.linelist import (
    FORMATS,
    file_name,
    linelist_chunks,
    linelist_columns,
    verify_download,
)
from seqcore.security.access import PROJECT
from seqcore.security.fieldaccess import Caller


def download_linelist(request: Request) -> Response:
    payload = verify_download(request.registry["seqcore.download_secret"],
                              request.matchdict["token"])
    if payload is None:
        raise HTTPForbidden("This download link is not valid (or no longer).")
    user = request.db.get(User, payload["u"])
    if user is None or not user.enabled:
        raise HTTPForbidden("This download link is not valid (or no longer).")
    project = request.db.scalar(select(Project).where(
        Project.id == payload["p"], PROJECT.readable(user.id, user.system_role)))
    if project is None:
        raise HTTPForbidden("This download link is not valid (or no longer).")
    fmt = payload["f"]
    linelist = linelist_columns(request.db, Caller(user.id, user.system_role), project.id,
                                payload["t"])
    engine = request_engine(request)

    def body() -> Iterator[bytes]:
        with engine.connect() as conn:
            yield from linelist_chunks(conn, linelist, fmt)

    response = Response(app_iter=body(), content_type=FORMATS[fmt])
    response.headers["Content-Disposition"] = (
        f'attachment; filename="{file_name(project.path, fmt)}"')
    response.cache_control = "no-store"
    return response


def includeme(config: Configurator) -> None:
    config.add_route("web.download.linelist", "/downloads/linelist/{token}")
    config.add_view(download_linelist, route_name="web.download.linelist",
                    request_method="GET")
