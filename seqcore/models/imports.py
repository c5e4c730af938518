"""Imports from another install (``seqcore import``): each run, and the map from the
remote install's objects to the local ones they became.

The map is what makes an import idempotent and resumable: an object is entered in it in the
same transaction that creates its local copy, so after a crash (or a second run) every
object found in the map is skipped and everything else is copied, and nothing is copied
twice. The remote install is named by its base URL and its kind (``irida`` for IRIDA's REST
dialect, ``irida-next`` for IRIDA Next's GraphQL one); ``object_type`` says which table
``local_id`` is a row of (``project``, ``sample``, ``sequencing_object``, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class ImportRun(Base):
    """One run of ``seqcore import``: where from, as whom, how it ended, what it copied."""

    __tablename__ = "import_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    remote: Mapped[str] = mapped_column(String(1024))
    remote_kind: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), default=None)
    #: ``running`` until it ends ``finished`` or ``failed`` (a run killed stays ``running``).
    state: Mapped[str] = mapped_column(String(16), default="running")
    error: Mapped[str | None] = mapped_column(Text, default=None)
    #: What it copied, by object type, and the bytes downloaded.
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    started: Mapped[datetime] = mapped_column(default=utcnow)
    finished: Mapped[datetime | None] = mapped_column(default=None)


class ImportedObject(Base):
    """A remote object and the local row it became (no foreign key on ``local_id``: it is a
    row of the table ``object_type`` names; an entry whose row was deleted since is copied
    again by the next run)."""

    __tablename__ = "import_map"
    __table_args__ = (UniqueConstraint("remote", "remote_kind", "object_type", "remote_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    remote: Mapped[str] = mapped_column(String(1024))
    remote_kind: Mapped[str] = mapped_column(String(32))
    object_type: Mapped[str] = mapped_column(String(64))
    remote_id: Mapped[str] = mapped_column(String(255))
    local_id: Mapped[int] = mapped_column()
    import_id: Mapped[int | None] = mapped_column(
        ForeignKey("import_run.id", ondelete="SET NULL"), default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
