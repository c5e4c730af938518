"""Which kinds of notification an account receives."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid
from seqcore.models.notification import NotificationOptOut
from seqcore.notifications.kinds import KINDS


def preferences(db: Session, user_id: int) -> dict[str, bool]:
    """Every kind, and whether the account receives it (all of them unless turned off)."""
    off = set(db.scalars(select(NotificationOptOut.kind).where(
        NotificationOptOut.user_id == user_id)))
    return {kind: kind not in off for kind in KINDS}


def set_preferences(db: Session, user_id: int, changes: Mapping[str, object]
                    ) -> dict[str, bool]:
    """Turn kinds on (``true``) or off (``false``); :class:`Invalid` naming every unknown
    kind or non-boolean value, and then nothing changes."""
    problems: dict[str, list[str]] = {}
    for kind, value in changes.items():
        if kind not in KINDS:
            problems[kind] = [f"Unknown notification; the kinds are {', '.join(KINDS)}."]
        elif not isinstance(value, bool):
            problems[kind] = ["Must be true (receive it) or false (do not)."]
    if problems:
        raise Invalid(problems)
    current = preferences(db, user_id)
    for kind, value in changes.items():
        if value and not current[kind]:
            db.execute(delete(NotificationOptOut).where(
                NotificationOptOut.user_id == user_id, NotificationOptOut.kind == kind))
        elif not value and current[kind]:
            db.add(NotificationOptOut(user_id=user_id, kind=kind))
    db.flush()
    return preferences(db, user_id)
