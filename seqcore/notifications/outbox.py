"""Writing notifications: a row of ``outgoing_mail`` in the caller's transaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.models.notification import NotificationOptOut, OutgoingMail
from seqcore.models.user import User
from seqcore.notifications.kinds import KINDS
from seqcore.notifications.messages import compose


def mail_enabled(settings: Mapping[str, Any]) -> bool:
    """Whether notifications are written at all (``seqcore.mail.host`` is set)."""
    return bool(settings.get("seqcore.mail.host"))  # empty, or no settings at all


def wants(db: Session, user: User, kind: str) -> bool:
    """Whether ``user`` gets ``kind`` messages: an enabled account with an address, that
    did not turn the kind off."""
    if not user.enabled or not user.email:
        return False
    return db.scalar(select(NotificationOptOut.id).where(
        NotificationOptOut.user_id == user.id, NotificationOptOut.kind == kind)) is None


def enqueue(db: Session, settings: Mapping[str, Any], user: User | None, kind: str,
            **values: Any) -> OutgoingMail | None:
    """Write a ``kind`` message for ``user`` (the template's values besides the account's
    own), unless mail is off, the account does not want it, or there is no account."""
    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    if user is None or not mail_enabled(settings) or not wants(db, user, kind):
        return None
    base = str(settings["seqcore.mail.base_url"]).rstrip("/")
    subject, body = compose(kind, first_name=user.first_name,
                            preferences=f"{base}/api/users/{user.id}/notifications",
                            base=base, **values)
    mail = OutgoingMail(kind=kind, recipient=user.email, subject=subject[:255], body=body)
    db.add(mail)
    return mail
