"""Sequencing runs, stored files, the sequencing objects that group them, and QC records.

What every file kind shares lives here; a file-kind plugin adds its own table only for what
is particular to it (a pair's forward and reverse file, a FAST5 object's type).
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.observability import requestid, tracing


class UploadStatus(enum.StrEnum):
    UPLOADING = "UPLOADING"
    COMPLETE = "COMPLETE"
    ERROR = "ERROR"


class ProcessingState(enum.StrEnum):
    UNPROCESSED = "UNPROCESSED"
    QUEUED = "QUEUED"
    PROCESSING = "PROCESSING"
    FINISHED = "FINISHED"
    ERROR = "ERROR"


class SequencingRun(Base):
    __tablename__ = "sequencing_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    sequencer_type: Mapped[str] = mapped_column(String(255))
    layout_type: Mapped[str] = mapped_column(String(32))
    upload_status: Mapped[str] = mapped_column(String(32), default=UploadStatus.UPLOADING.value)
    description: Mapped[str | None] = mapped_column(Text)
    # Run-sheet metadata (projectName, workflow, readLengths, ...), always strings.
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)


class SequenceFile(Base):
    """One stored file. ``path`` is relative to the storage root; ``original_path`` keeps
    the compressed upload when the worker has decompressed it into a new revision."""

    __tablename__ = "sequence_file"

    id: Mapped[int] = mapped_column(primary_key=True)
    path: Mapped[str] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(String(1024))
    size: Mapped[int] = mapped_column(BigInteger)
    upload_sha256: Mapped[str | None] = mapped_column(String(64))
    original_path: Mapped[str | None] = mapped_column(Text)
    revision: Mapped[int] = mapped_column(default=1)
    # Unknown keys of the upload's `parameters` part, echoed back as strings.
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)


class SequencingObject(Base):
    """A unit of sequencing data of one kind (single-end file, pair, FAST5) in one sample.

    The worker moves ``processing_state`` from UNPROCESSED through QUEUED and PROCESSING to
    FINISHED or ERROR; ``lease_until`` lets another worker take over from one that died.
    """

    __tablename__ = "sequencing_object"

    id: Mapped[int] = mapped_column(primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("sample.id", ondelete="CASCADE"),
                                           index=True)
    kind: Mapped[str] = mapped_column(String(64))
    processing_state: Mapped[str] = mapped_column(
        String(32), default=ProcessingState.UNPROCESSED.value, index=True)
    file_processor: Mapped[str | None] = mapped_column(String(255))
    processing_error: Mapped[str | None] = mapped_column(Text)
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    attempts: Mapped[int] = mapped_column(default=0)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("sequencing_run.id", ondelete="SET NULL"), index=True)
    # The request that uploaded it: the worker logs with it (docs/operations.md, "Logs").
    request_id: Mapped[str | None] = mapped_column(String(64), default=requestid.current)
    # Its trace (W3C traceparent), continued by the worker that processes it.
    trace_context: Mapped[str | None] = mapped_column(String(64), default=tracing.traceparent)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    links: Mapped[list[SequencingObjectFile]] = relationship(
        order_by="SequencingObjectFile.position", cascade="all, delete-orphan",
        passive_deletes=True, lazy="selectin")

    @property
    def files(self) -> list[SequenceFile]:
        return [link.file for link in self.links]


class SequencingObjectFile(Base):
    __tablename__ = "sequencing_object_file"

    object_id: Mapped[int] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"),
                                         unique=True)

    file: Mapped[SequenceFile] = relationship(lazy="joined")


class QCRecord(Base):
    """The QC engine's report on one file (FastQC's numbers and plots' data)."""

    __tablename__ = "qc_record"

    id: Mapped[int] = mapped_column(primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"),
                                         unique=True)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    engine: Mapped[str] = mapped_column(String(255))
    created: Mapped[datetime] = mapped_column(default=utcnow)
