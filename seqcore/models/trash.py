"""The trash: what a deletion took, kept for ``seqcore.retention.days`` before the worker
purges its stored bytes (:mod:`seqcore.governance.trash`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class TrashEntry(Base):
    """One deleted sample or sequencing object: ``snapshot`` holds its rows (to restore
    them), ``paths`` the stored files kept until ``expires``. No foreign keys: what it
    describes is gone. ``restored`` or ``purged`` ends it."""

    __tablename__ = "trash_entry"
    __table_args__ = (Index("ix_trash_entry_expires", "expires"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))  # "sample" or "sequencingObject"
    project_id: Mapped[int | None] = mapped_column(Integer, index=True)
    sample_id: Mapped[int | None] = mapped_column(Integer)
    object_id: Mapped[int | None] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(255))
    snapshot: Mapped[Any] = mapped_column(JSON)
    paths: Mapped[Any] = mapped_column(JSON, default=list)
    deleted_by: Mapped[int | None] = mapped_column(Integer, default=None)
    deleted: Mapped[datetime] = mapped_column(default=utcnow)
    expires: Mapped[datetime] = mapped_column()
    restored: Mapped[datetime | None] = mapped_column(default=None)
    purged: Mapped[datetime | None] = mapped_column(default=None)
