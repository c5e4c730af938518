"""``/graphiql``: the in-browser query tool, served entirely by seqcore.

Its assets come from npm packages: built into the wheel (``seqcore/web/vendor``) by the
build step, or, in a source checkout, from ``node_modules`` (``./dev`` runs ``npm ci``; they
are never committed), so a deployment without internet access still has them. Only the
files :mod:`seqcore.web.vendored` lists are served.
"""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from seqcore.security.policy import session_identity
from seqcore.web.assets import asset_response, assets_installed
from seqcore.web.render import page
from seqcore.web.views import sign_in_redirect

# The npm files /graphiql loads (seqcore.web.vendored lists where each comes from).
PAGE_ASSETS = ["graphiql.min.js", "graphiql.min.css", "react.production.min.js",
               "react-dom.production.min.js"]


def graphiql(request: Request) -> Response:
    if session_identity(request) is None:
        return sign_in_redirect(request)
    if not assets_installed(request, PAGE_ASSETS):
        return page(request, "message.mako", status=503, heading="GraphiQL is not installed",
                    message="Its assets are missing: install seqcore from its wheel (which "
                            "carries them), run npm ci in the source tree (./dev run does), "
                            "or set seqcore.graphiql.assets to a node_modules directory "
                            "holding graphiql, react and react-dom.")
    return page(request, "graphiql.mako")


def asset(request: Request) -> Response:
    return asset_response(request, PAGE_ASSETS)


def includeme(config: Configurator) -> None:
    config.add_route("web.graphiql", "/graphiql")
    config.add_route("web.graphiql_asset", "/-/graphiql/{name}")
    config.add_view(graphiql, route_name="web.graphiql", request_method="GET")
    config.add_view(asset, route_name="web.graphiql_asset", request_method="GET")
