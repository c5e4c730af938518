"""The plugin's tables: a project's reference files, and the reference each submission was
launched with (resolved to a stored path while the launching request could check it)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.plugin import Base, SequenceFile, utcnow


class ReferenceFile(Base):
    """A reference genome (FASTA) uploaded to a project; members read it, owners write."""

    __tablename__ = "phylogenomics_reference_file"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"))
    length: Mapped[int] = mapped_column(default=0)
    created: Mapped[datetime] = mapped_column(default=utcnow)

    file: Mapped[SequenceFile] = relationship(lazy="joined")


class SubmissionReference(Base):
    """What ``reference`` resolved to when the submission was launched: the pipeline runs
    without a database, so the worker stages this stored file (``path``: its key; an
    absolute path in rows written before keys were kept) into the job's directory."""

    __tablename__ = "phylogenomics_submission_reference"

    # No foreign key: the branch builds on the core's sequencing tables (c0003) only; the
    # plugin's submissions_deleting hook removes the row with its submission.
    submission_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    reference: Mapped[str] = mapped_column(String(64))
    path: Mapped[str] = mapped_column(String(1024))
