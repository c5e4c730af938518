"""Bot accounts of projects and groups (IRIDA Next's ``NamespaceBot``).

A bot is an account (:class:`seqcore.models.user.User` with a bot
:class:`~seqcore.models.user.UserType`) that belongs to one project or one group and
authenticates only with its personal access tokens. The row records which namespace made it
and, for a project bot, the access level it holds on the project: seqcore's direct project
memberships are IRIDA's two roles, which cannot say ``UPLOADER`` or ``MAINTAINER``, so a
project bot's access is read from here (:func:`seqcore.security.inheritance.project_bots`).
A group bot's access is an ordinary group membership at its level, which reaches the groups
and projects below as any member's does.

A deleted bot keeps its row with ``deleted_at`` set (its account disabled, its tokens
revoked), so the names of later bots (``bot_002``...) never repeat one that was handed out,
as IRIDA Next counts deleted bots too.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class NamespaceBot(Base):
    __tablename__ = "namespace_bot"
    __table_args__ = (
        CheckConstraint("(project_id IS NULL) <> (group_id IS NULL)", name="one_namespace"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"),
                                         unique=True)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"), index=True, default=None)
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("namespace_group.id", ondelete="CASCADE"), index=True, default=None)
    # IRIDA Next's access level (seqcore.models.group.AccessLevel); for a project bot the
    # access it holds, for a group bot the level of its membership when it was made.
    access_level: Mapped[int] = mapped_column(Integer)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
