"""Tweens that must run before routing and traversal.

Pyramid only checks authorization when a view declares a permission, which happens after
traversal; the contract wants 401 for *any* ``/api`` URL without credentials, existing or
not, so the check lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.interfaces import IRoutesMapper
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from seqcore.security.answers import is_api, json_error
from seqcore.security.policy import token_check

# Paths under /api that authenticate by other means (the token endpoint itself, the
# authorization-code pages, direct uploads and attachment downloads whose URL carries its
# capability), or that a plugin exempts.
PUBLIC_API_PREFIXES = ("/api/oauth/", "/api/directUploads/", "/api/attachments/")
# Exact paths with their own authentication: GraphQL answers 401 itself, in GraphQL's shape,
# for missing or bad credentials (Basic personal access token or session).
PUBLIC_API_PATHS = frozenset({"/api/graphql"})
READ_METHODS = {"GET", "HEAD"}

def _public(request: Request) -> bool:
    path = request.path_info
    if path in PUBLIC_API_PATHS:
        return True
    exempt = request.registry.get("seqcore.public_api_prefixes", PUBLIC_API_PREFIXES)
    return any(path.startswith(prefix) for prefix in exempt)


def allowed_methods(request: Request) -> list[str]:
    """The verbs the endpoint matching this path answers (for OPTIONS and 405)."""
    mapper = request.registry.queryUtility(IRoutesMapper)
    services = request.registry.get("seqcore.services_by_route", {})
    if mapper is not None:
        for route in mapper.get_routes():
            if route.match(request.path_info) is not None and route.name in services:
                methods = set(services[route.name].defined_methods)
                return sorted(methods | {"OPTIONS"})
    return ["OPTIONS"]


def api_auth_tween_factory(handler: Callable[..., Any], registry: Registry) -> Callable[..., Any]:
    def tween(request: Request) -> Response:
        if not is_api(request.path_info) or _public(request):
            return handler(request)
        check = token_check(request)
        if check is None:
            return json_error(
                401,
                "Full authentication is required to access this resource: send "
                "'Authorization: Bearer <token>' (tokens come from /api/oauth/token).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if check.identity is None:
            return json_error(
                401,
                check.error or "The access token is not valid.",
                headers={
                    "WWW-Authenticate": f'Bearer error="invalid_token", '
                    f'error_description="{check.error}"'
                },
            )
        if request.method == "OPTIONS":
            return Response(
                status=200, headers={"Allow": ", ".join(allowed_methods(request))},
            )
        needed = "read" if request.method in READ_METHODS else "write"
        if needed not in check.identity.scopes:
            return json_error(
                403,
                f"The access token lacks the '{needed}' scope needed for {request.method}.",
                headers={
                    "WWW-Authenticate": 'Bearer error="insufficient_scope", '
                    'error_description="The request requires higher privileges than '
                    'provided by the access token."'
                },
            )
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import EXCVIEW

    # Paths reach this tween canonical (``//`` collapsed, the /api trailing slash dropped):
    # seqcore.parsing.wellformed rewrites them first.
    # Inside pyramid_tm (the token lookup uses request.db) and outside the exception view,
    # so nothing below can turn a missing token into a 404.
    config.add_tween(
        "seqcore.security.tweens.api_auth_tween_factory",
        over=EXCVIEW,
        under="pyramid_tm.tm_tween_factory",
    )
