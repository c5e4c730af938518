"""Accounts and their system roles."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class SystemRole(enum.StrEnum):
    """System-wide roles. ADMIN > MANAGER > USER and ADMIN > TECHNICIAN > USER; SEQUENCER
    (the uploader's account) stands outside that ladder and is granted by name."""

    ADMIN = "ROLE_ADMIN"
    USER = "ROLE_USER"
    MANAGER = "ROLE_MANAGER"
    SEQUENCER = "ROLE_SEQUENCER"
    TECHNICIAN = "ROLE_TECHNICIAN"

    @property
    def implied(self) -> frozenset[SystemRole]:
        """This role and every role it includes."""
        ladder = {
            SystemRole.ADMIN: {SystemRole.ADMIN, SystemRole.MANAGER, SystemRole.TECHNICIAN,
                               SystemRole.USER},
            SystemRole.MANAGER: {SystemRole.MANAGER, SystemRole.USER},
            SystemRole.TECHNICIAN: {SystemRole.TECHNICIAN, SystemRole.USER},
            SystemRole.USER: {SystemRole.USER},
            SystemRole.SEQUENCER: {SystemRole.SEQUENCER},
        }
        return frozenset(ladder[self])


class User(Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(255), unique=True)
    email: Mapped[str] = mapped_column(String(255), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    first_name: Mapped[str] = mapped_column(String(255))
    last_name: Mapped[str] = mapped_column(String(255))
    phone_number: Mapped[str | None] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(default=True)
    system_role: Mapped[str] = mapped_column(String(32), default=SystemRole.USER.value)
    user_type: Mapped[str] = mapped_column(String(32), default="TYPE_LOCAL")
    locale: Mapped[str] = mapped_column(String(16), default="en")
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)

    @property
    def role(self) -> SystemRole:
        return SystemRole(self.system_role)

    @property
    def label(self) -> str:
        return f"{self.first_name} {self.last_name}"
