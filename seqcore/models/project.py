"""Projects and who belongs to them."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow
from seqcore.models.expiry import Expiring
from seqcore.models.puid import PROJECT, puid_default
from seqcore.models.user import User


class ProjectRole(enum.StrEnum):
    USER = "PROJECT_USER"
    OWNER = "PROJECT_OWNER"


class Project(Base):
    """A project lives in a namespace under a URL-safe ``path`` unique there: its creator's
    personal namespace (named after the username; ``group_id`` null) or a group's
    (``namespace`` is the group's full path, ``group_id`` the group). ``full_path`` is what
    GraphQL's ``project(fullPath:)`` looks up. A project moves between namespaces
    (:mod:`seqcore.projects.transfer`): ``namespace``, ``group_id`` and so ``full_path``
    change, its ``puid`` never does. ``archived_at`` set: the project is archived
    (:mod:`seqcore.projects.archive`), read-only and left out of default listings."""

    __tablename__ = "project"
    __table_args__ = (UniqueConstraint("namespace", "path", name="uq_project_namespace_path"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    puid: Mapped[str] = mapped_column(String(32), unique=True, default=puid_default(PROJECT))
    name: Mapped[str] = mapped_column(String(255))
    namespace: Mapped[str] = mapped_column(String(255))
    path: Mapped[str] = mapped_column(String(255))
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="RESTRICT"), index=True, default=None)
    description: Mapped[str | None] = mapped_column(Text)
    remote_url: Mapped[str | None] = mapped_column(String(1024))
    organism: Mapped[str | None] = mapped_column(String(255))
    genome_size: Mapped[int | None] = mapped_column(Integer)
    minimum_coverage: Mapped[int | None] = mapped_column(Integer)
    maximum_coverage: Mapped[int | None] = mapped_column(Integer)
    sync_frequency: Mapped[str | None] = mapped_column(String(32))
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)
    archived_at: Mapped[datetime | None] = mapped_column(default=None)

    members: Mapped[list[ProjectMember]] = relationship(
        back_populates="project", cascade="all, delete-orphan", passive_deletes=True
    )

    @property
    def full_path(self) -> str:
        return f"{self.namespace}/{self.path}"


class ProjectMember(Expiring, Base):
    __tablename__ = "project_member"
    __table_args__ = (UniqueConstraint("project_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(32), default=ProjectRole.USER.value)
    metadata_role: Mapped[str] = mapped_column(String(16), default="LEVEL_1")
    created: Mapped[datetime] = mapped_column(default=utcnow)

    project: Mapped[Project] = relationship(back_populates="members")
    user: Mapped[User] = relationship()
