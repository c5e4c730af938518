"""Analysis submissions, their inputs, the projects they are shared with, and outputs."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.sequencing import SequenceFile
from seqcore.observability import requestid, tracing


class AnalysisState(enum.StrEnum):
    NEW = "NEW"
    DOWNLOADING = "DOWNLOADING"  # kept for IRIDA compatibility; never entered
    FINISHED_DOWNLOADING = "FINISHED_DOWNLOADING"  # likewise
    PREPARING = "PREPARING"
    PREPARED = "PREPARED"
    SUBMITTING = "SUBMITTING"
    RUNNING = "RUNNING"
    FINISHED_RUNNING = "FINISHED_RUNNING"
    COMPLETING = "COMPLETING"
    TRANSFERRED = "TRANSFERRED"
    POST_PROCESSING = "POST_PROCESSING"
    COMPLETED = "COMPLETED"
    ERROR = "ERROR"


class CleanedState(enum.StrEnum):
    NOT_CLEANED = "NOT_CLEANED"
    CLEANING = "CLEANING"
    CLEANED = "CLEANED"
    CLEANING_ERROR = "CLEANING_ERROR"


class Priority(enum.StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


PRIORITY_ORDER = {Priority.HIGH.value: 0, Priority.MEDIUM.value: 1, Priority.LOW.value: 2}


class AnalysisSubmission(Base):
    __tablename__ = "analysis_submission"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    analysis_type: Mapped[str] = mapped_column(String(64), index=True)
    workflow_id: Mapped[str] = mapped_column(String(255))
    submitter_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), index=True)
    state: Mapped[str] = mapped_column(String(32), default=AnalysisState.NEW.value, index=True)
    cleaned_state: Mapped[str] = mapped_column(String(32),
                                               default=CleanedState.NOT_CLEANED.value)
    priority: Mapped[str] = mapped_column(String(8), default=Priority.MEDIUM.value)
    # 0 HIGH, 1 MEDIUM, 2 LOW: the queue sorts on this.
    priority_rank: Mapped[int] = mapped_column(default=1)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    update_samples: Mapped[bool] = mapped_column(default=False)
    automated: Mapped[bool] = mapped_column(default=False)
    # The submitter asked for an e-mail when it ends (IRIDA Next's emailNotification).
    email_notification: Mapped[bool] = mapped_column(default=False)
    description: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    executor: Mapped[str | None] = mapped_column(String(64))
    remote_workflow_id: Mapped[str | None] = mapped_column(String(255))
    remote_input_data_id: Mapped[str | None] = mapped_column(String(1024))
    work_dir: Mapped[str | None] = mapped_column(Text)
    worker: Mapped[str | None] = mapped_column(String(255))
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    # The worker whose work directory holds the job (seqcore.worker.name, set when it is
    # prepared): only it follows the job; and when it last said it was alive. Null: any.
    owner: Mapped[str | None] = mapped_column(String(255), default=None)
    owner_seen: Mapped[datetime | None] = mapped_column(default=None)
    attempts: Mapped[int] = mapped_column(default=0)
    # [[state, epoch ms], ...]: every state the submission entered, in order.
    history: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # The request that launched it: the worker and the job log with it.
    request_id: Mapped[str | None] = mapped_column(String(64), default=requestid.current)
    # Its trace (W3C traceparent), continued by the workers and its job.
    trace_context: Mapped[str | None] = mapped_column(String(64), default=tracing.traceparent)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)
    # The group namespace it was launched in (IRIDA Next's group workflow executions); null
    # for a launch in a project's namespace.
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="SET NULL"), index=True, default=None)

    inputs: Mapped[list[SubmissionInput]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="SubmissionInput.id")
    projects: Mapped[list[SubmissionProject]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True)
    outputs: Mapped[list[AnalysisOutput]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="AnalysisOutput.id")


class SubmissionInput(Base):
    """A submission's record of what it ran on. The database refuses to delete an object
    that is an input (``RESTRICT``), so a delete racing a launch cannot erase the record
    that the application's own check (``seqcore.analysis.dependents``) protects."""

    __tablename__ = "analysis_submission_input"
    __table_args__ = (UniqueConstraint("submission_id", "object_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("analysis_submission.id", ondelete="CASCADE"), index=True)
    object_id: Mapped[int] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="RESTRICT"), index=True)


class SubmissionProject(Base):
    __tablename__ = "analysis_submission_project"
    __table_args__ = (UniqueConstraint("submission_id", "project_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("analysis_submission.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)


class AnalysisOutput(Base):
    __tablename__ = "analysis_output"
    __table_args__ = (UniqueConstraint("submission_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("analysis_submission.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(255))
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"))
    created: Mapped[datetime] = mapped_column(default=utcnow)

    file: Mapped[SequenceFile] = relationship(lazy="joined")


class AutomatedAnalysis(Base):
    """An analysis type a project launches on every new upload to its samples."""

    __tablename__ = "automated_analysis"
    __table_args__ = (UniqueConstraint("project_id", "analysis_type"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    analysis_type: Mapped[str] = mapped_column(String(64))
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created: Mapped[datetime] = mapped_column(default=utcnow)
