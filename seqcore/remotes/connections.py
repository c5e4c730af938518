"""A user's connection to a remote API, as a client of the remote that reads with it.

:func:`remote_for` is what reads a remote on a user's behalf (synchronized projects do):
it hands out a :class:`seqcore.imports.remote.Remote` carrying the connection's access token,
first refreshing the token with the ``refresh_token`` grant when it ends within a minute.
An IRIDA Next remote's connection is a personal access token and the remote account's
e-mail (:mod:`seqcore.remotes.personal`), sent as HTTP Basic: IRIDA Next's GraphQL API takes
no OAuth2 bearer token.
When the remote no longer accepts the connection (the refresh refused, no refresh token
left, or later a request answered 401) it raises :class:`RemoteUnauthorized`, so a caller can
tell "the user must connect again" from any other failure.

The refreshed tokens are written in the caller's session. The remote spends the old refresh
token as it answers, so the caller should commit soon after: a transaction rolled back after
a refresh loses the only refresh token that still works, and the user must connect again.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.imports.remote import Remote, RemoteError
from seqcore.models.remote import RemoteApi, RemoteConnection
from seqcore.remotes.authorization import (
    AuthorizationFailed,
    refreshed_tokens,
    revoke,
    store,
)

#: A token ending within this long is refreshed before it is used.
REFRESH_MARGIN = timedelta(seconds=60)


class RemoteUnauthorized(RemoteError):
    """The remote does not accept this connection any more: its owner must connect again
    (``/-/remotes``). A :class:`RemoteError`, so callers that handle every remote failure
    alike still do."""


#: What IRIDA Next answers (HTTP 200) to a query made without an account it accepts.
GUEST_MODE = "accessing the API in guest mode"


class ConnectedRemote(Remote):
    """A :class:`Remote` read with a user's connection: a request the remote answers 401
    (the token revoked there, the account disabled) raises :class:`RemoteUnauthorized`.

    With ``login`` (an e-mail), ``token`` is a personal access token sent as IRIDA Next's
    clients send it, HTTP Basic ``login:token``; else an OAuth2 bearer token."""

    def __init__(self, remote_api: RemoteApi, token: str, login: str | None = None,
                 timeout: float = 120) -> None:
        super().__init__(remote_api.base_url, token=token, username=login,
                         basic=login is not None, timeout=timeout)
        self.remote_api_name = remote_api.name
        self.graphql_url = remote_api.graphql_url

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> Any:
        """The ``data`` of a GraphQL query to the remote's ``graphql_url``;
        :class:`RemoteError` with the remote's messages when it answers errors, and
        :class:`RemoteUnauthorized` when it treats the caller as a guest (IRIDA Next
        answers so, with HTTP 200, to a token it does not accept)."""
        if not self.graphql_url:
            raise RemoteError(f"{self.remote_api_name} has no GraphQL endpoint registered.")
        answer = self.post_json(self.graphql_url,
                                {"query": query, "variables": dict(variables or {})})
        if not isinstance(answer, dict):
            raise RemoteError(f"{self.remote_api_name} answered GraphQL with no JSON object.")
        messages = [str(e.get("message", "?")) if isinstance(e, dict) else str(e)
                    for e in answer.get("errors") or []]
        if any(GUEST_MODE in message for message in messages):
            raise RemoteUnauthorized(f"{self.remote_api_name} no longer accepts this "
                                     "connection (it answers as to a guest): connect again.",
                                     status=401)
        if messages:
            raise RemoteError("GraphQL: " + "; ".join(messages))
        return answer.get("data")

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
        tokens = refreshed_tokens(remote_api, connection.refresh_token)
    except AuthorizationFailed as failed:
        raise RemoteUnauthorized(f"The connection to {remote_api.name} could not be renewed: "
                                 f"{failed.message} Connect again.") from None
    if tokens.refresh_token is None:  # the remote keeps the old one (RFC 6749 6)
        tokens = type(tokens)(tokens.access_token, connection.refresh_token, tokens.expires)
    return store(dbsession, remote_api, connection.user_id, tokens)


def remote_for(dbsession: Session, connection: RemoteConnection) -> ConnectedRemote:
    """A client of the remote that reads with ``connection``'s access token, refreshed
    first when it ends within a minute (the new tokens stored in ``dbsession``: commit
    soon). :class:`RemoteUnauthorized` when the remote will not renew it.

    For an IRIDA Next remote the client sends the personal access token and e-mail as
    HTTP Basic; a connection to one without an e-mail (an OAuth2 token, which its GraphQL
    API would not take) is :class:`RemoteUnauthorized` at once."""
    remote_api = dbsession.get_one(RemoteApi, connection.remote_api_id)
    if remote_api.kind == "irida-next":
        if not connection.remote_login:
            raise RemoteUnauthorized(f"{remote_api.name} takes a personal access token: "
                                     "connect again with one.", status=401)
        return ConnectedRemote(remote_api, connection.access_token, connection.remote_login)
    if _near_end(connection):
        connection = refresh(dbsession, connection)
    return ConnectedRemote(remote_api, connection.access_token)


def disconnect(dbsession: Session, remote_api: RemoteApi, user_id: int) -> bool:
    """End the user's connection to ``remote_api``: its tokens are forgotten here and the
    remote is asked to revoke them (a remote that cannot be reached keeps them until they
    expire). A personal access token cannot be revoked from here (it is forgotten only:
    its owner revokes it on the remote). Whether there was a connection."""
    connection = connection_for(dbsession, remote_api.id, user_id)
    if connection is None:
        return False
    if connection.remote_login is not None:
        dbsession.delete(connection)
        dbsession.flush()
        return True
    # Revoking the refresh token ends its access token too (RFC 7009 2.1).
    token = connection.refresh_token or connection.access_token
    dbsession.delete(connection)
    dbsession.flush()
    revoke(remote_api, token)
    return True
