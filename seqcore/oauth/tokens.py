"""Looking up bearer tokens and issuing them outside the token endpoint (CLI, tests)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.oauth import OAuthClient, OAuthToken, digest
from seqcore.models.user import User
from seqcore.security.identity import Identity


@dataclass(frozen=True)
class TokenCheck:
    """The outcome of presenting a bearer token: an identity, or why there is none."""

    identity: Identity | None
    error: str | None = None


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def check_access_token(db: Session, token: str) -> TokenCheck:
    """Resolve an access token into an :class:`Identity` (one SQL statement)."""
    row = db.execute(
        select(OAuthToken, User, OAuthClient)
        .join(User, OAuthToken.user_id == User.id)
        .join(OAuthClient, OAuthToken.client_id == OAuthClient.id)
        .where(OAuthToken.access_hash == digest(token))
    ).first()
    if row is None:
        return TokenCheck(None, "The access token is not valid.")
    tok, user, client = row
    if tok.revoked or client.revoked:
        return TokenCheck(None, "The access token has been revoked.")
    if tok.expires <= utcnow():
        return TokenCheck(None, "The access token has expired.")
    if not user.enabled:
        return TokenCheck(None, "The account is disabled.")
    return TokenCheck(
        Identity(
            user_id=user.id,
            username=user.username,
            role=user.role,
            scopes=frozenset(tok.scopes.split()),
            client_id=client.client_id,
            lenient=client.lenient,
        )
    )


def issue_token(
    db: Session, client: OAuthClient, user: User, scopes: list[str] | None = None,
    lifetime: int | None = None,
) -> str:
    """Store a new access token (no refresh token) and return its plain value."""
    value = new_secret()
    seconds = client.access_token_seconds if lifetime is None else lifetime
    db.add(
        OAuthToken(
            access_hash=digest(value),
            refresh_hash=None,
            client_id=client.id,
            user_id=user.id,
            scopes=" ".join(scopes or client.scope_list),
            expires=utcnow() + timedelta(seconds=seconds),
            refresh_expires=None,
        )
    )
    db.flush()
    return value
