"""Personal access tokens (GraphQL over HTTP Basic), web sessions, and failed and
successful sign-ins (rate limiting).

A token is shown once, when it is created; only its SHA-256 digest is stored (as for OAuth2
tokens, :func:`seqcore.models.oauth.digest`), so a stolen database yields nothing that
authenticates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.user import User

SCOPES = ("read_api", "api")
"""``read_api``: queries; ``api``: queries and mutations."""


@dataclass(frozen=True)
class LifetimeRules:
    """The administrator's rules for how long tokens live (``seqcore.tokens.*``), here
    beside the token so that authentication, the pages and the commands read them alike."""

    require_expiry: bool = False
    max_days: int = 365

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> LifetimeRules:
        return cls(bool(settings.get("seqcore.tokens.require_expiry", False)),
                   int(settings.get("seqcore.tokens.max_lifetime_days", 365)))

    @property
    def max_lifetime(self) -> timedelta | None:
        """How long after its creation any token stops working; ``None``: no limit."""
        return timedelta(days=self.max_days) if self.require_expiry else None

    def latest_expiry(self, today: date) -> date | None:
        """The latest expiry date a new token may have; ``None``: any."""
        return today + timedelta(days=self.max_days) if self.require_expiry else None


class PersonalAccessToken(Base):
    __tablename__ = "personal_access_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Space-separated, like OAuth2 scopes.
    scopes: Mapped[str] = mapped_column(String(255))
    expires_at: Mapped[datetime | None] = mapped_column(default=None)
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)
    revoked: Mapped[bool] = mapped_column(default=False)
    # When it was revoked: revoked tokens are deleted seqcore.tokens.cleanup_after_days later.
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    # When its holder was told it is about to expire (once per token).
    expiry_notified_at: Mapped[datetime | None] = mapped_column(default=None)

    user: Mapped[User] = relationship()

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    def ends_at(self, max_lifetime: timedelta | None = None) -> datetime | None:
        """When the token stops working: its expiry, or ``created + max_lifetime`` if that
        comes first (an administrator's maximum lifetime also ends tokens made before it was
        set, without rewriting them); ``None``: never."""
        if max_lifetime is None:
            return self.expires_at
        limit = self.created + max_lifetime
        return limit if self.expires_at is None or limit < self.expires_at else self.expires_at

    def active(self, now: datetime, max_lifetime: timedelta | None = None) -> bool:
        ends = self.ends_at(max_lifetime)
        return not self.revoked and (ends is None or ends > now)


class WebSession(Base):
    """A signed-in web session. The cookie carries a random value whose digest is stored
    here; signing out deletes the row, so a copied cookie stops working at once, and a
    password change deletes every other session of the account."""

    __tablename__ = "web_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    created: Mapped[datetime] = mapped_column(default=utcnow)


class SignInFailure(Base):
    """One failed password check at any of the password doors (sign-in page, OAuth password
    grant, consent form), by account key (:func:`seqcore.security.signin.account_key`: the
    same for a user's username and e-mail address) and by client address; rows older than
    the rate-limit window are pruned as new failures arrive."""

    __tablename__ = "sign_in_failure"
    __table_args__ = (
        Index("ix_sign_in_failure_username", "username"),
        Index("ix_sign_in_failure_address", "address"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(255))
    address: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class SignInSuccess(Base):
    """An address from which an account signed in with its password (the last time), so
    that failures elsewhere do not lock it out there
    (:mod:`seqcore.security.signin`); rows older than ``seqcore.sign_in.trust_days`` are no
    longer trusted and pruned as new ones arrive."""

    __tablename__ = "sign_in_success"
    __table_args__ = (UniqueConstraint("user_id", "address"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    address: Mapped[str] = mapped_column(String(64))
    last: Mapped[datetime] = mapped_column(default=utcnow, index=True)
