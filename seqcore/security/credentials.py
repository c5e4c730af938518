"""Server-side web sessions, and what a password change ends.

The session cookie is signed, but a signature alone cannot be taken back: a copied cookie
would work until it expired, sign-out or not. So the cookie also carries a random value
whose digest is a :class:`~seqcore.models.access_token.WebSession` row; the session is valid
only while the row exists. Signing out deletes it, and changing a password deletes every
other session of the account and revokes what else was granted with the old password.
"""

from __future__ import annotations

import secrets

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken, WebSession
from seqcore.models.oauth import OAuthToken, digest
from seqcore.models.user import User


def start_web_session(db: Session, user_id: int) -> str:
    """Store a new session of ``user_id`` and return the secret the cookie carries."""
    secret = secrets.token_urlsafe(32)
    db.add(WebSession(token_hash=digest(secret), user_id=user_id))
    db.flush()
    return secret


def web_session_user(db: Session, secret: object, user_id: object) -> User | None:
    """The enabled account of a live session (one SQL statement), else ``None``."""
    if not isinstance(secret, str) or not isinstance(user_id, int):
        return None
    return db.scalar(select(User).join(WebSession, WebSession.user_id == User.id).where(
        WebSession.token_hash == digest(secret), User.id == user_id, User.enabled.is_(True)))


def end_web_session(db: Session, secret: object) -> None:
    if isinstance(secret, str):
        db.execute(delete(WebSession).where(WebSession.token_hash == digest(secret)))


def end_other_credentials(db: Session, user_id: int, *, keep_session: str | None = None,
                          keep_access_token: str | None = None,
                          keep_personal_tokens: bool = False) -> None:
    """After a password change: end every web session but ``keep_session`` (the caller's),
    revoke every OAuth token but ``keep_access_token`` (the one the change was made with),
    and every personal access token unless the user chose to keep them."""
    sessions = delete(WebSession).where(WebSession.user_id == user_id)
    if keep_session:
        sessions = sessions.where(WebSession.token_hash != digest(keep_session))
    db.execute(sessions)
    tokens = update(OAuthToken).where(OAuthToken.user_id == user_id,
                                      OAuthToken.revoked.is_(False))
    if keep_access_token:
        tokens = tokens.where(OAuthToken.access_hash != digest(keep_access_token))
    db.execute(tokens.values(revoked=True).execution_options(synchronize_session=False))
    if not keep_personal_tokens:
        db.execute(update(PersonalAccessToken)
                   .where(PersonalAccessToken.user_id == user_id,
                          PersonalAccessToken.revoked.is_(False))
                   .values(revoked=True, revoked_at=utcnow())
                   .execution_options(synchronize_session=False))
    db.execute(update(User).where(User.id == user_id).values(modified=utcnow())
               .execution_options(synchronize_session=False))
