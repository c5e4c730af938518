"""Groups: nested namespaces that hold projects, their members, and shares with groups.

A group lives under a parent group (or at the top) and has a ``path`` unique among its
siblings; ``full_path`` (``parent/child/...``) is stored, because it is what a URL, GraphQL's
``group(fullPath:)`` and the ``namespace`` of the projects in the group name; a move
(:mod:`seqcore.projects.transfer`) rewrites it for the group, every group below it and
their projects, and re-links the closure below.

``group_hierarchy`` is the closure of the tree: a row for every (ancestor, descendant) pair,
the group itself included at depth 0. Inherited access ("a member of a group is a member of
every group below it") is then a plain join in SQL, the same on SQLite and PostgreSQL, and
the traversal ACL and the visibility condition (:mod:`seqcore.security.access`) read it alike.

Access levels are IRIDA Next's (``app/models/member.rb``): guest 10, uploader 20, analyst 30,
maintainer 40, owner 50.
"""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow
from seqcore.models.expiry import Expiring
from seqcore.models.puid import GROUP, puid_default


class AccessLevel(enum.IntEnum):
    """IRIDA Next's access levels, with its numbers."""

    NO_ACCESS = 0
    GUEST = 10
    UPLOADER = 20
    ANALYST = 30
    MAINTAINER = 40
    OWNER = 50

    @property
    def label(self) -> str:
        """The name IRIDA Next shows (``Guest``, ..., ``Owner``)."""
        return self.name.replace("_", " ").title()


#: What seqcore's project roles read as (DECISIONS.md: ``PROJECT_USER`` is analyst,
#: ``PROJECT_OWNER`` owner).
ROLE_LEVELS = {"PROJECT_USER": AccessLevel.ANALYST, "PROJECT_OWNER": AccessLevel.OWNER}
#: The lowest level that reads (every level does) and the lowest that writes.
READ_LEVEL = AccessLevel.GUEST
WRITE_LEVEL = AccessLevel.MAINTAINER
#: The level that uploads (creates samples, adds their files and metadata) without writing
#: the project: IRIDA Next's uploader rights, which the analyst above it does not have.
UPLOAD_LEVEL = AccessLevel.UPLOADER


class Group(Base):
    __tablename__ = "namespace_group"

    id: Mapped[int] = mapped_column(primary_key=True)
    puid: Mapped[str] = mapped_column(String(32), unique=True, default=puid_default(GROUP))
    name: Mapped[str] = mapped_column(String(255))
    path: Mapped[str] = mapped_column(String(255))
    full_path: Mapped[str] = mapped_column(String(255), unique=True)
    full_name: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(Text)
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), index=True)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)


class GroupHierarchy(Base):
    """``ancestor_id`` is ``descendant_id`` or above it, ``depth`` steps up."""

    __tablename__ = "group_hierarchy"

    ancestor_id: Mapped[int] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), primary_key=True)
    descendant_id: Mapped[int] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), primary_key=True, index=True)
    depth: Mapped[int] = mapped_column(Integer)


class GroupMember(Expiring, Base):
    __tablename__ = "group_member"
    __table_args__ = (UniqueConstraint("group_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("namespace_group.id", ondelete="CASCADE"),
                                          index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    access_level: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)


class GroupShare(Base):
    """A group (``shared_group_id``) or a project (``project_id``) shared with the group
    ``group_id``: that group's members get access up to ``access_level`` (IRIDA Next's
    ``NamespaceGroupLink``, ``group_access_level``)."""

    __tablename__ = "group_share"
    __table_args__ = (
        UniqueConstraint("group_id", "shared_group_id", name="uq_group_share_shared_group"),
        UniqueConstraint("group_id", "project_id", name="uq_group_share_project"),
        CheckConstraint("(shared_group_id IS NULL) <> (project_id IS NULL)",
                        name="one_target"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("namespace_group.id", ondelete="CASCADE"),
                                          index=True)
    shared_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"), index=True)
    access_level: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(default=utcnow)
