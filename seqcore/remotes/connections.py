"""A user's connection to a remote API, as a client of the remote that reads with it.

:func:`remote_for` is what reads a remote on a user's behalf (synchronized projects do):
it hands out a :class:`seqcore.imports.remote.Remote` carrying the connection's access token,
first refreshing the token with the ``refresh_token`` grant when it ends within a minute.
When the remote no longer accepts the connection (the refresh refused, no refresh token
left, or later a request answered 401) it raises :class:`RemoteUnauthorized`, so a caller can
tell "the user must connect again" from any other failure.

The refreshed tokens are written in the caller's session. The remote spends the old refresh
token as it answers, so the caller should commit soon after: a transaction rolled back after
a refresh loses the only refresh token that still works, and the user must connect again.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.imports.remote import Remote, RemoteError
from seqcore.models.remote import RemoteApi, RemoteConnection
from seqcore.remotes.authorization import AuthorizationFailed, revoke, store, token_request

#: A token ending within this long is refreshed before it is used.
REFRESH_MARGIN = timedelta(seconds=60)


class RemoteUnauthorized(RemoteError):
    """The remote does not accept this connection any more: its owner must connect again
    (``/-/remotes``). A :class:`RemoteError`, so callers that handle every remote failure
    alike still do."""


class ConnectedRemote(Remote):
    """A :class:`Remote` read with a user's connection: a request the remote answers 401
    (the token revoked there, the account disabled) raises :class:`RemoteUnauthorized`."""

    def __init__(self, remote_api: RemoteApi, token: str) -> None:
        super().__init__(remote_api.base_url, token=token)
        self.remote_api_name = remote_api.name

    @contextmanager
    def _open(self, method: str, url: str, headers: dict[str, str],
              body: bytes | None = None) -> Iterator[http.client.HTTPResponse]:
        try:
            with super()._open(method, url, headers, body) as answer:
                yield answer
        except RemoteUnauthorized:
            raise
        except RemoteError as err:
            if err.status == 401:
                raise RemoteUnauthorized(
                    f"{self.remote_api_name} no longer accepts this connection "
                    f"({method} {url} answered 401): connect again.", status=401) from None
            raise


def connection_for(dbsession: Session, remote_api_id: int, user_id: int
                   ) -> RemoteConnection | None:
    """The user's connection to the remote API, if they have made one."""
    return dbsession.scalar(select(RemoteConnection).where(
        RemoteConnection.remote_api_id == remote_api_id, RemoteConnection.user_id == user_id))


def _near_end(connection: RemoteConnection) -> bool:
    return connection.expires is not None and connection.expires <= utcnow() + REFRESH_MARGIN


def refresh(dbsession: Session, connection: RemoteConnection) -> RemoteConnection:
    """New tokens for ``connection`` from its refresh token, stored in it;
    :class:`RemoteUnauthorized` when the remote refuses (or there is no refresh token).

    The row is locked first (a write on it), and read again: of two processes refreshing
    one connection at once, the second finds the first's fresh token and uses it instead of
    presenting a refresh token already spent, which the remote would take for a stolen one
    and answer by revoking the whole grant."""
    dbsession.execute(update(RemoteConnection).where(RemoteConnection.id == connection.id)
                      .values(refreshed=RemoteConnection.refreshed)
                      .execution_options(synchronize_session=False))
    dbsession.refresh(connection)
    if not _near_end(connection):
        return connection
    remote_api = dbsession.get_one(RemoteApi, connection.remote_api_id)
    if not connection.refresh_token:
        raise RemoteUnauthorized(f"The connection to {remote_api.name} has expired and cannot "
                                 "be renewed (no refresh token): connect again.")
    try:
        tokens = token_request(remote_api, {"grant_type": "refresh_token",
                                            "refresh_token": connection.refresh_token})
    except AuthorizationFailed as failed:
        raise RemoteUnauthorized(f"The connection to {remote_api.name} could not be renewed: "
                                 f"{failed.message} Connect again.") from None
    if tokens.refresh_token is None:  # the remote keeps the old one (RFC 6749 6)
        tokens = type(tokens)(tokens.access_token, connection.refresh_token, tokens.expires)
    return store(dbsession, remote_api, connection.user_id, tokens)


def remote_for(dbsession: Session, connection: RemoteConnection) -> Remote:
    """A client of the remote that reads with ``connection``'s access token, refreshed
    first when it ends within a minute (the new tokens stored in ``dbsession``: commit
    soon). :class:`RemoteUnauthorized` when the remote will not renew it."""
    if _near_end(connection):
        connection = refresh(dbsession, connection)
    remote_api = dbsession.get_one(RemoteApi, connection.remote_api_id)
    return ConnectedRemote(remote_api, connection.access_token)


def disconnect(dbsession: Session, remote_api: RemoteApi, user_id: int) -> bool:
    """End the user's connection to ``remote_api``: its tokens are forgotten here and the
    remote is asked to revoke them (a remote that cannot be reached keeps them until they
    expire). Whether there was a connection."""
    connection = connection_for(dbsession, remote_api.id, user_id)
    if connection is None:
        return False
    # Revoking the refresh token ends its access token too (RFC 7009 2.1).
    token = connection.refresh_token or connection.access_token
    dbsession.delete(connection)
    dbsession.flush()
    revoke(remote_api, token)
    return True
