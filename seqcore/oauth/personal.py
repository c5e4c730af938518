"""Personal access tokens: created (shown once), listed, rotated and revoked by their owner
(the profile page) or by an administrator for an account (`seqcore tokens create`,
`seqcore tokens rotate`), within the administrator's lifetime rules
(``seqcore.tokens.require_expiry``, ``seqcore.tokens.max_lifetime_days``), and deleted
``seqcore.tokens.cleanup_after_days`` after they stopped working (:class:`TokenSweeper`,
`seqcore tokens prune`)."""

from __future__ import annotations

import logging
import time as clock
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import transaction
from sqlalchemy import and_, delete, or_, select
from sqlalchemy.orm import Session

from seqcore.db import session_for, utcnow
from seqcore.db.locks import lock_row
from seqcore.models.access_token import SCOPES, LifetimeRules, PersonalAccessToken
from seqcore.models.oauth import digest
from seqcore.oauth.tokens import new_secret
from seqcore.services import ISessionFactory, registry_service

log = logging.getLogger(__name__)

MAX_NAME = 255
PREFIX = "sqc_"  # recognisable in logs and secret scanners


@dataclass(frozen=True)
class NewToken:
    record: PersonalAccessToken
    secret: str


NO_RULES = LifetimeRules()


class RotationRefused(Exception):
    """Why a token cannot be rotated; nothing was changed. ``missing``: there is no such
    token of the account's (as opposed to one that no longer works)."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.missing = missing


def token_problems(name: str, scopes: list[str], expires: str | None,
                   today: date | None = None, rules: LifetimeRules = NO_RULES
                   ) -> dict[str, str]:
    """Every problem with a token request, by form field."""
    problems = {}
    if not name.strip():
        problems["name"] = "Give the token a name."
    elif len(name) > MAX_NAME:
        problems["name"] = f"The name must be at most {MAX_NAME} characters long."
    if not scopes:
        problems["scopes"] = "Choose at least one scope."
    elif any(scope not in SCOPES for scope in scopes):
        problems["scopes"] = f"Scopes must be among: {', '.join(SCOPES)}."
    if expires:
        try:
            day = date.fromisoformat(expires)
        except ValueError:
            problems["expires_at"] = "The expiry date must be a date (YYYY-MM-DD)."
        else:
            today = today or utcnow().date()
            latest = rules.latest_expiry(today)
            if day <= today:
                problems["expires_at"] = "The expiry date must be in the future."
            elif latest is not None and day > latest:
                problems["expires_at"] = (
                    f"The expiry date must be at most {rules.max_days} days from today "
                    f"({latest.isoformat()} at the latest): that is the longest a personal "
                    "access token may work here.")
    elif rules.require_expiry:
        latest = rules.latest_expiry(today or utcnow().date())
        problems["expires_at"] = (
            f"Give the token an expiry date, at most {rules.max_days} days from today "
            f"({latest}): every personal access token here must expire.")
    return problems


def create_token(db: Session, user_id: int, name: str, scopes: list[str],
                 expires: str | None) -> NewToken:
    """Store a token (its digest only) and return the secret, which is never shown again.
    A token with an expiry date works until the start of that day (UTC)."""
    secret = PREFIX + new_secret()
    expires_at = (datetime.combine(date.fromisoformat(expires), time(), tzinfo=UTC)
                  if expires else None)
    record = PersonalAccessToken(user_id=user_id, name=name.strip(), token_hash=digest(secret),
                                 scopes=" ".join(s for s in SCOPES if s in scopes),
                                 expires_at=expires_at)
    db.add(record)
    db.flush()
    return NewToken(record, secret)


def tokens_of(db: Session, user_id: int) -> list[PersonalAccessToken]:
    return list(db.scalars(select(PersonalAccessToken)
                           .where(PersonalAccessToken.user_id == user_id)
                           .order_by(PersonalAccessToken.id.desc())))


def revoke_token(db: Session, user_id: int, token_id: int) -> bool:
    """Revoke one of the user's own tokens; ``False`` if there is no such token of theirs."""
    token = db.scalar(select(PersonalAccessToken).where(
        PersonalAccessToken.id == token_id, PersonalAccessToken.user_id == user_id))
    if token is None:
        return False
    if not token.revoked:
        token.revoked = True
        token.revoked_at = utcnow()
    return True


def rotate_token(db: Session, user_id: int, token_id: int,
                 rules: LifetimeRules = NO_RULES) -> NewToken:
    """Revoke one of the account's working tokens and make its successor: the same name and
    scopes, a new secret (returned, shown once) and the same lifetime span counted from
    today (no expiry stays none, unless expiry is required: then the longest allowed).
    The row is locked first (:func:`seqcore.db.locks.lock_row`), so of two concurrent
    rotations of one token only one succeeds; the other finds it revoked.
    :class:`RotationRefused` if the token is not the account's or no longer works."""
    lock_row(db, PersonalAccessToken, token_id)
    token = db.scalar(select(PersonalAccessToken).where(
        PersonalAccessToken.id == token_id, PersonalAccessToken.user_id == user_id)
        .execution_options(populate_existing=True))
    if token is None:
        raise RotationRefused("There is no such token.", missing=True)
    now = utcnow()
    if token.revoked:
        raise RotationRefused(f"The token {token.name!r} has been revoked; only a working "
                              "token can be rotated: create a new one instead.")
    if not token.active(now, rules.max_lifetime):
        raise RotationRefused(f"The token {token.name!r} has expired; only a working token "
                              "can be rotated: create a new one instead.")
    today = now.date()
    if token.expires_at is None:
        days = rules.max_days if rules.require_expiry else None
    else:
        days = max(1, (token.expires_at.date() - token.created.date()).days)
        if rules.require_expiry:
            days = min(days, rules.max_days)
    token.revoked = True
    token.revoked_at = now
    expires = (today + timedelta(days=days)).isoformat() if days is not None else None
    return create_token(db, user_id, token.name, token.scope_list, expires)


def prune_tokens(db: Session, after_days: int, rules: LifetimeRules = NO_RULES,
                 now: datetime | None = None) -> int:
    """Delete the tokens that were revoked, or stopped working (their expiry, or the
    maximum lifetime), more than ``after_days`` ago; returns how many. Working tokens are
    never deleted."""
    before = (now or utcnow()) - timedelta(days=after_days)
    gone = [and_(PersonalAccessToken.revoked.is_(True),
                 PersonalAccessToken.revoked_at.is_not(None),
                 PersonalAccessToken.revoked_at <= before),
            and_(PersonalAccessToken.expires_at.is_not(None),
                 PersonalAccessToken.expires_at <= before)]
    if rules.max_lifetime is not None:
        gone.append(PersonalAccessToken.created <= before - rules.max_lifetime)
    result = db.execute(delete(PersonalAccessToken).where(or_(*gone))
                        .execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


class TokenSweeper:
    """The worker's round of :func:`prune_tokens` (``seqcore.tokens.cleanup_after_days``),
    at most once an hour: a day's precision is all the setting asks for."""

    INTERVAL = 3600.0

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self._next = 0.0

    def run_once(self) -> int:
        if clock.monotonic() < self._next:
            return 0
        self._next = clock.monotonic() + self.INTERVAL
        settings = self.registry.settings
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(registry_service(self.registry, ISessionFactory), manager)
            deleted = prune_tokens(db, int(settings["seqcore.tokens.cleanup_after_days"]),
                                   LifetimeRules.of(settings))
        if deleted:
            log.info("deleted %d expired or revoked personal access tokens", deleted)
        return 0
