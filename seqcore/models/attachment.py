"""Attachments (IRIDA Next's files on a sample, a project or a workflow execution) and the
direct uploads that bring their bytes.

A :class:`DirectUpload` is IRIDA Next's blob: announced with its name, size and MD5
(``createDirectUpload``), filled by one ``PUT`` of exactly those bytes, then attached. Its
bytes become a :class:`~seqcore.models.sequencing.SequenceFile` when the ``PUT`` arrives, so
an attachment, and the sequencing object an attached FASTQ becomes, share the stored file.

An :class:`Attachment` has one owner: exactly one of its owner columns is set
(``sample_id``, ``project_id``, ``submission_id``; a group column joins them when groups
exist). Each owner column cascades, so an attachment goes with its owner.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.puid import ATTACHMENT, puid_default
from seqcore.models.sequencing import SequenceFile

# The owner columns; exactly one is set on every attachment.
OWNER_COLUMNS = ("sample_id", "project_id", "submission_id")


class DirectUpload(Base):
    """A blob announced by ``createDirectUpload``: what the ``PUT`` must bring, and once it
    has, the stored file. ``key`` is the capability that names it in the upload URL and the
    ``signedBlobId``; only its creator may attach it."""

    __tablename__ = "direct_upload"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"),
                                         index=True)
    filename: Mapped[str] = mapped_column(String(1024))
    content_type: Mapped[str] = mapped_column(String(255))
    byte_size: Mapped[int] = mapped_column(BigInteger)
    checksum: Mapped[str] = mapped_column(String(64))  # base64 MD5, as the client sent it
    file_id: Mapped[int | None] = mapped_column(
        ForeignKey("sequence_file.id", ondelete="SET NULL"))
    created: Mapped[datetime] = mapped_column(default=utcnow)
    uploaded: Mapped[datetime | None] = mapped_column(default=None)

    file: Mapped[SequenceFile | None] = relationship(lazy="joined")


class Attachment(Base):
    """A file attached to one owner, with IRIDA Next's metadata (``format``,
    ``compression``, and for a pair ``type``, ``direction``, ``associated_attachment_id``)."""

    __tablename__ = "attachment"
    __table_args__ = (
        CheckConstraint(
            " + ".join(f"(CASE WHEN {c} IS NULL THEN 0 ELSE 1 END)" for c in OWNER_COLUMNS)
            + " = 1", name="one_owner"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    puid: Mapped[str] = mapped_column(String(32), unique=True,
                                      default=puid_default(ATTACHMENT))
    sample_id: Mapped[int | None] = mapped_column(
        ForeignKey("sample.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"), index=True)
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("analysis_submission.id", ondelete="CASCADE"), index=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"),
                                         index=True)
    # The sequencing object an attached FASTQ became (QC and analyses see that).
    object_id: Mapped[int | None] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="SET NULL"), index=True)
    # Capability for the download URL (attachmentUrl), as Active Storage's signed URLs.
    download_key: Mapped[str] = mapped_column(String(64))
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    file: Mapped[SequenceFile] = relationship(lazy="joined")
