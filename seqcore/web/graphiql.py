"""``/graphiql``: the in-browser query tool, served entirely by seqcore.

Its assets come from npm packages installed at set-up (``./dev`` runs ``npm ci``; they are
never committed), so a deployment without internet access still has them. Only the four
files the page needs are served.
"""

from __future__ import annotations

from pathlib import Path

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import FileResponse, Response

from seqcore.security.policy import session_identity
from seqcore.web.render import page
from seqcore.web.views import sign_in_redirect

ASSETS = {
    "graphiql.min.js": ("graphiql/graphiql.min.js", "application/javascript"),
    "graphiql.min.css": ("graphiql/graphiql.min.css", "text/css"),
    "react.production.min.js": ("react/umd/react.production.min.js", "application/javascript"),
    "react-dom.production.min.js": ("react-dom/umd/react-dom.production.min.js",
                                    "application/javascript"),
}
SOURCE_NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"


def node_modules(request: Request) -> Path:
    configured = request.registry.settings["seqcore.graphiql.assets"]
    return Path(configured) if configured else SOURCE_NODE_MODULES


def assets_installed(request: Request) -> bool:
    base = node_modules(request)
    return all((base / relative).is_file() for relative, _ in ASSETS.values())


def graphiql(request: Request) -> Response:
    if session_identity(request) is None:
        return sign_in_redirect(request)
    if not assets_installed(request):
        return page(request, "message.mako", status=503, heading="GraphiQL is not installed",
                    message="Its assets are missing: run ./dev run (or npm ci in the source "
                            "tree), or set seqcore.graphiql.assets to a node_modules "
                            "directory holding graphiql, react and react-dom.")
    return page(request, "graphiql.mako")


def asset(request: Request) -> Response:
    entry = ASSETS.get(request.matchdict["name"])
    path = node_modules(request) / entry[0] if entry else None
    if path is None or not path.is_file():
        return Response("Not found", status=404, content_type="text/plain")
    response = FileResponse(str(path), request=request, content_type=entry[1])
    response.cache_control.max_age = 86400
    return response


def includeme(config: Configurator) -> None:
    config.add_route("web.graphiql", "/graphiql")
    config.add_route("web.graphiql_asset", "/-/graphiql/{name}")
    config.add_view(graphiql, route_name="web.graphiql", request_method="GET")
    config.add_view(asset, route_name="web.graphiql_asset", request_method="GET")
