"""What every sub-policy answers: the outcome of authenticating one request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pyramid.request import Request

from seqcore.models.user import User
from seqcore.security.identity import Identity


@dataclass(frozen=True)
class Credentials:
    """Who the request's credential names, or why it names nobody.

    ``method`` says which credential was checked (``"bearer"``, ``"token"`` for a personal
    access token, ``"session"``): GraphQL applies the CSRF rule to sessions only and scopes
    to tokens. ``error`` is the sentence a 401 answer carries.
    """

    identity: Identity | None
    method: str | None = None
    error: str | None = None
    token_id: int | None = None


class SubPolicy(Protocol):
    """One kind of credential. The top-level policy picks exactly one per request."""

    method: str

    def authenticate(self, request: Request) -> Credentials:
        """Check the request's credential of this kind (the top-level policy caches it)."""


def identity_of(user: User, scopes: frozenset[str]) -> Identity:
    return Identity(user_id=user.id, username=user.username, role=user.role, scopes=scopes)
