"""Data exports: a bundle (zip) of a project's samples, files, line list and analysis
outputs, prepared by the worker for the account that asked (``docs/exports.md``).

The row records what was asked (``selection``, checked when the export was made), who asked
(``requester_id``: the field restrictions of the line list are the requester's), the
worker's progress, and, once ``READY``, where the bundle is in storage, its size, its
manifest and when it expires. An expired or deleted export's bytes are purged.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow
from seqcore.observability import requestid, tracing


class ExportState(enum.StrEnum):
    """``QUEUED`` → ``RUNNING`` → ``READY`` (downloadable until it expires) or ``ERROR``;
    ``EXPIRED`` once its bytes were purged. IRIDA Next's ``status`` is ``processing`` for
    the first two and ``ready`` for ``READY``."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    READY = "READY"
    ERROR = "ERROR"
    EXPIRED = "EXPIRED"


class DataExport(Base):
    """One export of one project, for the account that asked."""

    __tablename__ = "data_export"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    # Null once the account is deleted: the export stays (administrators read it) until it
    # expires.
    requester_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), index=True)
    name: Mapped[str | None] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(16), default=ExportState.QUEUED.value,
                                       index=True)
    # What was asked, as checked: samples, file kinds, analyses, outputs, line-list columns.
    selection: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The bundle in storage (relative path), once READY.
    path: Mapped[str | None] = mapped_column(Text)
    size: Mapped[int | None] = mapped_column(BigInteger)
    # [{"path", "size", "sha256"}, ...]: every entry of the bundle but the manifest itself.
    manifest: Mapped[list[Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    worker: Mapped[str | None] = mapped_column(String(255))
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    attempts: Mapped[int] = mapped_column(default=0)
    request_id: Mapped[str | None] = mapped_column(String(64), default=requestid.current)
    # Its trace (W3C traceparent), continued by the worker that prepares it.
    trace_context: Mapped[str | None] = mapped_column(String(64), default=tracing.traceparent)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)
    ready_at: Mapped[datetime | None] = mapped_column(default=None)
    expires_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
