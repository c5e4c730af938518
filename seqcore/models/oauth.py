"""OAuth2 clients and the tokens issued to them.

Secrets and tokens are stored as SHA-256 digests only: a stolen database yields nothing that
authenticates. Tokens are long random strings, so an unsalted fast hash is the right tool
(unlike passwords, which need argon2).
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.user import User


def digest(secret: str) -> str:
    """The stored form of a client secret or token."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class OAuthClient(Base):
    __tablename__ = "oauth_client"

    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[str] = mapped_column(String(255), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    # Space-separated, as on the wire.
    grant_types: Mapped[str] = mapped_column(String(255), default="password refresh_token")
    scopes: Mapped[str] = mapped_column(String(255), default="read write")
    redirect_uris: Mapped[str] = mapped_column(Text, default="")
    access_token_seconds: Mapped[int] = mapped_column(Integer, default=43200)
    refresh_token_seconds: Mapped[int | None] = mapped_column(Integer, default=2592000)
    # Lenient clients may send unknown fields on POST (IRIDA's uploader does).
    lenient: Mapped[bool] = mapped_column(default=False)
    revoked: Mapped[bool] = mapped_column(default=False)
    created: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def grant_type_list(self) -> list[str]:
        return self.grant_types.split()

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    @property
    def redirect_uri_list(self) -> list[str]:
        return self.redirect_uris.split()


class OAuthToken(Base):
    __tablename__ = "oauth_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    access_hash: Mapped[str] = mapped_column(String(64), unique=True)
    refresh_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_client.id", ondelete="CASCADE"),
                                           index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    scopes: Mapped[str] = mapped_column(String(255))
    expires: Mapped[datetime]
    refresh_expires: Mapped[datetime | None]
    revoked: Mapped[bool] = mapped_column(default=False)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    # Every token descending from one grant (a password sign-in or an authorization code)
    # shares a family, so presenting a spent refresh token can revoke all of them.
    family: Mapped[str | None] = mapped_column(String(32), index=True, default=None)
    # When the refresh token was redeemed; set by one conditional UPDATE, so of two
    # simultaneous redemptions exactly one wins.
    refresh_spent: Mapped[datetime | None] = mapped_column(default=None)

    client: Mapped[OAuthClient] = relationship()
    user: Mapped[User] = relationship()


class OAuthAuthorizationCode(Base):
    __tablename__ = "oauth_authorization_code"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_client.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    redirect_uri: Mapped[str] = mapped_column(Text)
    scopes: Mapped[str] = mapped_column(String(255))
    expires: Mapped[datetime]
    created: Mapped[datetime] = mapped_column(default=utcnow)
    # Set when the code is exchanged (one conditional UPDATE), with the family of the tokens
    # it yielded: a second exchange is refused and revokes that family.
    redeemed: Mapped[datetime | None] = mapped_column(default=None)
    family: Mapped[str | None] = mapped_column(String(32), default=None)
    # PKCE (RFC 7636): the challenge sent with the authorization request, and its method
    # (S256; plain only where seqcore.oauth.pkce_plain allows it).
    code_challenge: Mapped[str | None] = mapped_column(String(128), default=None)
    code_challenge_method: Mapped[str | None] = mapped_column(String(8), default=None)

    client: Mapped[OAuthClient] = relationship()
    user: Mapped[User] = relationship()
