"""Serving the browser assets of a page (GraphiQL's, Redoc's) from the npm files
:mod:`seqcore.web.vendored` lists: one place for where they are found, whether a page has all
of them, and how one is answered."""

from __future__ import annotations

from pyramid.request import Request
from pyramid.response import FileResponse, Response

from seqcore.web.vendored import ASSETS, asset_path, missing_assets


def configured_node_modules(request: Request) -> str:
    """``seqcore.graphiql.assets``: a ``node_modules`` directory that overrides the packaged
    copies (empty: the package's, else the source checkout's)."""
    return request.registry.settings["seqcore.graphiql.assets"]


def assets_installed(request: Request, names: list[str]) -> bool:
    return not missing_assets(names, configured_node_modules(request))


def asset_response(request: Request, names: list[str]) -> Response:
    """The asset named in the route, if it is one of the page's ``names``; else 404."""
    name = request.matchdict["name"]
    path = asset_path(name, configured_node_modules(request)) if name in names else None
    if path is None:
        return Response("Not found", status=404, content_type="text/plain")
    response = FileResponse(str(path), request=request, content_type=ASSETS[name].media_type)
    response.cache_control.max_age = 86400
    return response
