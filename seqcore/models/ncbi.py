"""Submissions of a project's reads to NCBI (SRA runs, with new or existing BioSamples).

A submission (:class:`NcbiSubmission`) holds the samples sent (:class:`NcbiSubmissionSample`,
each with the BioSample attributes resolved when it was made), the sequencing objects sent for
each sample (:class:`NcbiSubmissionRun`, one SRA action each) and the worker's record of what
has been fully uploaded to NCBI's FTP account (:class:`NcbiUploadFile`), so an interrupted
upload resumes instead of sending a file twice.
"""

from __future__ import annotations

import enum
from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Date, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.observability import requestid, tracing


class ExportUploadState(enum.StrEnum):
    """IRIDA's states of an NCBI export (``ExportUploadState``), by name.

    seqcore's own steps are ``NEW`` → ``UPLOADING`` → ``UPLOADED`` (``submit.ready`` placed)
    or ``UPLOAD_ERROR``; the others are what NCBI's ``report.xml`` says (its lower-case
    values, ``processed-ok`` → ``PROCESSED_OK``). The same states describe each sample.
    """

    NEW = "NEW"
    UPLOADING = "UPLOADING"
    UPLOADED = "UPLOADED"
    UPLOAD_ERROR = "UPLOAD_ERROR"
    CREATED = "CREATED"
    FAILED = "FAILED"
    QUEUED = "QUEUED"
    PROCESSING = "PROCESSING"
    PROCESSED_OK = "PROCESSED_OK"
    PROCESSED_ERROR = "PROCESSED_ERROR"
    WAITING = "WAITING"
    SUBMITTED = "SUBMITTED"
    DELETED = "DELETED"
    RETRIED = "RETRIED"
    UNKNOWN = "UNKNOWN"

    @classmethod
    def from_report(cls, value: str | None) -> ExportUploadState:
        """A ``status`` of NCBI's report (``processed-ok``); an unknown one is ``UNKNOWN``."""
        name = (value or "").strip().upper().replace("-", "_")
        return cls.__members__.get(name, cls.UNKNOWN)


class NcbiSubmission(Base):
    """One submission to NCBI of samples of one project."""

    __tablename__ = "ncbi_submission"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    submitter_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    bio_project: Mapped[str] = mapped_column(String(64))
    organization: Mapped[str] = mapped_column(String(255))
    namespace: Mapped[str] = mapped_column(String(255))
    release_date: Mapped[date | None] = mapped_column(Date)
    package: Mapped[str | None] = mapped_column(String(255))
    # Who NCBI writes to (the submitter when the submission was made): email, first, last.
    contact: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # BioSample attribute -> the metadata field it was read from.
    attribute_fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    state: Mapped[str] = mapped_column(String(32), default=ExportUploadState.NEW.value,
                                       index=True)
    # NCBI's id of the submission (SUB...), from its first report.
    ncbi_id: Mapped[str | None] = mapped_column(String(64))
    # The submission's directory on the FTP account, chosen when its upload starts.
    directory: Mapped[str | None] = mapped_column(String(1024))
    error: Mapped[str | None] = mapped_column(Text)
    worker: Mapped[str | None] = mapped_column(String(255))
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    attempts: Mapped[int] = mapped_column(default=0)
    polled: Mapped[datetime | None] = mapped_column(default=None)
    # [[state, epoch ms], ...]: every state the submission entered, in order.
    history: Mapped[list[Any]] = mapped_column(JSON, default=list)
    request_id: Mapped[str | None] = mapped_column(String(64), default=requestid.current)
    # Its trace (W3C traceparent), continued by the worker that uploads it.
    trace_context: Mapped[str | None] = mapped_column(String(64), default=tracing.traceparent)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    samples: Mapped[list[NcbiSubmissionSample]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True,
        order_by="NcbiSubmissionSample.position")


class NcbiSubmissionSample(Base):
    """A sample of a submission: its BioSample (``spuid`` when seqcore creates it, or the
    existing ``bio_sample`` accession), the attributes sent, the library, and what NCBI
    answered."""

    __tablename__ = "ncbi_submission_sample"
    __table_args__ = (UniqueConstraint("submission_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("ncbi_submission.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column()
    sample_id: Mapped[int | None] = mapped_column(
        ForeignKey("sample.id", ondelete="SET NULL"), index=True)
    sample_name: Mapped[str] = mapped_column(String(255))
    spuid: Mapped[str] = mapped_column(String(255))
    bio_sample: Mapped[str | None] = mapped_column(String(64))
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    library_name: Mapped[str] = mapped_column(String(255))
    library_strategy: Mapped[str] = mapped_column(String(64))
    library_source: Mapped[str] = mapped_column(String(64))
    library_selection: Mapped[str] = mapped_column(String(64))
    library_construction_protocol: Mapped[str | None] = mapped_column(Text)
    instrument_model: Mapped[str] = mapped_column(String(255))
    # Accessions go back into the sample's metadata only where the submitter could write it.
    write_back: Mapped[bool] = mapped_column(default=True)
    status: Mapped[str] = mapped_column(String(32), default=ExportUploadState.NEW.value)
    accession: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)

    runs: Mapped[list[NcbiSubmissionRun]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="NcbiSubmissionRun.id",
        lazy="selectin")


class NcbiSubmissionRun(Base):
    """One sequencing object of a sample, sent as one SRA run (``AddFiles``)."""

    __tablename__ = "ncbi_submission_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    sample_row_id: Mapped[int] = mapped_column(
        ForeignKey("ncbi_submission_sample.id", ondelete="CASCADE"), index=True)
    object_id: Mapped[int | None] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="SET NULL"), index=True)
    spuid: Mapped[str] = mapped_column(String(255))
    layout: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(32), default=ExportUploadState.NEW.value)
    accession: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)


class NcbiUploadFile(Base):
    """A file the worker sends to the submission's FTP directory, and whether it arrived
    whole (``uploaded``: the server reported the full size after the transfer)."""

    __tablename__ = "ncbi_upload_file"
    __table_args__ = (UniqueConstraint("submission_id", "remote_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("ncbi_submission.id", ondelete="CASCADE"), index=True)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("ncbi_submission_run.id", ondelete="CASCADE"), index=True)
    file_id: Mapped[int | None] = mapped_column(
        ForeignKey("sequence_file.id", ondelete="SET NULL"), index=True)
    remote_name: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(BigInteger)
    uploaded: Mapped[datetime | None] = mapped_column(default=None)
