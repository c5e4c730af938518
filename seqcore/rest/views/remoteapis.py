"""``/api/remoteapis``: the remote APIs (other installs users connect to), for administrators
(:mod:`seqcore.remotes.registry`). The client secret is written, never read back."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.remote import RemoteApi
from seqcore.parsing.schemas import RemoteApiSchema
from seqcore.remotes.registry import (
    create_remote_api,
    delete_remote_api,
    remote_apis,
    update_remote_api,
)
from seqcore.rest.body import load
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission


def remote_api_fields(remote: RemoteApi) -> dict[str, Any]:
    return {"name": remote.name, "baseUrl": remote.base_url, "kind": remote.kind,
            "graphqlUrl": remote.graphql_url, "description": remote.description,
            "clientId": remote.client_id, "createdDate": epoch_ms(remote.created),
            "label": remote.name}


def _entry(request: Request, collection_ctx: Any, remote: RemoteApi) -> dict[str, Any]:
    return entry(request, collection_ctx[str(remote.id)], remote_api_fields(remote),
                 identifier=remote.id)


def list_remote_apis(request: Request) -> dict:
    context = request.context
    return collection(request, context, [_entry(request, context, remote)
                                         for remote in remote_apis(request.db)])


def add_remote_api(request: Request) -> dict:
    """Register one: ``name``, ``baseUrl``, ``kind`` (``irida``, the default, or
    ``irida-next`` with its ``graphqlUrl``), ``clientId``, ``clientSecret``,
    ``description``."""
    data = load(request, RemoteApiSchema())
    remote = create_remote_api(request.db, data)
    request.response.status = 201
    request.response.location = url_for(request, request.context, str(remote.id))
    return {"resource": _entry(request, request.context, remote)}


def get_remote_api(request: Request) -> dict:
    return {"resource": _entry(request, request.context.__parent__, request.context.remote)}


def change_remote_api(request: Request) -> dict:
    """Change the fields sent; an absent or empty ``clientSecret`` keeps the secret."""
    data = load(request, RemoteApiSchema(), partial=True)
    remote = update_remote_api(request.db, request.context.remote, data)
    return {"resource": _entry(request, request.context.__parent__, remote)}


def remove_remote_api(request: Request) -> dict:
    """Delete one with its users' connections (409 while synchronized projects read it)."""
    delete_remote_api(request.db, request.context.remote)
    return links_only([("collection", url_for(request, request.context.__parent__))])


ENDPOINTS = [
    Endpoint("api.remoteapis", "/api/remoteapis", {
        "GET": View(list_remote_apis, Permission.REMOTE_API_MANAGE),
        "POST": View(add_remote_api, Permission.REMOTE_API_MANAGE),
    }, description="Remote APIs: other installs (IRIDA, IRIDA Next, seqcore) users connect "
                   "to (administrators); POST registers one. The client secret is never "
                   "answered."),
    Endpoint("api.remoteapi", "/api/remoteapis/{raid:\\d+}", {
        "GET": View(get_remote_api, Permission.REMOTE_API_MANAGE),
        "PATCH": View(change_remote_api, Permission.REMOTE_API_MANAGE),
        "DELETE": View(remove_remote_api, Permission.REMOTE_API_MANAGE),
    }, description="One remote API (administrators); DELETE removes it with its users' "
                   "connections."),
]
