"""Attachments (IRIDA Next's files on a sample, a project, a workflow execution or a group) and the
direct uploads that bring their bytes.

A :class:`DirectUpload` is IRIDA Next's blob: announced with its name, size and MD5
(``createDirectUpload``), filled by one ``PUT`` of exactly those bytes, then attached. Its
bytes become a :class:`~seqcore.models.sequencing.SequenceFile` when the ``PUT`` arrives, so
an attachment, and the sequencing object an attached FASTQ becomes, share the stored file.

An :class:`Attachment` has one owner: exactly one of its owner columns is set
(``sample_id``, ``project_id``, ``submission_id``, ``group_id``). Each owner column
cascades, so an attachment goes with its owner.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.puid import ATTACHMENT, puid_default
from seqcore.models.sequencing import SequenceFile

# IRIDA Next's Attachment::FORMAT_REGEX, in its order (the first that matches wins).
FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern)) for name, pattern in (
        ("fasta", r"^\S+\.fn?a(sta)?(\.gz)?$"),
        ("fastq", r"^\S+\.f(ast)?q(\.gz)?$"),
        ("text", r"^\S+\.(txt|rtf)?(\.gz)?$"),
        ("csv", r"^\S+\.(csv)?(\.gz)?$"),
        ("tsv", r"^\S+\.(tsv)?(\.gz)?$"),
        ("spreadsheet", r"^\S+\.(xls|xlsx)?$"),
        ("json", r"^\S+\.(json)?(\.gz)?$"),
        ("genbank", r"^\S+\.(gbk|gbf|genbank)?(\.gz)?$"),
        ("image", r"^\S+\.(png|jpg|jpeg|gif|bmp|tiff|svg|webp)$"),
    ))
# The owner columns; exactly one is set on every attachment.
OWNER_COLUMNS = ("sample_id", "project_id", "submission_id", "group_id")


class DirectUpload(Base):
    """A blob announced by ``createDirectUpload``: what the ``PUT`` must bring, and once it
    has, the stored file. ``key`` is the capability that names it in the upload URL and the
    ``signedBlobId``; only its creator may attach it."""

    __tablename__ = "direct_upload"
    # A blob does not keep its file: once attached, the attachments do (seqcore.governance.purge).
    __table_args__ = {"info": {"seqcore.describes_stored_file": True}}

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
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), index=True)
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


def file_metadata(filename: str) -> dict[str, str]:
    """``format`` (``unknown`` when no pattern matches), ``compression`` and, for FASTA,
    ``type: assembly``: what IRIDA Next infers from a file name."""
    found = next((name for name, pattern in FORMATS if pattern.match(filename)), "unknown")
    metadata = {"format": found}
    if found == "fasta":
        metadata["type"] = "assembly"
    metadata["compression"] = "gzip" if re.match(r"^\S+(.gz)+$", filename) else "none"
    return metadata


def attach_files(db: Session, files: Iterable[SequenceFile], **owner: int) -> list[Attachment]:
    """Stored files (an analysis's outputs) as new attachments of one owner (``sample_id=``,
    ``submission_id=``...), their metadata inferred from their names."""
    made = [Attachment(**owner, file=stored, download_key=secrets.token_urlsafe(24),
                       properties=file_metadata(stored.file_name), created=utcnow())
            for stored in files]
    db.add_all(made)
    db.flush()
    return made
