"""Personal access tokens over HTTP Basic (``base64(<email>:<token>)``): GraphQL's credential
for programs."""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pyramid.request import Request
from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import OperationalError

from seqcore.db import utcnow
from seqcore.models.access_token import LifetimeRules, PersonalAccessToken
from seqcore.models.oauth import digest
from seqcore.models.user import User
from seqcore.security.policy.base import Credentials, identity_of

log = logging.getLogger(__name__)

LAST_USED_RESOLUTION = timedelta(minutes=1)
MALFORMED = ("Send 'Authorization: Basic <base64 of email:personal access token>' (tokens are "
             "created on your profile page), or sign in.")


def basic_credentials(header: str) -> tuple[str, str] | None:
    """``(email, token)`` from ``Basic <base64(email:token)>``; ``None`` if malformed."""
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    email, sep, token = decoded.partition(":")
    if not sep or not email or not token:
        return None
    return email, token


def check_personal_token(db: Any, email: str, token: str,
                         later: Callable[[Callable[[], None]], None] | None = None,
                         max_lifetime: timedelta | None = None) -> Credentials:
    """Resolve ``email:token`` (one SQL statement; once a minute, one more to record the use,
    apart from the request's transaction). With ``max_lifetime`` (the administrator's
    maximum, :class:`seqcore.models.access_token.LifetimeRules`) a token also stops working that
    long after it was created, whatever its own expiry, so setting a maximum reaches the
    tokens made before it."""
    row = db.execute(
        select(PersonalAccessToken, User)
        .join(User, PersonalAccessToken.user_id == User.id)
        .where(PersonalAccessToken.token_hash == digest(token))
    ).first()
    now = utcnow()
    if row is None or row.User.email.lower() != email.lower():
        return Credentials(None, error="The e-mail address or personal access token is not "
                                       "valid.")
    pat, user = row
    if pat.revoked:
        return Credentials(None, error="The personal access token has been revoked.")
    if pat.expires_at is not None and pat.expires_at <= now:
        return Credentials(None, error="The personal access token has expired.")
    if not pat.active(now, max_lifetime):
        return Credentials(None, error="The personal access token has expired: personal "
                                       "access tokens work at most "
                                       f"{max_lifetime.days if max_lifetime else 0} days "
                                       "here.")
    if not user.enabled:
        return Credentials(None, error="The account is disabled.")
    if pat.last_used_at is None or pat.last_used_at < now - LAST_USED_RESOLUTION:
        engine = _engine(db)
        token_id = pat.id
        if later is None:
            record_use(engine, token_id, now)
        else:
            later(lambda: record_use(engine, token_id, now))
    return Credentials(identity_of(user, frozenset(pat.scope_list)), "token", token_id=pat.id)


def _engine(db: Any) -> Any:
    bind = db.get_bind()
    return getattr(bind, "engine", bind)


def record_use(engine: Any, token_id: int, now: datetime) -> None:
    """Record that the token was used, at most once a minute, in a short transaction of
    its own, committed at once; the policy runs it once the request has ended.

    Never in the request's transaction, nor while the request runs: on SQLite, any write
    in the request takes the database's write lock until the request ends, so one slow
    GraphQL read would hold up every upload, sign-in and token grant; and a write committed
    beside a running request could leave that request's view of the database behind the
    one it then writes to. The record is bookkeeping: if the database is busy this minute,
    it is skipped."""
    try:
        with engine.begin() as connection:
            connection.execute(
                update(PersonalAccessToken)
                .where(PersonalAccessToken.id == token_id,
                       or_(PersonalAccessToken.last_used_at.is_(None),
                           and_(PersonalAccessToken.last_used_at
                                < now - LAST_USED_RESOLUTION)))
                .values(last_used_at=now))
    except OperationalError as err:
        log.info("personal access token %s: its last use was not recorded (%s)", token_id,
                 err.orig)


class PersonalAccessTokenPolicy:
    """GraphQL requests that send an ``Authorization`` header: it must be Basic with a
    personal access token (a REST bearer token is refused, not tried)."""

    method = "token"

    def authenticate(self, request: Request) -> Credentials:
        parsed = basic_credentials(request.headers.get("Authorization", ""))
        if parsed is None:
            return Credentials(None, error=MALFORMED)
        # The use is recorded once the request has ended (its transaction with it).
        return check_personal_token(
            request.db, *parsed,
            later=lambda record: request.add_finished_callback(lambda _request: record()),
            max_lifetime=LifetimeRules.of(request.registry.settings).max_lifetime)
