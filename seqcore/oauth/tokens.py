"""Checking bearer tokens (with a short per-process cache), the one rule of when a token is
live, and issuing tokens outside the token endpoint (CLI, tests).

Checking a token on every request costs a hash and a three-table join; a client that
sends thousands of requests with one token pays it thousands of times. So a worker keeps
the outcome of a successful check in memory for ``seqcore.oauth.token_cache_seconds``,
tagged with the revocation generation it was made under
(:mod:`seqcore.models.revocation`). Each request reads the current generation (one
primary-key lookup) and trusts a cached check only while the generation is unchanged, the
entry is younger than the setting, and the token has not expired (compared with the clock on
every request, so expiry is exact). Revoking a token, revoking its client, or disabling,
renaming or re-roling its account changes the generation in the same transaction, so the
very next request on any worker sharing the database checks the token afresh.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.oauth import OAuthClient, OAuthToken, digest
from seqcore.models.revocation import current_generation
from seqcore.models.user import SystemRole, User
from seqcore.security.identity import Identity

CACHE_SECONDS = 30.0
"""How long a successful check is kept by default (``seqcore.oauth.token_cache_seconds``)."""

CACHE_ENTRIES = 10_000
"""Checks kept per process at most; past that the cache starts afresh."""


@dataclass(frozen=True)
class TokenCheck:
    """The outcome of presenting a bearer token: an identity, or why there is none."""

    identity: Identity | None
    error: str | None = None


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def token_problem(*, revoked: bool, client_revoked: bool, user_enabled: bool,
                  expires: datetime | None, now: datetime) -> str | None:
    """Why a token is not live, or ``None`` if it is: the one rule the API (access tokens),
    the token endpoint (refresh tokens) and introspection (both) apply. ``expires`` is the
    expiry of the kind of token presented (``None``: that kind does not expire)."""
    if revoked or client_revoked:
        return "The access token has been revoked."
    if expires is not None and expires <= now:
        return "The access token has expired."
    if not user_enabled:
        return "The account is disabled."
    return None


@dataclass(frozen=True)
class _Cached:
    identity: Identity
    expires: datetime
    generation: int
    stored: float  # time.monotonic()


class TokenCache:
    """Successful access-token checks of one process, by token digest (see the module)."""

    def __init__(self, seconds: float = CACHE_SECONDS, entries: int = CACHE_ENTRIES) -> None:
        self.seconds = seconds
        self.entries = entries
        self._checks: dict[str, _Cached] = {}
        self._lock = threading.Lock()

    def get(self, key: str, generation: int, now: datetime) -> Identity | None:
        cached = self._checks.get(key)
        if cached is None:
            return None
        if (cached.generation != generation or cached.expires <= now
                or time.monotonic() - cached.stored >= self.seconds):
            self._checks.pop(key, None)
            return None
        return cached.identity

    def put(self, key: str, identity: Identity, expires: datetime, generation: int) -> None:
        if self.seconds <= 0:
            return
        with self._lock:
            if len(self._checks) >= self.entries:
                self._checks.clear()
            self._checks[key] = _Cached(identity, expires, generation, time.monotonic())


_ACCESS_CHECK = (
    select(OAuthToken.revoked, OAuthToken.expires, OAuthToken.scopes, OAuthClient.revoked,
           OAuthClient.client_id, OAuthClient.lenient, User.id, User.username,
           User.system_role, User.enabled)
    .join(User, OAuthToken.user_id == User.id)
    .join(OAuthClient, OAuthToken.client_id == OAuthClient.id)
)


def check_access_token(db: Session, token: str, cache: TokenCache | None = None
                       ) -> TokenCheck:
    """Resolve an access token into an :class:`Identity`: from ``cache`` when it holds a
    check made under the current revocation generation (one tiny statement), else from the
    database (one more)."""
    key = digest(token)
    now = utcnow()
    generation = 0
    if cache is not None:
        # Read before the token row: a revocation committed in between leaves this entry
        # tagged with a generation that is already stale.
        generation = current_generation(db)
        identity = cache.get(key, generation, now)
        if identity is not None:
            return TokenCheck(identity)
    row = db.execute(_ACCESS_CHECK.where(OAuthToken.access_hash == key)).first()
    if row is None:
        return TokenCheck(None, "The access token is not valid.")
    (revoked, expires, scopes, client_revoked, client_id, lenient, user_id, username,
     system_role, enabled) = row
    problem = token_problem(revoked=revoked, client_revoked=client_revoked,
                            user_enabled=enabled, expires=expires, now=now)
    if problem is not None:
        return TokenCheck(None, problem)
    identity = Identity(user_id=user_id, username=username, role=SystemRole(system_role),
                        scopes=frozenset(scopes.split()), client_id=client_id,
                        lenient=lenient)
    if cache is not None:
        cache.put(key, identity, expires, generation)
    return TokenCheck(identity)


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
