"""Connecting to an IRIDA Next remote with a personal access token created there.

IRIDA Next's GraphQL API (and seqcore's, which speaks its dialect) takes no OAuth2 bearer
token: its clients send a personal access token as HTTP Basic ``e-mail:token``. A person
therefore connects by giving the e-mail of their account there and a token they created
there; :func:`connect_with_token` asks the remote who that is (``{ currentUser { email } }``)
and stores the pair as their connection only when the remote accepts it and names the same
e-mail. Every refusal is an :class:`AuthorizationFailed` (a :class:`RemoteUnreachable` when
the remote cannot be reached) that stores nothing.

IRIDA Next answers a token it does not accept as it answers a guest (HTTP 200, a null
``currentUser``); seqcore answers 401. Both are the same refusal here.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.imports.remote import RemoteError
from seqcore.models.remote import RemoteApi, RemoteConnection
from seqcore.remotes.authorization import TIMEOUT, AuthorizationFailed, RemoteUnreachable
from seqcore.remotes.connections import ConnectedRemote, RemoteUnauthorized, connection_for

#: The query that names the caller, in IRIDA Next's schema and seqcore's.
WHO_AM_I = "{ currentUser { email } }"
#: Longest e-mail and token taken (the column's width; tokens are far shorter).
MAX_EMAIL = 255
MAX_TOKEN = 1024


def caller_email(remote: RemoteApi, email: str, token: str) -> str | None:
    """The e-mail of the account the remote takes ``email`` and ``token`` for, ``None``
    when it takes them for no account; :class:`AuthorizationFailed` when it cannot say."""
    client = ConnectedRemote(remote, token, email, timeout=TIMEOUT)
    try:
        data = client.graphql(WHO_AM_I)
    except RemoteUnauthorized:
        return None
    except RemoteError as err:
        if err.status is None or err.status >= 500:
            raise RemoteUnreachable(f"{remote.name} could not be reached or failed "
                                    f"({err}); try again later.") from None
        raise AuthorizationFailed(f"{remote.name} refused the request: {err}") from None
    except ValueError:  # not JSON: not a GraphQL endpoint
        raise AuthorizationFailed(f"{remote.name}'s GraphQL endpoint ({remote.graphql_url}) "
                                  "did not answer as one.") from None
    finally:
        client.close()
    user = data.get("currentUser") if isinstance(data, dict) else None
    found = user.get("email") if isinstance(user, dict) else None
    return found if isinstance(found, str) else None


def connect_with_token(db: Session, remote: RemoteApi, user_id: int, email: str,
                       token: str) -> RemoteConnection:
    """The user's connection to the IRIDA Next ``remote`` with this e-mail and personal
    access token (made, or replacing the one they had), once the remote has said the token
    is that account's."""
    email, token = email.strip(), token.strip()
    if remote.kind != "irida-next":
        raise AuthorizationFailed(f"{remote.name} is connected through its consent page, "
                                  "not with a personal access token.")
    if not remote.graphql_url:
        raise AuthorizationFailed(f"{remote.name} has no GraphQL endpoint registered: an "
                                  "administrator must give it.")
    if not email or not token:
        raise AuthorizationFailed("Give both the e-mail of your account there and a "
                                  "personal access token created there.")
    if len(email) > MAX_EMAIL or len(token) > MAX_TOKEN or "\x00" in email + token:
        raise AuthorizationFailed("That e-mail or token is too long to be one.")
    found = caller_email(remote, email, token)
    if found is None:
        raise AuthorizationFailed(f"{remote.name} did not accept this e-mail and token: check "
                                  "both, and that the token is not expired or revoked there.")
    if found.casefold() != email.casefold():
        raise AuthorizationFailed(f"This token belongs to another account on {remote.name} "
                                  "than the e-mail given.")
    connection = connection_for(db, remote.id, user_id)
    now = utcnow()
    if connection is None:
        connection = RemoteConnection(remote_api_id=remote.id, user_id=user_id, created=now)
        db.add(connection)
    connection.access_token = token
    connection.refresh_token = None
    connection.expires = None
    connection.remote_login = found
    connection.refreshed = now
    db.flush()
    return connection
