"""``/redoc``: the OpenAPI description of the REST interface, read in the browser with Redoc.

Like GraphiQL's, Redoc's one file comes from an npm package, built into the wheel or found in a
source checkout's ``node_modules`` (never from the internet at run time):
:mod:`seqcore.web.vendored` lists it, and ``seqcore.graphiql.assets`` overrides where it is.
The page needs a signed-in session: the document lists the installed plugins' endpoints, and
``/api`` answers only to tokens, so the page carries the document itself rather than fetching
it. The REST transport builds the document and lends it to this page as
``request.openapi_document`` (the transports do not import each other).
"""

from __future__ import annotations

import json

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from seqcore.security.policy import session_identity
from seqcore.web.assets import asset_response, assets_installed
from seqcore.web.render import page
from seqcore.web.views import sign_in_redirect

# The npm files /redoc loads (seqcore.web.vendored lists where each comes from).
PAGE_ASSETS = ["redoc.standalone.js"]


def script_json(document: object) -> str:
    """JSON safe inside a ``<script>`` element: no ``</script>`` or comment can end it."""
    text = json.dumps(document, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def redoc(request: Request) -> Response:
    if session_identity(request) is None:
        return sign_in_redirect(request)
    if not assets_installed(request, PAGE_ASSETS):
        return page(request, "message.mako", status=503, heading="Redoc is not installed",
                    message="Its assets are missing: install seqcore from its wheel (which "
                            "carries them), run npm ci in the source tree (./dev run does), "
                            "or set seqcore.graphiql.assets to a node_modules directory "
                            "holding redoc.")
    return page(request, "redoc.mako", document=script_json(request.openapi_document))


def asset(request: Request) -> Response:
    return asset_response(request, PAGE_ASSETS)


def includeme(config: Configurator) -> None:
    config.add_route("web.redoc", "/redoc")
    config.add_route("web.redoc_asset", "/-/redoc/{name}")
    config.add_view(redoc, route_name="web.redoc", request_method="GET")
    config.add_view(asset, route_name="web.redoc_asset", request_method="GET")
