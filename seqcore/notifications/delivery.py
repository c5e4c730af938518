"""Sending the outbox: the worker's round (:class:`MailWorker`).

Each round sends the messages due, oldest first, over one SMTP connection (stdlib
``smtplib``, with the configured timeout). A message the server refuses, or every message
of a round the server could not be reached for, is tried again later (one minute, then
doubling), up to ``seqcore.mail.max_attempts`` times; its last error is kept on the row for
``seqcore check`` and the operator. Sent messages are kept for a week, then deleted.
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
import time
from collections.abc import Mapping
from datetime import timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

import transaction
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.session import session_for
from seqcore.models.notification import OutgoingMail
from seqcore.observability import tracing

log = logging.getLogger(__name__)

BATCH = 50
KEEP_SENT = timedelta(days=7)


def message(mail: OutgoingMail, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.recipient
    msg["Subject"] = mail.subject
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "localhost")
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to us
    msg.set_content(mail.body)
    return msg


def connect(settings: Mapping[str, Any]) -> smtplib.SMTP:
    server = smtplib.SMTP(str(settings["seqcore.mail.host"]), int(settings["seqcore.mail.port"]),
                          timeout=float(settings["seqcore.mail.timeout"]))
    if settings["seqcore.mail.starttls"]:
        server.starttls()
    if settings["seqcore.mail.username"]:
        server.login(str(settings["seqcore.mail.username"]),
                     str(settings["seqcore.mail.password"]))
    return server


def _retry(mail: OutgoingMail, error: str, max_attempts: int) -> None:
    mail.attempts += 1
    mail.last_error = error[:2000]
    if mail.attempts >= max_attempts:
        log.error("notification %s to %s given up after %d attempts: %s", mail.id,
                  mail.recipient, mail.attempts, error)
        mail.next_attempt = utcnow() + timedelta(days=3650)
    else:
        mail.next_attempt = utcnow() + timedelta(minutes=2 ** (mail.attempts - 1))


def deliver(db: Session, settings: Mapping[str, Any]) -> int:
    """Send the messages due now; how many were sent."""
    if not settings.get("seqcore.mail.host"):
        return 0
    now = utcnow()
    db.execute(delete(OutgoingMail).where(OutgoingMail.sent_at < now - KEEP_SENT))
    due = list(db.scalars(select(OutgoingMail).where(
        OutgoingMail.sent_at.is_(None), OutgoingMail.next_attempt <= now)
        .order_by(OutgoingMail.id).limit(BATCH)))
    if not due:
        return 0
    with tracing.span("mail.deliver", {"seqcore.mail.messages": len(due)}, kind="client"):
        return _send(due, settings)


def _send(due: list[OutgoingMail], settings: Mapping[str, Any]) -> int:
    max_attempts = int(settings["seqcore.mail.max_attempts"])
    try:
        server = connect(settings)
    except (OSError, smtplib.SMTPException) as err:
        log.warning("notifications: the mail server cannot be reached: %s", err)
        for mail in due:
            _retry(mail, f"{type(err).__name__}: {err}", max_attempts)
        return 0
    sent = 0
    sender = str(settings["seqcore.mail.sender"])
    try:
        for mail in due:
            try:
                server.send_message(message(mail, sender))
            except (OSError, smtplib.SMTPException) as err:
                _retry(mail, f"{type(err).__name__}: {err}", max_attempts)
                if isinstance(err, (OSError, smtplib.SMTPServerDisconnected)):
                    break  # the connection is gone: the rest wait for the next round
                continue
            mail.sent_at = utcnow()
            sent += 1
    finally:
        with contextlib.suppress(OSError, smtplib.SMTPException):
            server.quit()
    return sent


class MailWorker:
    """The worker's round of notifications: warn of expiring tokens (at most once a
    minute) and send the outbox."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self._next_sweep = 0.0

    def run_once(self) -> int:
        settings = self.registry.settings
        if not settings.get("seqcore.mail.host"):
            return 0
        from seqcore.notifications.events import warn_expiring_tokens
        from seqcore.services import ISessionFactory, registry_service

        factory = registry_service(self.registry, ISessionFactory)
        if time.monotonic() >= self._next_sweep:
            self._next_sweep = time.monotonic() + 60
            manager = transaction.TransactionManager(explicit=True)
            with manager:
                warn_expiring_tokens(session_for(factory, manager), settings)
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            return deliver(session_for(factory, manager), settings)
