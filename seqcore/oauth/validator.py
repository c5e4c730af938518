"""oauthlib's storage adapter: clients, users, codes and tokens in seqcore's database."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2 import RequestValidator
from oauthlib.oauth2.rfc6749.errors import InvalidGrantError
from oauthlib.oauth2.rfc6749.utils import scope_to_list
from pyramid.request import Request
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from seqcore.db import rowcount, utcnow
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthClient, OAuthToken, digest
from seqcore.oauth.tokens import token_problem
from seqcore.security.signin import LOCKED_MESSAGE, Outcome, authenticate

CODE_SECONDS = 600
# Grants the token endpoint serves. client_credentials is not among them: a token must act
# for a person, whose permissions are the only ones seqcore knows (docs/security.md).
GRANT_TYPES = frozenset({"password", "authorization_code", "refresh_token"})
# The scopes a client may be registered for: GET and HEAD need read, other verbs write.
SCOPES = ("read", "write")
# Token kinds introspection knows, in the order they are looked up without a hint.
TOKEN_KINDS = ("access_token", "refresh_token")


class SignInLocked(InvalidGrantError):
    """The account or address is locked out by the sign-in limit: 429, not a plain 400."""

    status_code = 429
    description = LOCKED_MESSAGE


def new_family() -> str:
    return secrets.token_hex(16)


def revoke_family(db: Session, family: str | None) -> None:
    """Revoke every token descending from one grant: a spent refresh token or a used code
    presented again means someone holds a copy (OAuth 2 security best current practice)."""
    if family:
        # Rows locked in id order, and only those still live: simultaneous replays then
        # queue on the same rows instead of deadlocking.
        live = (select(OAuthToken.id)
                .where(OAuthToken.family == family, OAuthToken.revoked.is_(False))
                .order_by(OAuthToken.id).with_for_update())
        ids = list(db.scalars(live))
        if ids:
            db.execute(update(OAuthToken).where(OAuthToken.id.in_(ids)).values(revoked=True)
                       .execution_options(synchronize_session=False))


def resource_servers(settings: dict[str, Any]) -> frozenset[str]:
    """Client ids named by ``seqcore.oauth.resource_servers``: the clients that may
    introspect tokens issued to any client."""
    value = settings.get("seqcore.oauth.resource_servers") or ""
    return frozenset(value.replace(",", " ").split())


def epoch_seconds(moment: datetime) -> int:
    """Seconds since 1970 (UTC), as RFC 7662's ``exp`` and ``iat`` carry them."""
    return int(moment.timestamp())


def issuer(request: Request) -> str:
    """The authorization server's identifier (RFC 8414): the application's URL, with the
    scheme and host a trusted proxy forwarded (``seqcore.security.proxies``)."""
    return request.application_url


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``(client_id, secret)`` from an ``Authorization: Basic`` header, if well formed."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        return None
    return unquote(client_id), unquote(secret)


def verifier_matches(verifier: str | None, challenge: str, method: str) -> bool:
    """Whether a PKCE ``code_verifier`` answers the code's challenge (RFC 7636 4.6)."""
    if not verifier:
        return False
    if method == "S256":
        digest_ = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
        computed = base64.urlsafe_b64encode(digest_).decode().rstrip("=")
    else:
        computed = verifier
    return hmac.compare_digest(computed, challenge)


class Validator(RequestValidator):
    """Answers oauthlib's questions from the database session of the current request."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.db: Session = request.db

    # -- clients -----------------------------------------------------------------------------

    def _client(self, client_id: str | None) -> OAuthClient | None:
        if not client_id:
            return None
        client = self.db.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
        if client is None or client.revoked:
            return None
        return client

    def client_authentication_required(self, request: OAuthRequest, *a: Any, **k: Any) -> bool:
        return True

    def authenticate_client(self, request: OAuthRequest, *a: Any, **k: Any) -> bool:
        credentials = basic_credentials(request.headers.get("Authorization"))
        if credentials is None:
            credentials = (request.client_id, request.client_secret)
        client_id, secret = credentials
        client = self._client(client_id)
        if client is None or secret is None:
            return False
        if not hmac.compare_digest(client.secret_hash, digest(secret)):
            return False
        request.client = client
        request.client_id = client.client_id
        return True

    def authenticate_client_id(self, client_id: str, request: OAuthRequest, *a: Any,
                               **k: Any) -> bool:
        return False  # every client is confidential

    def validate_client_id(self, client_id: str, request: OAuthRequest, *a: Any,
                           **k: Any) -> bool:
        client = self._client(client_id)
        if client is None:
            return False
        request.client = client
        return True

    def validate_grant_type(self, client_id: str, grant_type: str, client: OAuthClient,
                            request: OAuthRequest, *a: Any, **k: Any) -> bool:
        return grant_type in GRANT_TYPES and grant_type in client.grant_type_list

    def validate_response_type(self, client_id: str, response_type: str, client: OAuthClient,
                               request: OAuthRequest, *a: Any, **k: Any) -> bool:
        return response_type == "code" and "authorization_code" in client.grant_type_list

    def validate_scopes(self, client_id: str, scopes: list[str], client: OAuthClient,
                        request: OAuthRequest, *a: Any, **k: Any) -> bool:
        return bool(scopes) and set(scopes) <= set(client.scope_list)

    def get_default_scopes(self, client_id: str, request: OAuthRequest, *a: Any,
                           **k: Any) -> list[str]:
        client = request.client or self._client(client_id)
        return client.scope_list if client else []

    # -- redirect URIs (authorization-code flow) ---------------------------------------------

    def validate_redirect_uri(self, client_id: str, redirect_uri: str, request: OAuthRequest,
                              *a: Any, **k: Any) -> bool:
        client = self._client(client_id)
        return client is not None and redirect_uri in client.redirect_uri_list

    def get_default_redirect_uri(self, client_id: str, request: OAuthRequest, *a: Any,
                                 **k: Any) -> str | None:
        client = self._client(client_id)
        uris = client.redirect_uri_list if client else []
        return uris[0] if len(uris) == 1 else None

    # PKCE (RFC 7636). Not required: IRIDA's confidential clients exchange codes without it,
    # as today. A code issued with a challenge is exchanged only with its verifier
    # (:meth:`validate_code` checks it before redeeming, so a wrong verifier is
    # ``invalid_grant`` and the code stays usable by its owner).

    def is_pkce_required(self, client_id: str, request: OAuthRequest) -> bool:
        return False

    def get_code_challenge(self, code: str, request: OAuthRequest) -> str | None:
        row = self._code(code)
        return row.code_challenge if row is not None else None

    def get_code_challenge_method(self, code: str, request: OAuthRequest) -> str | None:
        row = self._code(code)
        return row.code_challenge_method if row is not None else None

    # -- users -------------------------------------------------------------------------------

    def validate_user(self, username: str, password: str, client: OAuthClient,
                      request: OAuthRequest, *a: Any, **k: Any) -> bool:
        """The password grant: one of the password doors, under the shared sign-in limit."""
        result = authenticate(self.request, username or "", password or "")
        if result.outcome is Outcome.LOCKED:
            raise SignInLocked(request=request)
        if result.outcome is not Outcome.OK:
            return False
        request.user = result.user
        request.seqcore_family = new_family()
        return True

    # -- authorization codes -----------------------------------------------------------------

    def save_authorization_code(self, client_id: str, code: dict, request: OAuthRequest,
                                *a: Any, **k: Any) -> None:
        # Used codes are kept until a day after expiry so a replay can still be recognised.
        self.db.execute(delete(OAuthAuthorizationCode).where(
            OAuthAuthorizationCode.expires < utcnow() - timedelta(days=1)))
        self.db.add(OAuthAuthorizationCode(
            code_hash=digest(code["code"]), client_id=request.client.id,
            user_id=request.user.id, redirect_uri=request.redirect_uri or "",
            scopes=" ".join(request.scopes), expires=utcnow() + timedelta(seconds=CODE_SECONDS),
            code_challenge=getattr(request, "code_challenge", None) or None,
            code_challenge_method=(getattr(request, "code_challenge_method", None) or "plain")
            if getattr(request, "code_challenge", None) else None,
        ))
        self.db.flush()

    def _code(self, code: str) -> OAuthAuthorizationCode | None:
        return self.db.scalar(select(OAuthAuthorizationCode).where(
            OAuthAuthorizationCode.code_hash == digest(code)))

    def validate_code(self, client_id: str, code: str, client: OAuthClient,
                      request: OAuthRequest, *a: Any, **k: Any) -> bool:
        """Redeem the code: one conditional UPDATE, so of simultaneous exchanges exactly one
        wins; any other exchange, then or later, revokes what the code yielded."""
        row = self._code(code)
        if row is None or row.client_id != client.id:
            return False
        if row.redeemed is not None:
            revoke_family(self.db, row.family)
            return False
        if row.expires <= utcnow() or not row.user.enabled:
            return False
        if request.redirect_uri and request.redirect_uri != row.redirect_uri:
            return False  # refused before redeeming: the code stays usable
        if row.code_challenge and not verifier_matches(
                getattr(request, "code_verifier", None), row.code_challenge,
                row.code_challenge_method or "plain"):
            return False  # no verifier, or not this code's: refused before redeeming
        family = new_family()
        won = rowcount(self.db.execute(
            update(OAuthAuthorizationCode)
            .where(OAuthAuthorizationCode.id == row.id, OAuthAuthorizationCode.redeemed.is_(None))
            .values(redeemed=utcnow(), family=family)
            .execution_options(synchronize_session=False))) == 1
        if not won:
            self.db.expire(row)
            redeemed = self._code(code)
            if redeemed is not None:  # read again: the row is there, redeemed by another
                revoke_family(self.db, redeemed.family)
            return False
        request.user = row.user
        request.scopes = row.scopes.split()
        request.seqcore_family = family
        return True

    def confirm_redirect_uri(self, client_id: str, code: str, redirect_uri: str,
                             client: OAuthClient, request: OAuthRequest, *a: Any,
                             **k: Any) -> bool:
        row = self._code(code)
        return row is not None and (not redirect_uri or row.redirect_uri == redirect_uri)

    def invalidate_authorization_code(self, client_id: str, code: str, request: OAuthRequest,
                                      *a: Any, **k: Any) -> None:
        """Nothing left to do: :meth:`validate_code` redeemed the code, and the row stays so
        that a replay is recognised."""

    # -- tokens ------------------------------------------------------------------------------

    def save_bearer_token(self, token: dict, request: OAuthRequest, *a: Any, **k: Any) -> None:
        client: OAuthClient = request.client
        refresh = token.get("refresh_token")
        if refresh and "refresh_token" not in client.grant_type_list:
            token.pop("refresh_token")  # this client gets no refresh tokens
            refresh = None
        # The old pair of a refresh was revoked when its refresh token was redeemed
        # (validate_refresh_token); the new pair joins the same family.
        now = utcnow()
        refresh_seconds = client.refresh_token_seconds
        self.db.add(OAuthToken(
            access_hash=digest(token["access_token"]),
            refresh_hash=digest(refresh) if refresh else None,
            client_id=client.id, user_id=request.user.id,
            scopes=token.get("scope") or " ".join(request.scopes),
            # The same moment as the expiry's start, so introspection's exp - iat is
            # exactly the lifetime even when the row is flushed a second later.
            created=now,
            expires=now + timedelta(seconds=int(token["expires_in"])),
            refresh_expires=(now + timedelta(seconds=refresh_seconds)) if refresh and
            refresh_seconds else None,
            family=getattr(request, "seqcore_family", None) or new_family(),
        ))
        self.db.flush()

    def _by_refresh(self, refresh_token: str | None) -> OAuthToken | None:
        if not refresh_token:
            return None
        return self.db.scalar(select(OAuthToken).where(
            OAuthToken.refresh_hash == digest(refresh_token)))

    def validate_refresh_token(self, refresh_token: str, client: OAuthClient,
                               request: OAuthRequest, *a: Any, **k: Any) -> bool:
        """Redeem the refresh token: one conditional UPDATE marks it spent and revokes its
        pair, so of simultaneous refreshes exactly one wins. A spent token presented again
        (then or later) revokes its whole family."""
        row = self._by_refresh(refresh_token)
        if row is None or row.client_id != client.id:
            return False
        if row.refresh_spent is not None:
            revoke_family(self.db, row.family)
            return False
        if token_problem(revoked=row.revoked, client_revoked=client.revoked,
                         user_enabled=row.user.enabled, expires=row.refresh_expires,
                         now=utcnow()) is not None:
            return False
        requested = scope_to_list(request.scope) if request.scope else []
        if requested and not set(requested) <= set(row.scopes.split()):
            request.user = row.user  # oauthlib answers invalid_scope; nothing is spent
            return True
        won = rowcount(self.db.execute(
            update(OAuthToken)
            .where(OAuthToken.id == row.id, OAuthToken.refresh_spent.is_(None),
                   OAuthToken.revoked.is_(False))
            .values(refresh_spent=utcnow(), revoked=True)
            .execution_options(synchronize_session=False))) == 1
        if not won:
            revoke_family(self.db, row.family)
            return False
        if row.family is None:  # issued before token families existed
            row.family = new_family()
            self.db.flush()
        request.user = row.user
        request.seqcore_family = row.family
        return True

    def get_original_scopes(self, refresh_token: str, request: OAuthRequest, *a: Any,
                            **k: Any) -> list[str]:
        row = self._by_refresh(refresh_token)
        return row.scopes.split() if row else []

    def rotate_refresh_token(self, request: OAuthRequest) -> bool:
        return True

    def revoke_token(self, token: str, token_type_hint: str | None, request: OAuthRequest,
                     *a: Any, **k: Any) -> None:
        hashed = digest(token)
        rows = self.db.scalars(select(OAuthToken).where(
            (OAuthToken.access_hash == hashed) | (OAuthToken.refresh_hash == hashed)))
        for row in rows:
            if row.client_id == request.client.id:
                row.revoked = True
        self.db.flush()

    # -- introspection (RFC 7662) ------------------------------------------------------------

    def _live_token(self, kind: str, token: str) -> OAuthToken | None:
        """The token row if ``token`` is a live token of this kind: issued, neither expired
        nor revoked nor (for a refresh token) spent, its client and account still active.
        The same conditions as presenting it to the API or to the token endpoint."""
        hashed = digest(token)
        column = OAuthToken.access_hash if kind == "access_token" else OAuthToken.refresh_hash
        row = self.db.scalar(select(OAuthToken).where(column == hashed))
        if row is None:
            return None
        access = kind == "access_token"
        if token_problem(revoked=row.revoked, client_revoked=row.client.revoked,
                         user_enabled=row.user.enabled,
                         expires=row.expires if access else row.refresh_expires,
                         now=utcnow()) is not None:
            return None
        if not access and (row.refresh_spent is not None
                           or "refresh_token" not in row.client.grant_type_list):
            return None
        return row

    def introspect_token(self, token: str, token_type_hint: str | None,
                         request: OAuthRequest, *a: Any, **k: Any) -> dict[str, Any] | None:
        """The claims of a live token, or ``None`` (``{"active": false}``).

        The hinted kind is looked up first and the other after it (RFC 7662 section 2.1).
        A client sees only the tokens issued to it, unless it is one of the resource servers
        (``seqcore.oauth.resource_servers``); any other token answers as unknown, so a client
        cannot use the endpoint to learn which strings are tokens (section 4). Reads only.
        """
        kinds = list(TOKEN_KINDS)
        if token_type_hint in kinds:
            kinds.remove(token_type_hint)
            kinds.insert(0, token_type_hint)
        for kind in kinds:
            row = self._live_token(kind, token)
            if row is not None:
                break
        else:
            return None
        caller: OAuthClient = request.client
        if (row.client_id != caller.id
                and caller.client_id not in resource_servers(self.request.registry.settings)):
            return None
        claims: dict[str, Any] = {
            "scope": row.scopes,
            "client_id": row.client.client_id,
            "username": row.user.username,
            "sub": str(row.user.id),
            "iss": issuer(self.request),
            "iat": epoch_seconds(row.created),
        }
        if kind == "access_token":
            claims["token_type"] = "bearer"
            claims["exp"] = epoch_seconds(row.expires)
        elif row.refresh_expires is not None:  # else registered without refresh expiry
            claims["exp"] = epoch_seconds(row.refresh_expires)
        return claims
