"""The security policy Pyramid asks: it picks one sub-policy per request and delegates.

Which credential a request is judged by depends on where it goes, never on what it sends:

* ``/api/graphql`` with an ``Authorization`` header: a personal access token over Basic;
* ``/api/graphql`` without one: the session (GraphiQL);
* any other ``/api`` path: an OAuth2 bearer token;
* everything else (web pages): the session.

The choice and the outcome of authenticating are made once per request and cached for it.
Authorization is the same for every credential: the context's ACL along its lineage, with
the principals of the account (:func:`seqcore.security.principals.account_principals`).
"""

from __future__ import annotations

from typing import Any, cast

from pyramid.authorization import ACLHelper, Everyone
from pyramid.interfaces import ISecurityPolicy
from pyramid.request import Request, RequestLocalCache

from seqcore.security.answers import is_api
from seqcore.security.identity import Identity
from seqcore.security.policy.base import Credentials, SubPolicy
from seqcore.security.policy.bearer import BearerTokenPolicy
from seqcore.security.policy.personal_token import PersonalAccessTokenPolicy
from seqcore.security.policy.session import SessionPolicy
from seqcore.security.principals import account_principals

GRAPHQL_PATH = "/api/graphql"


def principals_for(identity: Identity | None) -> list[str]:
    if identity is None:
        return [Everyone]
    return account_principals(identity.user_id, identity.role)


class TopLevelPolicy:
    """Pyramid 2 security policy delegating authentication to one sub-policy per request."""

    def __init__(self) -> None:
        self.bearer = BearerTokenPolicy()
        self.personal_token = PersonalAccessTokenPolicy()
        self.session = SessionPolicy()
        self._subpolicy = RequestLocalCache(self._select)
        self._credentials = RequestLocalCache(self._authenticate)

    def _select(self, request: Request) -> SubPolicy:
        path = request.path_info
        if path == GRAPHQL_PATH:
            if request.headers.get("Authorization") is not None:
                return self.personal_token
            return self.session
        if is_api(path):
            return self.bearer
        return self.session

    def _authenticate(self, request: Request) -> Credentials:
        return self.subpolicy(request).authenticate(request)

    def subpolicy(self, request: Request) -> SubPolicy:
        """The sub-policy that judges this request (chosen once)."""
        return cast("SubPolicy", self._subpolicy.get_or_create(request))

    def credentials(self, request: Request) -> Credentials:
        """The outcome of authenticating this request (checked once)."""
        return cast("Credentials", self._credentials.get_or_create(request))

    def identity(self, request: Request) -> Identity | None:
        return self.credentials(request).identity

    def authenticated_userid(self, request: Request) -> int | None:
        identity = request.identity
        return None if identity is None else identity.user_id

    def permits(self, request: Request, context: Any, permission: str) -> Any:
        return ACLHelper().permits(context, principals_for(request.identity), permission)

    def remember(self, request: Request, userid: Any, **kw: Any) -> list[Any]:
        return []

    def forget(self, request: Request, **kw: Any) -> list[Any]:
        return []


def credentials(request: Request) -> Credentials:
    """How the request authenticated, for transports that answer 401 in their own shape
    (GraphQL) or treat credentials differently (CSRF for sessions, scopes for tokens)."""
    policy = request.registry.getUtility(ISecurityPolicy)
    return cast("Credentials", policy.credentials(request))
