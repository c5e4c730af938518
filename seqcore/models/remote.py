"""Other installs this one reads from: remote APIs registered by administrators, each user's
connection to them (and the authorizations under way that make one), and the local projects
kept in step with a remote project.

A remote API is one install (IRIDA's REST dialect or IRIDA Next's GraphQL one) and the OAuth2
client this install is registered as there. A user reaches it only through a connection of
their own (authorization code with PKCE), so a user sees there exactly what their remote
account may read. A synchronized project names the remote project it mirrors and the
connection it is read with; the worker keeps it in step on its ``sync_frequency``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.db import Base, utcnow


class RemoteApi(Base):
    """An install registered by an administrator: where it is, which dialect it speaks, and
    the OAuth2 client id and secret this install uses there."""

    __tablename__ = "remote_api"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    #: The install's base URL (its REST API is ``base_url + "/api"``).
    base_url: Mapped[str] = mapped_column(String(1024))
    #: ``irida`` (REST) or ``irida-next`` (GraphQL).
    kind: Mapped[str] = mapped_column(String(32), default="irida")
    #: IRIDA Next's GraphQL endpoint; ``None`` for an IRIDA install.
    graphql_url: Mapped[str | None] = mapped_column(String(1024), default=None)
    description: Mapped[str | None] = mapped_column(Text, default=None)
    client_id: Mapped[str] = mapped_column(String(255))
    client_secret: Mapped[str] = mapped_column(String(255))
    created: Mapped[datetime] = mapped_column(default=utcnow)


class RemoteConnection(Base):
    """One user's tokens for one remote API: from the authorization-code flow (refreshed
    with the refresh token when the access token is near its end), or, for an IRIDA Next
    remote, a personal access token created there and the e-mail it is sent with."""

    __tablename__ = "remote_connection"
    __table_args__ = (UniqueConstraint("remote_api_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    remote_api_id: Mapped[int] = mapped_column(ForeignKey("remote_api.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    access_token: Mapped[str] = mapped_column(Text)
    refresh_token: Mapped[str | None] = mapped_column(Text, default=None)
    expires: Mapped[datetime | None] = mapped_column(default=None)
    #: The remote account's e-mail, sent with a personal access token (``access_token``)
    #: as HTTP Basic; ``None`` for an OAuth2 connection.
    remote_login: Mapped[str | None] = mapped_column(String(255), default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    refreshed: Mapped[datetime | None] = mapped_column(default=None)


class RemoteAuthorization(Base):
    """A connection under way: a user sent to a remote's consent page and not yet back.

    The ``state`` sent there is kept only as its digest, with the PKCE ``code_verifier`` that
    never leaves this install; the callback finds the row by the state it brings back,
    checks it is the same user's and fresh, and deletes it (one use)."""

    __tablename__ = "remote_authorization"

    id: Mapped[int] = mapped_column(primary_key=True)
    remote_api_id: Mapped[int] = mapped_column(ForeignKey("remote_api.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    state_hash: Mapped[str] = mapped_column(String(64), unique=True)
    code_verifier: Mapped[str] = mapped_column(String(128))
    redirect_uri: Mapped[str] = mapped_column(String(1024))
    created: Mapped[datetime] = mapped_column(default=utcnow)
    expires: Mapped[datetime] = mapped_column()


class ProjectSync(Base):
    """A local project that mirrors a remote one: what it mirrors, whose connection reads it,
    and the state of its synchronization (``synchronized``, ``scheduled``, ``updating``,
    ``error`` with its reason, ``unauthorized`` when the connection no longer works)."""

    __tablename__ = "project_sync"

    project_id: Mapped[int] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"), primary_key=True)
    remote_api_id: Mapped[int] = mapped_column(ForeignKey("remote_api.id", ondelete="CASCADE"))
    #: The user whose connection reads the remote project.
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), default=None)
    #: The remote project's own URL (IRIDA: ``.../api/projects/{id}``; IRIDA Next: its GID).
    remote_url: Mapped[str] = mapped_column(String(1024))
    status: Mapped[str] = mapped_column(String(16), default="scheduled")
    error: Mapped[str | None] = mapped_column(Text, default=None)
    #: The remote project's hash at the last complete sync (``GET .../hash``).
    remote_hash: Mapped[str | None] = mapped_column(String(128), default=None)
    last_sync: Mapped[datetime | None] = mapped_column(default=None)
    next_sync: Mapped[datetime | None] = mapped_column(default=None)
    #: When the sync now running started (``None`` when none runs).
    started: Mapped[datetime | None] = mapped_column(default=None)
