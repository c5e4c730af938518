"""``/api``, ``/api/version`` and the admin plugin listing."""

from __future__ import annotations

from pyramid.request import Request

from seqcore import __version__
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.framework.plugins import plugin_infos
from seqcore.rest.envelope import collection, single
from seqcore.security.permissions import Permission


def api_root(request: Request) -> dict:
    return single(request, request.context, {})


def version(request: Request) -> dict:
    # IRIDA clients read the top-level "version"; the envelope serves everyone else.
    body = single(request, request.context, {"version": __version__})
    return {"version": __version__, **body}


def plugins(request: Request) -> dict:
    entries = [
        {"name": info.name, "distribution": info.distribution, "version": info.version,
         "hooks": list(info.hooks), "links": []}
        for info in plugin_infos(request.registry.pm)
    ]
    return collection(request, request.context, entries,
                      self_href=url_for(request, request.context))


ENDPOINTS = [
    Endpoint("api.root", "/api", {"GET": View(api_root, Permission.API_READ)},
             description="The API root: links to every top-level collection."),
    Endpoint("api.version", "/api/version", {"GET": View(version, Permission.API_READ)},
             description="The service version (CalVer)."),
    Endpoint("api.plugins", "/api/plugins", {"GET": View(plugins, Permission.PLUGINS_READ)},
             description="Loaded plugins and their versions (administrators)."),
]
