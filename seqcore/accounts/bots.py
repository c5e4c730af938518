"""The accounts behind bots: how a bot account is made, and a project's automation bot.

A bot account has no password (its hash is not one argon2 can verify, and sign-in refuses
bots outright: :mod:`seqcore.security.signin`), the system role ``ROLE_BOT`` (which grants
nothing by itself) and a name derived from its namespace's PUID, as IRIDA Next names them
(``INXT_PRJ_..._bot_001``). Which namespace made it is a
:class:`~seqcore.models.bot.NamespaceBot` row.

The automation bot (``project_automation_bot``) is what IRIDA Next records as the
submitter of a project's automated workflow executions. seqcore's worker launches them
under no account, so the bot is made on demand the first time automation launches for the
project (:func:`automation_bot`), holds no access and no token, and only names who
launched them.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.models.bot import NamespaceBot
from seqcore.models.group import AccessLevel
from seqcore.models.project import Project
from seqcore.models.user import SystemRole, User, UserType

#: A stored "password" no password matches: not an argon2 hash, so verification fails.
NO_PASSWORD = "!bot"
#: Bot addresses are not mailboxes: ``.invalid`` is reserved for names that never resolve.
EMAIL_DOMAIN = "bots.seqcore.invalid"


def bots_made(db: Session, *, project_id: int | None = None,
              group_id: int | None = None) -> int:
    """How many bots the namespace ever made, deleted ones included (names never repeat)."""
    column = NamespaceBot.project_id if project_id is not None else NamespaceBot.group_id
    return db.scalar(select(func.count()).select_from(NamespaceBot).where(
        column == (project_id if project_id is not None else group_id))) or 0


def new_bot(db: Session, kind: UserType, puid: str, level: int, *,
            project_id: int | None = None, group_id: int | None = None,
            created_by_id: int | None = None) -> NamespaceBot:
    """A bot account of ``kind`` for the namespace whose PUID is ``puid`` and its
    :class:`NamespaceBot` row (the caller holds the namespace's row lock, so the count
    that names it is not raced)."""
    number = bots_made(db, project_id=project_id, group_id=group_id) + 1
    text = "automation_bot" if kind is UserType.PROJECT_AUTOMATION_BOT else f"bot_{number:03d}"
    username = f"{puid}_{text}".lower()
    user = User(username=username, email=f"{username}@{EMAIL_DOMAIN}", password_hash=NO_PASSWORD,
                first_name=puid, last_name=("Automation Bot"
                                            if kind is UserType.PROJECT_AUTOMATION_BOT
                                            else f"Bot {number:03d}"),
                system_role=SystemRole.BOT.value, account_type=kind.value, created=utcnow())
    db.add(user)
    db.flush()
    bot = NamespaceBot(user_id=user.id, project_id=project_id, group_id=group_id,
                       access_level=level, created_by_id=created_by_id, created=utcnow())
    db.add(bot)
    db.flush()
    return bot


def automation_bot_id(db: Session, project_id: int) -> int:
    """The id of the project's automation bot, made now if the project has none yet.

    It holds no access (``NO_ACCESS``): nothing is done with its identity but record who
    launched an automated analysis. The project's row is locked before looking, so two
    uploads processed at once make one bot."""
    query = (select(NamespaceBot.user_id).join(User, User.id == NamespaceBot.user_id)
             .where(NamespaceBot.project_id == project_id,
                    User.account_type == UserType.PROJECT_AUTOMATION_BOT.value))
    found = db.scalar(query)
    if found is not None:
        return found
    lock_row(db, Project, project_id)
    found = db.scalar(query)
    if found is not None:
        return found
    puid = db.scalar(select(Project.puid).where(Project.id == project_id))
    return new_bot(db, UserType.PROJECT_AUTOMATION_BOT, str(puid), AccessLevel.NO_ACCESS.value,
                   project_id=project_id).user_id
