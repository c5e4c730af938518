"""oauthlib's storage adapter: clients, users, codes and tokens in seqcore's database."""

from __future__ import annotations

import base64
import hmac
from datetime import timedelta
from typing import Any
from urllib.parse import unquote

from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2 import RequestValidator
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthClient, OAuthToken, digest
from seqcore.models.user import User
from seqcore.security.passwords import verify_password

CODE_SECONDS = 600


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


class Validator(RequestValidator):
    """Answers oauthlib's questions from the database session of the current request."""

    def __init__(self, db: Session) -> None:
        self.db = db

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
        return grant_type in client.grant_type_list

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

    def is_pkce_required(self, client_id: str, request: OAuthRequest) -> bool:
        return False

    def get_code_challenge(self, code: str, request: OAuthRequest) -> None:
        return None

    # -- users -------------------------------------------------------------------------------

    def validate_user(self, username: str, password: str, client: OAuthClient,
                      request: OAuthRequest, *a: Any, **k: Any) -> bool:
        user = self.db.scalar(select(User).where(User.username == username))
        if user is None or not user.enabled or not verify_password(user.password_hash,
                                                                   password or ""):
            return False
        request.user = user
        return True

    # -- authorization codes -----------------------------------------------------------------

    def save_authorization_code(self, client_id: str, code: dict, request: OAuthRequest,
                                *a: Any, **k: Any) -> None:
        self.db.add(OAuthAuthorizationCode(
            code_hash=digest(code["code"]), client_id=request.client.id,
            user_id=request.user.id, redirect_uri=request.redirect_uri or "",
            scopes=" ".join(request.scopes), expires=utcnow() + timedelta(seconds=CODE_SECONDS),
        ))
        self.db.flush()

    def _code(self, code: str) -> OAuthAuthorizationCode | None:
        return self.db.scalar(select(OAuthAuthorizationCode).where(
            OAuthAuthorizationCode.code_hash == digest(code)))

    def validate_code(self, client_id: str, code: str, client: OAuthClient,
                      request: OAuthRequest, *a: Any, **k: Any) -> bool:
        row = self._code(code)
        if row is None or row.client_id != client.id or row.expires <= utcnow():
            return False
        request.user = row.user
        request.scopes = row.scopes.split()
        return True

    def confirm_redirect_uri(self, client_id: str, code: str, redirect_uri: str,
                             client: OAuthClient, request: OAuthRequest, *a: Any,
                             **k: Any) -> bool:
        row = self._code(code)
        return row is not None and (not redirect_uri or row.redirect_uri == redirect_uri)

    def invalidate_authorization_code(self, client_id: str, code: str, request: OAuthRequest,
                                      *a: Any, **k: Any) -> None:
        row = self._code(code)
        if row is not None:
            self.db.delete(row)
            self.db.flush()

    # -- tokens ------------------------------------------------------------------------------

    def save_bearer_token(self, token: dict, request: OAuthRequest, *a: Any, **k: Any) -> None:
        client: OAuthClient = request.client
        refresh = token.get("refresh_token")
        if refresh and "refresh_token" not in client.grant_type_list:
            token.pop("refresh_token")  # this client gets no refresh tokens
            refresh = None
        if request.grant_type == "refresh_token":
            # The refresh token is rotated: the old pair stops working.
            old = self._by_refresh(request.refresh_token)
            if old is not None:
                old.revoked = True
        now = utcnow()
        refresh_seconds = client.refresh_token_seconds
        self.db.add(OAuthToken(
            access_hash=digest(token["access_token"]),
            refresh_hash=digest(refresh) if refresh else None,
            client_id=client.id, user_id=request.user.id,
            scopes=token.get("scope") or " ".join(request.scopes),
            expires=now + timedelta(seconds=int(token["expires_in"])),
            refresh_expires=(now + timedelta(seconds=refresh_seconds)) if refresh and
            refresh_seconds else None,
        ))
        self.db.flush()

    def _by_refresh(self, refresh_token: str | None) -> OAuthToken | None:
        if not refresh_token:
            return None
        return self.db.scalar(select(OAuthToken).where(
            OAuthToken.refresh_hash == digest(refresh_token)))

    def validate_refresh_token(self, refresh_token: str, client: OAuthClient,
                               request: OAuthRequest, *a: Any, **k: Any) -> bool:
        row = self._by_refresh(refresh_token)
        if row is None or row.revoked or row.client_id != client.id:
            return False
        if row.refresh_expires is not None and row.refresh_expires <= utcnow():
            return False
        if not row.user.enabled:
            return False
        request.user = row.user
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
