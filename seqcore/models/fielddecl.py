"""A project's declared metadata fields and its metadata templates (as IRIDA's
``MetadataTemplateField``, ``MetadataRestriction`` and ``MetadataTemplate``).

A field name a project has not declared is free text readable by every member (the
behaviour before declarations existed); a declared one carries a type, an optional check and
a restriction level (``LEVEL_1`` to ``LEVEL_4``) compared with each member's metadata role.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow


class MetadataField(Base):
    """One declared field of one project."""

    __tablename__ = "metadata_field"
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_metadata_field_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    name: Mapped[str] = mapped_column(String(255))
    type: Mapped[str] = mapped_column(String(16), default="text")
    choices: Mapped[Any] = mapped_column(JSON, default=None, nullable=True)
    pattern: Mapped[str | None] = mapped_column(String(1024), default=None)
    restriction: Mapped[str] = mapped_column(String(16), default="LEVEL_1")
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)


class MetadataTemplate(Base):
    """An ordered list of a project's declared fields (a line list's columns)."""

    __tablename__ = "metadata_template"
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_metadata_template_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text, default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    entries: Mapped[list[MetadataTemplateField]] = relationship(
        order_by="MetadataTemplateField.position", cascade="all, delete-orphan",
        passive_deletes=True)


class MetadataTemplateField(Base):
    """A field's place in a template."""

    __tablename__ = "metadata_template_field"
    __table_args__ = (UniqueConstraint("template_id", "field_id",
                                       name="uq_metadata_template_field"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(
        ForeignKey("metadata_template.id", ondelete="CASCADE"), index=True)
    field_id: Mapped[int] = mapped_column(ForeignKey("metadata_field.id", ondelete="CASCADE"),
                                          index=True)
    position: Mapped[int] = mapped_column(Integer)

    field: Mapped[MetadataField] = relationship(lazy="joined")
