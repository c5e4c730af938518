"""OAuth2 bearer tokens: the REST API's credential (``Authorization: Bearer <token>``)."""

from __future__ import annotations

from typing import cast

from pyramid.registry import Registry
from pyramid.request import Request

from seqcore.oauth.tokens import CACHE_SECONDS, TokenCache, TokenCheck, check_access_token
from seqcore.security.policy.base import Credentials


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return cast("str | None", value.strip())


def token_check(request: Request) -> TokenCheck | None:
    """Check the request's bearer token once per request; ``None`` if none was sent.

    The authentication tween (401 before traversal) and the policy both ask; the token is
    looked up once.
    """
    if "seqcore.token_check" not in request.environ:
        token = bearer_token(request)
        request.environ["seqcore.token_check"] = (
            None if token is None else
            check_access_token(request.db, token, token_cache(request.registry))
        )
    return cast("TokenCheck | None", request.environ["seqcore.token_check"])


def token_cache(registry: Registry) -> TokenCache:
    """The process's cache of token checks (``seqcore.oauth.token_cache_seconds``)."""
    cache = registry.get("seqcore.token_cache")
    if cache is None:
        seconds = float(registry.settings.get("seqcore.oauth.token_cache_seconds",
                                              CACHE_SECONDS))
        cache = registry.setdefault("seqcore.token_cache", TokenCache(seconds))
    return cast("TokenCache", cache)


class BearerTokenPolicy:
    """Every ``/api`` path but GraphQL's. Missing and bad tokens are answered (401, 403 for
    a scope) by :mod:`seqcore.security.tweens` before traversal."""

    method = "bearer"

    def authenticate(self, request: Request) -> Credentials:
        check = token_check(request)
        if check is None:
            return Credentials(None, self.method)
        return Credentials(check.identity, self.method, check.error)
