"""The authenticated caller, detached from any database session."""

from __future__ import annotations

from dataclasses import dataclass

from seqcore.models.user import SystemRole


@dataclass(frozen=True)
class Identity:
    """Who is calling and with which grant.

    A plain value rather than an ORM object, so it can be cached for the request, passed to
    background work and compared without touching the database.
    """

    user_id: int
    username: str
    role: SystemRole
    scopes: frozenset[str]
    client_id: str | None = None
    lenient: bool = False

    @property
    def is_admin(self) -> bool:
        return self.role is SystemRole.ADMIN

    def has_role(self, role: SystemRole) -> bool:
        """True if the caller's role is ``role`` or includes it."""
        return role in self.role.implied
