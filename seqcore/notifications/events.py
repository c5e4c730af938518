"""What causes a notification, each written into the outbox of the transaction that caused
it (:func:`seqcore.notifications.outbox.enqueue`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.session import SETTINGS_KEY
from seqcore.models.access_token import LifetimeRules, PersonalAccessToken
from seqcore.models.user import User
from seqcore.notifications.kinds import (
    ANALYSIS_FINISHED,
    EXPORT_READY,
    MEMBER_ADDED,
    TOKEN_EXPIRING,
)
from seqcore.notifications.outbox import enqueue, mail_enabled


def settings_of(db: Session) -> Mapping[str, Any]:
    """The application's settings, as its sessions carry them (a session made elsewhere,
    by a command or a test's own engine, has none: no mail then)."""
    settings: Mapping[str, Any] = db.info.get(SETTINGS_KEY) or {}
    return settings


def _base(settings: Mapping[str, Any]) -> str:
    return str(settings["seqcore.mail.base_url"]).rstrip("/")


def _when(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else "-"


def member_added(db: Session, user_id: int, what: str, name: str, level: str, path: str,
                 actor_id: int | None) -> None:
    """``user_id`` was added to the project or group (``what``) ``name`` at ``level``;
    ``path`` is its page under the base URL."""
    settings = settings_of(db)
    if not mail_enabled(settings) or user_id == actor_id:
        return
    actor = db.get(User, actor_id) if actor_id is not None else None
    enqueue(db, settings, db.get(User, user_id), MEMBER_ADDED, what=what, name=name,
            level=level, url=f"{_base(settings)}{path}",
            actor=actor.label if actor is not None else "An administrator")


def export_ready(db: Session, settings: Mapping[str, Any], export: Any) -> None:
    """The data export is ready: its requester is told where to download it, until when."""
    if not mail_enabled(settings) or export.requester_id is None:
        return
    from seqcore.models.project import Project

    project = db.get(Project, export.project_id)
    enqueue(db, settings, db.get(User, export.requester_id), EXPORT_READY,
            name=export.name or f"export {export.id}",
            project=project.name if project is not None else export.project_id,
            entries=len(export.manifest or []), size=export.size or 0,
            expires=_when(export.expires_at),
            url=f"{_base(settings)}/api/exports/{export.id}/download")


def analysis_finished(db: Session, settings: Mapping[str, Any], submission: Any) -> None:
    """A submission whose submitter asked for e-mail (``email_notification``) ended."""
    if (not mail_enabled(settings) or not submission.email_notification
            or submission.submitter_id is None):
        return
    completed = submission.state == "COMPLETED"
    enqueue(db, settings, db.get(User, submission.submitter_id), ANALYSIS_FINISHED,
            what="Analysis", name=submission.name, analysis_type=submission.analysis_type,
            outcome="completed" if completed else "failed",
            error=None if completed else (submission.error or "")[:2000],
            url=f"{_base(settings)}/-/analyses/{submission.id}")


def warn_expiring_tokens(db: Session, settings: Mapping[str, Any]) -> int:
    """Tell each holder of a live personal access token that stops working within
    ``seqcore.notifications.token_expiry_days``, once per token; how many were told. A token
    stops at its expiry, or under an administrator's maximum lifetime
    (``seqcore.tokens.require_expiry``) that many days after its creation if sooner."""
    now = utcnow()
    horizon = now + timedelta(days=int(settings["seqcore.notifications.token_expiry_days"]))
    max_lifetime = LifetimeRules.of(settings).max_lifetime
    ending = [and_(PersonalAccessToken.expires_at.is_not(None),
                   PersonalAccessToken.expires_at > now,
                   PersonalAccessToken.expires_at <= horizon)]
    if max_lifetime is not None:
        ending.append(and_(PersonalAccessToken.created > now - max_lifetime,
                           PersonalAccessToken.created <= horizon - max_lifetime))
    candidates = db.scalars(select(PersonalAccessToken).where(
        PersonalAccessToken.revoked.is_(False), PersonalAccessToken.expiry_notified_at.is_(None),
        or_(*ending)).order_by(PersonalAccessToken.id))
    tokens = [token for token in candidates if token.active(now, max_lifetime)
              and (ends := token.ends_at(max_lifetime)) is not None and ends <= horizon]
    for token in tokens:
        token.expiry_notified_at = now
        enqueue(db, settings, db.get(User, token.user_id), TOKEN_EXPIRING, name=token.name,
                expires=_when(token.ends_at(max_lifetime)),
                url=f"{_base(settings)}/-/profile/personal_access_tokens")
    db.flush()
    return len(tokens)
