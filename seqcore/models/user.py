"""Accounts and their system roles."""

from __future__ import annotations

import enum
import hashlib
import unicodedata
from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column, validates

from seqcore.db import Base, utcnow
from seqcore.models.puid import USER_NAMESPACE, puid_default


class SystemRole(enum.StrEnum):
    """System-wide roles. ADMIN > MANAGER > USER and ADMIN > TECHNICIAN > USER; SEQUENCER
    (the uploader's account) stands outside that ladder and is granted by name. BOT is the
    role of bot accounts (:class:`UserType`): it grants nothing system-wide (no project or
    group creation, no account listing), so a bot holds only what its namespace gives it."""

    ADMIN = "ROLE_ADMIN"
    USER = "ROLE_USER"
    MANAGER = "ROLE_MANAGER"
    SEQUENCER = "ROLE_SEQUENCER"
    TECHNICIAN = "ROLE_TECHNICIAN"
    BOT = "ROLE_BOT"

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
            SystemRole.BOT: {SystemRole.BOT},
        }
        return frozenset(ladder[self])


class UserType(enum.StrEnum):
    """IRIDA Next's kinds of account (``HasUserType``): people, and the bot accounts a
    project or group makes for programs (:mod:`seqcore.projects.bots`) or that a project's
    automated analyses are launched under (:mod:`seqcore.accounts.bots`)."""

    HUMAN = "human"
    PROJECT_BOT = "project_bot"
    GROUP_BOT = "group_bot"
    PROJECT_AUTOMATION_BOT = "project_automation_bot"

    @property
    def is_bot(self) -> bool:
        return self is not UserType.HUMAN


#: The kinds of bots a project or group makes and manages (the automation bot is made by
#: automation alone, and is neither listed nor given tokens).
MADE_BOT_TYPES = (UserType.PROJECT_BOT.value, UserType.GROUP_BOT.value)


def name_key(value: str) -> str:
    """The key under which a username or e-mail address must be unique: accounts differing
    only in letter case would let one person pass for another.

    Compatibility normalisation and Unicode case folding (so ``ß``/``SS``, ``ǅ``/``ǆ`` and
    full-width letters count as the same), then SHA-256, so the index has a fixed width
    however much folding lengthens a 255-character name. SQL's ``lower()`` is no substitute:
    it folds only ASCII on SQLite and follows the locale on PostgreSQL.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


class User(Base):
    """An account. ``username_key`` and ``email_key`` (:func:`name_key`) are set whenever the
    name or address is, and carry the case-insensitive unique indexes (migration c0007)."""

    __tablename__ = "user"
    __table_args__ = (
        Index("uq_user_username_key", "username_key", unique=True),
        Index("uq_user_email_key", "email_key", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(255), unique=True)
    email: Mapped[str] = mapped_column(String(255), unique=True)
    username_key: Mapped[str] = mapped_column(String(64))
    email_key: Mapped[str] = mapped_column(String(64))
    password_hash: Mapped[str] = mapped_column(String(255))
    first_name: Mapped[str] = mapped_column(String(255))
    last_name: Mapped[str] = mapped_column(String(255))
    phone_number: Mapped[str | None] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(default=True)
    system_role: Mapped[str] = mapped_column(String(32), default=SystemRole.USER.value)
    # IRIDA's userType (REST): TYPE_LOCAL for accounts with a password here.
    user_type: Mapped[str] = mapped_column(String(32), default="TYPE_LOCAL")
    # IRIDA Next's user_type (GraphQL ``User.userType``, :class:`UserType`): ``human`` or
    # one of the bot kinds. Bots never sign in with a password (seqcore.security.signin).
    account_type: Mapped[str] = mapped_column(String(32), default=UserType.HUMAN.value)
    locale: Mapped[str] = mapped_column(String(16), default="en")
    created: Mapped[datetime] = mapped_column(default=utcnow)
    modified: Mapped[datetime | None] = mapped_column(default=None)
    # The PUID of the account's personal namespace (``INXT_USR_...``), as IRIDA Next gives
    # every namespace one.
    namespace_puid: Mapped[str] = mapped_column(String(32), unique=True,
                                                default=puid_default(USER_NAMESPACE))

    @validates("username", "email")
    def _keep_name_key(self, attribute: str, value: str) -> str:
        setattr(self, f"{attribute}_key", name_key(value))
        return value

    @property
    def role(self) -> SystemRole:
        return SystemRole(self.system_role)

    @property
    def is_bot(self) -> bool:
        return self.account_type != UserType.HUMAN.value

    @property
    def label(self) -> str:
        return f"{self.first_name} {self.last_name}"
