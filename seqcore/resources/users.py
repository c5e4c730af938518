"""Accounts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from seqcore.models.user import User
from seqcore.resources.base import Context, int_key, is_id
from seqcore.security.access import ACCOUNT, USERS, Ace
from seqcore.security.permissions import Permission


class UsersCollection(Context):
    __acl__ = USERS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        if key == "current":
            identity = self.request.identity
            if identity is None:
                raise KeyError(key)
            user = self.db.get(User, identity.user_id)
            return CurrentUser(self.request, str(user.id), self, user)
        if is_id(key):  # ASCII digits are an id; anything else is a username
            user = self.db.get(User, int_key(key))
        else:
            user = self.db.scalar(select(User).where(User.username == key))
        if user is None:
            raise KeyError(key)
        return UserResource(self.request, str(user.id), self, user)


class UserResource(Context):
    read_permission = ACCOUNT.read

    def __init__(self, request: Any, name: str, parent: Context, user: User) -> None:
        super().__init__(request, name, parent)
        self.user = user

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.ACCOUNT`: an account reads and changes itself."""
        return ACCOUNT.acl(self.db, self.user)

    def child(self, key: str) -> Any:
        if key == "projects":
            return UserProjects(self.request, key, self)
        if key == "notifications":
            return UserNotifications(self.request, key, self)
        raise KeyError(key)


class CurrentUser(UserResource):
    """``/api/users/current``: the caller, linked by numeric id."""


class UserProjects(Context):
    """``/api/users/{key}/projects``: the projects that account can read."""

    read_permission = Permission.USER_PROJECTS


class UserNotifications(Context):
    """``/api/users/{key}/notifications``: the e-mail notifications the account receives
    (the account itself and administrators)."""

    read_permission = Permission.USER_UPDATE
