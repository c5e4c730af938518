"""Personal access tokens: created (shown once), listed and revoked by their owner (the
profile page) or by an administrator for an account (`seqcore tokens create`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.access_token import SCOPES, PersonalAccessToken
from seqcore.models.oauth import digest
from seqcore.oauth.tokens import new_secret

MAX_NAME = 255
PREFIX = "sqc_"  # recognisable in logs and secret scanners


@dataclass(frozen=True)
class NewToken:
    record: PersonalAccessToken
    secret: str


def token_problems(name: str, scopes: list[str], expires: str | None,
                   today: date | None = None) -> dict[str, str]:
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
            if day <= (today or utcnow().date()):
                problems["expires_at"] = "The expiry date must be in the future."
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
    token.revoked = True
    return True
