"""``/api/projects/{id}/bots`` and ``/api/groups/{id}/bots``: a namespace's bot accounts and
their tokens.

They have no ACL of their own: they inherit the project's or group's through
``__parent__``, and every view over them asks ``project:write`` or ``group:write``
(maintainers, owners, administrators), as IRIDA Next's bot pages do. A deleted bot, or the
automation bot, is not found.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.bot import NamespaceBot
from seqcore.models.user import MADE_BOT_TYPES, User
from seqcore.resources.base import Context, int_key


class NamespaceBots(Context):
    """The bots of the project or group above (``namespace``)."""

    @property
    def namespace(self) -> Any:
        """The project (a context with ``project_id``) or the group above."""
        owner: Any = self.__parent__
        return owner.project if hasattr(owner, "project_id") else owner.group

    def child(self, key: str) -> Any:
        owner: Any = self.__parent__
        if hasattr(owner, "project_id"):
            column, owner_id = NamespaceBot.project_id, owner.project_id
        else:
            column, owner_id = NamespaceBot.group_id, owner.group.id
        bot = self.db.scalar(
            select(NamespaceBot).join(User, User.id == NamespaceBot.user_id)
            .where(NamespaceBot.id == int_key(key), column == owner_id,
                   NamespaceBot.deleted_at.is_(None), User.account_type.in_(MADE_BOT_TYPES)))
        if bot is None:
            raise KeyError(key)
        return BotResource(self.request, key, self, bot)


class BotResource(Context):
    """One bot."""

    __parent__: NamespaceBots

    def __init__(self, request: Any, name: str, parent: Context, bot: NamespaceBot) -> None:
        super().__init__(request, name, parent)
        self.bot = bot

    def child(self, key: str) -> Any:
        if key == "tokens":
            return BotTokens(self.request, key, self)
        raise KeyError(key)


class BotTokens(Context):
    """The bot's personal access tokens."""

    __parent__: BotResource

    def child(self, key: str) -> Any:
        token = self.db.scalar(select(PersonalAccessToken).where(
            PersonalAccessToken.id == int_key(key),
            PersonalAccessToken.user_id == self.__parent__.bot.user_id))
        if token is None:
            raise KeyError(key)
        return BotTokenResource(self.request, key, self, token)


class BotTokenResource(Context):
    __parent__: BotTokens

    def __init__(self, request: Any, name: str, parent: Context,
                 token: PersonalAccessToken) -> None:
        super().__init__(request, name, parent)
        self.token = token
