"""The client a synchronized project is read with: the other install, with the access token
of the user's connection to it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.imports.remote import Remote
from seqcore.models.remote import RemoteApi, RemoteConnection


def connection_of(db: Session, remote_api_id: int, user_id: int | None
                  ) -> RemoteConnection | None:
    """The user's connection to the remote API, if they made one."""
    if user_id is None:
        return None
    return db.scalar(select(RemoteConnection).where(
        RemoteConnection.remote_api_id == remote_api_id,
        RemoteConnection.user_id == user_id))


def remote_for(db: Session, connection: RemoteConnection) -> Remote:
    """An authenticated client of the connection's remote API.

    STAND-IN, to be replaced by ``seqcore.remotes.connections.remote_for`` (which refreshes
    the token when it is near its end) when the remote APIs are merged."""
    api: Any = db.get_one(RemoteApi, connection.remote_api_id)
    return Remote(api.base_url, token=connection.access_token)
