"""E-mail notifications: the outbox the worker delivers from, and the kinds each account
turned off (:mod:`seqcore.notifications`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class OutgoingMail(Base):
    """A message written by the operation that caused it, in its transaction (so a change
    rolled back sends nothing), and sent later by the worker (so a slow or failing mail
    server never holds up or fails that operation)."""

    __tablename__ = "outgoing_mail"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    recipient: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    body: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    sent_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)


class NotificationOptOut(Base):
    """One kind of e-mail an account does not want."""

    __tablename__ = "notification_opt_out"
    __table_args__ = (UniqueConstraint("user_id", "kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(64))
