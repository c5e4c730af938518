"""The security policy: bearer tokens for the REST API, ACLs for authorization."""

from __future__ import annotations

from typing import Any

from pyramid.authorization import ACLHelper, Authenticated, Everyone
from pyramid.request import Request

from seqcore.oauth.tokens import TokenCheck, check_access_token
from seqcore.security.identity import Identity
from seqcore.security.principals import role_principal, user_principal


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def token_check(request: Request) -> TokenCheck | None:
    """Check the request's bearer token once per request; ``None`` if none was sent."""
    if "seqcore.token_check" not in request.environ:
        token = bearer_token(request)
        request.environ["seqcore.token_check"] = (
            None if token is None else check_access_token(request.db, token)
        )
    return request.environ["seqcore.token_check"]


def principals_for(identity: Identity | None) -> list[str]:
    if identity is None:
        return [Everyone]
    return [
        Everyone,
        Authenticated,
        user_principal(identity.user_id),
        *(role_principal(role) for role in identity.role.implied),
    ]


class SecurityPolicy:
    """Pyramid 2 security policy.

    The REST API authenticates with bearer tokens; ``/api/graphql`` with a personal access
    token over HTTP Basic or the session; web pages with the session
    (:mod:`seqcore.web.auth`).
    """

    def identity(self, request: Request) -> Identity | None:
        path = request.path_info
        if not (path == "/api" or path.startswith("/api/")) or path == "/api/graphql":
            # Web pages (the session) and GraphQL (Basic personal access token or session).
            from seqcore.web.auth import web_identity

            return web_identity(request)
        check = token_check(request)
        return None if check is None else check.identity

    def authenticated_userid(self, request: Request) -> int | None:
        identity = request.identity
        return None if identity is None else identity.user_id

    def permits(self, request: Request, context: Any, permission: str) -> Any:
        return ACLHelper().permits(context, principals_for(request.identity), permission)

    def remember(self, request: Request, userid: Any, **kw: Any) -> list:
        return []

    def forget(self, request: Request, **kw: Any) -> list:
        return []
