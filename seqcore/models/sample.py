"""Samples (one per isolate), their place in projects, and their metadata."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.puid import SAMPLE, puid_default


class Sample(Base):
    __tablename__ = "sample"

    id: Mapped[int] = mapped_column(primary_key=True)
    puid: Mapped[str] = mapped_column(String(32), unique=True, default=puid_default(SAMPLE))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    organism: Mapped[str | None] = mapped_column(String(255))
    isolate: Mapped[str | None] = mapped_column(String(255))
    strain: Mapped[str | None] = mapped_column(String(255))
    collected_by: Mapped[str | None] = mapped_column(String(255))
    collection_date: Mapped[date | None] = mapped_column(Date)
    geographic_location_name: Mapped[str | None] = mapped_column(String(255))
    isolation_source: Mapped[str | None] = mapped_column(Text)
    latitude: Mapped[str | None] = mapped_column(String(32))
    longitude: Mapped[str | None] = mapped_column(String(32))
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    projects: Mapped[list[ProjectSample]] = relationship(
        back_populates="sample", cascade="all, delete-orphan", passive_deletes=True)
    metadata_entries: Mapped[list[MetadataEntry]] = relationship(
        back_populates="sample", cascade="all, delete-orphan", passive_deletes=True)


class ProjectSample(Base):
    """A sample's membership in a project.

    ``sample_name`` repeats the sample's name so that the database itself keeps names unique
    within a project, even under concurrent writes. ``owner`` says whether this project may
    change the sample (a sample shared without ownership is read-only there).
    """

    __tablename__ = "project_sample"
    __table_args__ = (
        UniqueConstraint("project_id", "sample_id"),
        UniqueConstraint("project_id", "sample_name", name="uq_project_sample_name"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    sample_id: Mapped[int] = mapped_column(ForeignKey("sample.id", ondelete="CASCADE"),
                                           index=True)
    sample_name: Mapped[str] = mapped_column(String(255))
    owner: Mapped[bool] = mapped_column(default=True)
    created: Mapped[datetime] = mapped_column(default=utcnow)

    sample: Mapped[Sample] = relationship(back_populates="projects")


class MetadataEntry(Base):
    """One metadata value of one sample; ``submission_id`` records the analysis that wrote
    it and ``ncbi_submission_id`` the NCBI submission whose accession it is (provenance);
    both ``None`` when a person or client did, whose account is ``writer_id``."""

    __tablename__ = "metadata_entry"
    __table_args__ = (
        UniqueConstraint("sample_id", "field"),
        Index("ix_metadata_entry_field", "field"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("sample.id", ondelete="CASCADE"))
    field: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)
    type: Mapped[str] = mapped_column(String(64), default="text")
    submission_id: Mapped[int | None] = mapped_column(default=None)
    ncbi_submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("ncbi_submission.id", ondelete="SET NULL"), default=None)
    #: The import (``seqcore import``) that copied the value from another install.
    import_id: Mapped[int | None] = mapped_column(
        ForeignKey("import_run.id", ondelete="SET NULL"), default=None)
    #: The account that wrote the value (no foreign key: the provenance outlives accounts).
    writer_id: Mapped[int | None] = mapped_column(default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    sample: Mapped[Sample] = relationship(back_populates="metadata_entries")
