"""The JavaScript every page loads: Hotwire Turbo and Stimulus from npm (served from the
wheel's ``vendor`` copy or a checkout's ``node_modules``, never a CDN), and seqcore's own
modules in ``static/``. Pages work without them; with them, links and forms of reading pages
need no full reload and live parts (analysis states) update themselves."""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from seqcore.web.assets import asset_response

#: The npm files any page may load (hash-wasm's MD5: the upload areas' direct uploads).
PAGE_ASSETS = ["turbo.es2017-esm.js", "stimulus.js", "hash-wasm-md5.umd.min.js"]


def vendor_asset(request: Request) -> Response:
    return asset_response(request, PAGE_ASSETS)


def includeme(config: Configurator) -> None:
    config.add_route("web.vendor", "/-/vendor/{name}")
    config.add_view(vendor_asset, route_name="web.vendor", request_method="GET")
