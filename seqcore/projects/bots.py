"""Project and group bot accounts, and their personal access tokens (IRIDA Next's
``Bots::CreateService``/``DestroyService`` and the bots' token actions), shared by REST and
the workbench.

A bot is made by a maintainer or owner of its project or group (the transport checks
``project:write`` or ``group:write`` on it first), at an access level no higher than the
maker's own by membership (as for adding a member, :class:`BeyondYourLevel`; ``actor_id``
``None`` is an administrator), and with its first token, shown once: a bot has no other
way in. A project bot's access is its :class:`~seqcore.models.bot.NamespaceBot` row's level
(:func:`seqcore.security.inheritance.project_bots`); a group bot is a direct member of its
group at its level.

Deleting a bot disables its account, revokes every token it holds and removes its
memberships, in the request's transaction: the next request with one of its tokens is
refused. Its row stays (``deleted_at``), so a later bot never takes its name.

The automation bot a project's automated analyses are recorded under
(:mod:`seqcore.accounts.bots`) is not one of these: it is neither listed nor given tokens.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from seqcore.accounts.bots import new_bot
from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Invalid, NotFound
from seqcore.governance.activity import operation
from seqcore.models.access_token import LifetimeRules, PersonalAccessToken, WebSession
from seqcore.models.bot import NamespaceBot
from seqcore.models.group import AccessLevel, Group, GroupMember
from seqcore.models.oauth import OAuthToken
from seqcore.models.project import Project, ProjectMember
from seqcore.models.user import MADE_BOT_TYPES, User, UserType
from seqcore.oauth.personal import NO_RULES, NewToken, create_token, token_problems
from seqcore.projects.groups import (
    BeyondYourLevel,
    membership_level,
    parse_level,
    project_membership_level,
)

#: A project or a group: the namespaces that make bots.
Namespace = Project | Group


class NoSuchBot(NotFound):
    def __init__(self) -> None:
        super().__init__("There is no such bot account.")


class NoSuchToken(NotFound):
    def __init__(self) -> None:
        super().__init__("The bot account has no such personal access token.")


def _column(namespace: Namespace) -> Any:
    return NamespaceBot.project_id if isinstance(namespace, Project) else NamespaceBot.group_id


def list_bots(db: Session, namespace: Namespace, bot_id: int | None = None
              ) -> list[tuple[NamespaceBot, User, int]]:
    """The namespace's bots that are not deleted (only ``bot_id``, when given), oldest
    first, each with its account and its access level now (a group bot's membership may have
    been changed since)."""
    query = (select(NamespaceBot, User, GroupMember.access_level)
             .join(User, User.id == NamespaceBot.user_id)
             .outerjoin(GroupMember, (GroupMember.user_id == NamespaceBot.user_id)
                        & (GroupMember.group_id == NamespaceBot.group_id))
             .where(_column(namespace) == namespace.id, NamespaceBot.deleted_at.is_(None),
                    User.account_type.in_(MADE_BOT_TYPES))
             .order_by(NamespaceBot.id))
    if bot_id is not None:
        query = query.where(NamespaceBot.id == bot_id)
    return [(bot, user, bot.access_level if isinstance(namespace, Project)
             else (level if level is not None else AccessLevel.NO_ACCESS.value))
            for bot, user, level in db.execute(query)]


def find_bot(db: Session, namespace: Namespace, bot_id: int) -> tuple[NamespaceBot, User, int]:
    """One of :func:`list_bots`, or :class:`NoSuchBot`."""
    found = list_bots(db, namespace, bot_id)
    if not found:
        raise NoSuchBot()
    return found[0]


def _held(db: Session, namespace: Namespace, actor_id: int | None) -> int | None:
    """The actor's own level by membership (``None``: an administrator, unbounded)."""
    if actor_id is None:
        return None
    if isinstance(namespace, Project):
        return project_membership_level(db, namespace, actor_id)
    return membership_level(db, namespace.id, actor_id)


def _token_problems(name: Any, scopes: Any, expires: Any, rules: LifetimeRules,
                    name_field: str = "name") -> dict[str, list[str]]:
    """Every problem with a token's name, scopes and expiry (``YYYY-MM-DD`` or ``None``),
    by wire field (the name's is ``name_field``), the types checked before the values."""
    problems: dict[str, list[str]] = {}
    if not isinstance(name, str):
        problems[name_field] = ["Give the token a name."]
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        problems["scopes"] = ["Scopes must be a list among: read_api, api."]
    if expires is not None and not isinstance(expires, str):
        problems["expiresAt"] = ["The expiry date must be a date (YYYY-MM-DD)."]
    if problems:
        return problems
    found = token_problems(name, scopes, expires or None, today=utcnow().date(), rules=rules)
    wire = {"name": name_field, "scopes": "scopes", "expires_at": "expiresAt"}
    return {wire[field]: [message] for field, message in found.items()}


@operation("bot.create")
def create_bot(db: Session, namespace: Namespace, level: Any, token_name: Any, scopes: Any,
               expires: Any = None, *, actor_id: int | None,
               rules: LifetimeRules = NO_RULES) -> tuple[NamespaceBot, NewToken]:
    """A new bot of ``namespace`` at ``level`` (a name or IRIDA Next's number) with its
    first token; :class:`Invalid` listing every problem with the input (nothing written),
    :class:`BeyondYourLevel` above the actor's own level."""
    problems = _token_problems(token_name, scopes, expires, rules, name_field="tokenName")
    parsed: AccessLevel | None = None
    try:
        parsed = parse_level(level)
    except Invalid as err:
        problems.update(err.problems)
    if problems:
        raise Invalid(problems)
    assert parsed is not None
    lock_row(db, type(namespace), namespace.id)
    held = _held(db, namespace, actor_id)
    if held is not None and parsed.value > held:
        raise BeyondYourLevel(f"make a bot account with access level {parsed.label}")
    if isinstance(namespace, Project):
        bot = new_bot(db, UserType.PROJECT_BOT, namespace.puid, parsed.value,
                      project_id=namespace.id, created_by_id=actor_id)
    else:
        bot = new_bot(db, UserType.GROUP_BOT, namespace.puid, parsed.value,
                      group_id=namespace.id, created_by_id=actor_id)
        db.add(GroupMember(group_id=namespace.id, user_id=bot.user_id,
                           access_level=parsed.value, created=utcnow()))
        db.flush()
    token = create_token(db, bot.user_id, token_name, scopes, expires or None)
    return bot, token


def _check_within(db: Session, namespace: Namespace, level: int, actor_id: int | None,
                  what: str) -> None:
    """:class:`BeyondYourLevel` when the bot's ``level`` is above the actor's own: whoever
    may not make such a bot may neither mint its tokens nor delete it."""
    held = _held(db, namespace, actor_id)
    if held is not None and level > held:
        raise BeyondYourLevel(f"{what} a bot account with access level "
                              f"{AccessLevel(level).label}")


@operation("bot.delete")
def delete_bot(db: Session, namespace: Namespace, bot_id: int, *,
               actor_id: int | None) -> None:
    """Delete the bot: its account disabled, its tokens and sessions ended, its
    memberships removed, at once (see the module); :class:`NoSuchBot` if the namespace has
    no such bot (any more)."""
    lock_row(db, type(namespace), namespace.id)
    bot, _, level = find_bot(db, namespace, bot_id)
    _check_within(db, namespace, level, actor_id, "delete")
    _end(db, bot)


def end_project_bots(db: Session, project_id: int) -> None:
    """End every bot of a project about to be deleted, the automation bot included: their
    rows go with the project, their accounts stay (disabled, tokens revoked), as a deleted
    bot's do."""
    for bot in db.scalars(select(NamespaceBot).where(NamespaceBot.project_id == project_id,
                                                     NamespaceBot.deleted_at.is_(None))).all():
        _end(db, bot)


def _end(db: Session, bot: NamespaceBot) -> None:
    """The bot's account disabled, its tokens and sessions ended, its memberships removed."""
    now = utcnow()
    bot.deleted_at = now
    db.execute(update(User).where(User.id == bot.user_id).values(enabled=False, modified=now)
               .execution_options(synchronize_session=False))
    db.execute(update(PersonalAccessToken)
               .where(PersonalAccessToken.user_id == bot.user_id,
                      PersonalAccessToken.revoked.is_(False))
               .values(revoked=True, revoked_at=now)
               .execution_options(synchronize_session=False))
    db.execute(update(OAuthToken).where(OAuthToken.user_id == bot.user_id)
               .values(revoked=True).execution_options(synchronize_session=False))
    for model in (WebSession, GroupMember, ProjectMember):
        db.execute(delete(model).where(model.user_id == bot.user_id)
                   .execution_options(synchronize_session=False))
    db.flush()


def bot_tokens(db: Session, bot: NamespaceBot) -> list[PersonalAccessToken]:
    """The bot's tokens, newest first, revoked ones included (they are listed as such)."""
    return list(db.scalars(select(PersonalAccessToken)
                           .where(PersonalAccessToken.user_id == bot.user_id)
                           .order_by(PersonalAccessToken.id.desc())))


@operation("botToken.create")
def create_bot_token(db: Session, namespace: Namespace, bot_id: int, name: Any, scopes: Any,
                     expires: Any = None, *, actor_id: int | None,
                     rules: LifetimeRules = NO_RULES) -> NewToken:
    """Another token for the bot (shown once); :class:`Invalid` for a bad name, scopes or
    expiry, nothing written."""
    problems = _token_problems(name, scopes, expires, rules)
    if problems:
        raise Invalid(problems)
    bot, _, level = find_bot(db, namespace, bot_id)
    _check_within(db, namespace, level, actor_id, "make a token for")
    return create_token(db, bot.user_id, name, scopes, expires or None)


@operation("botToken.revoke")
def revoke_bot_token(db: Session, namespace: Namespace, bot_id: int,
                     token_id: int) -> PersonalAccessToken:
    """Revoke one of the bot's tokens (again: no change); :class:`NoSuchToken` if it has no
    such token. Anyone who may manage the namespace's bots may take a token back."""
    bot = find_bot(db, namespace, bot_id)[0]
    token = db.scalar(select(PersonalAccessToken).where(
        PersonalAccessToken.id == token_id, PersonalAccessToken.user_id == bot.user_id))
    if token is None:
        raise NoSuchToken()
    if not token.revoked:
        token.revoked = True
        token.revoked_at = utcnow()
        db.flush()
    return token


def token_state(token: PersonalAccessToken, rules: LifetimeRules) -> str:
    """``active``, ``revoked`` or ``expired``, as a listing shows it."""
    if token.revoked:
        return "revoked"
    return "active" if token.active(utcnow(), rules.max_lifetime) else "expired"

