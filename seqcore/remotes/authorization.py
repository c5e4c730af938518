"""This install as an OAuth2 client of a remote: the authorization-code flow with PKCE (S256)
by which a user connects their own account there, and the token endpoint's two grants it
uses (``authorization_code`` once, ``refresh_token`` after).

:func:`begin` records an authorization under way (the state's digest and the PKCE verifier,
which never leaves this install) and gives the remote's consent page URL to send the
browser to; :func:`finish` takes what the browser brings back to the callback, checks it
belongs to the same user, remote and a fresh authorization, exchanges the code and stores
the tokens as the user's connection. Every refusal is an :class:`AuthorizationFailed` whose
message says what happened in words a person can act on; the caller's transaction is then
rolled back, so nothing is stored.

oauthlib (the library seqcore's own authorization server is built on) makes the PKCE pair,
the token requests' bodies and reads the token endpoint's answers; the requests themselves go
over urllib. The consent page's URL is built here because oauthlib's client refuses plain
``http://`` remotes, which labs run on internal networks (and the tests on loopback).

IRIDA (both its Spring stacks) and seqcore serve the flow at ``/api/oauth/authorize`` and
``/api/oauth/token``, under the install's base URL; IRIDA Next installs are asked at the same
paths.
"""

from __future__ import annotations

import secrets
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timedelta

from oauthlib.oauth2 import OAuth2Error, WebApplicationClient
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import DomainError
from seqcore.imports.remote import api_root
from seqcore.models.oauth import digest
from seqcore.models.remote import RemoteApi, RemoteAuthorization, RemoteConnection

#: How long a user has to approve on the remote's page and come back.
PENDING_SECONDS = 600
#: The scope asked for: reading is all synchronizing needs.
SCOPE = "read"
#: Seconds to wait for the remote's token endpoint.
TIMEOUT = 30


class AuthorizationFailed(DomainError):
    """The connection could not be made (refused, expired, the remote unreachable...)."""

    default_message = "The connection to the remote API could not be made."


class RemoteUnreachable(AuthorizationFailed):
    """The remote's token endpoint could not be reached (a 502 to the person waiting)."""


@dataclass(frozen=True)
class Tokens:
    """A token endpoint's answer."""

    access_token: str
    refresh_token: str | None
    expires: datetime | None


def authorize_endpoint(remote: RemoteApi) -> str:
    return api_root(remote.base_url) + "/oauth/authorize"


def token_endpoint(remote: RemoteApi) -> str:
    return api_root(remote.base_url) + "/oauth/token"


def revoke_endpoint(remote: RemoteApi) -> str:
    return api_root(remote.base_url) + "/oauth/revoke"


def client_of(remote: RemoteApi) -> WebApplicationClient:
    """oauthlib's client of ``remote`` (its client id; the secret goes in each body)."""
    return WebApplicationClient(remote.client_id)


def pkce_pair(client: WebApplicationClient) -> tuple[str, str]:
    """A PKCE ``code_verifier`` (86 unreserved characters) and its S256 challenge."""
    verifier = client.create_code_verifier(86)
    return verifier, client.create_code_challenge(verifier, "S256")


def begin(db: Session, remote: RemoteApi, user_id: int, redirect_uri: str) -> tuple[str, str]:
    """Record an authorization of ``remote`` for ``user_id`` under way; the URL of the
    remote's consent page to send the browser to, and the ``state`` it carries (for the
    caller to bind to the browser's session)."""
    now = utcnow()
    # Authorizations nobody came back from are forgotten here, not by a job.
    db.execute(delete(RemoteAuthorization).where(RemoteAuthorization.expires < now))
    state = secrets.token_urlsafe(32)
    verifier, challenge = pkce_pair(client_of(remote))
    db.add(RemoteAuthorization(
        remote_api_id=remote.id, user_id=user_id, state_hash=digest(state),
        code_verifier=verifier, redirect_uri=redirect_uri, created=now,
        expires=now + timedelta(seconds=PENDING_SECONDS)))
    db.flush()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": remote.client_id, "redirect_uri": redirect_uri,
        "scope": SCOPE, "state": state, "code_challenge": challenge,
        "code_challenge_method": "S256"})
    return f"{authorize_endpoint(remote)}?{query}", state


# What the remote's error codes mean to the person coming back (RFC 6749 4.1.2.1).
ERRORS = {
    "access_denied": "You did not authorize the connection on {remote}.",
    "unauthorized_client": "{remote} does not let this install use the authorization-code "
                           "flow: its client must be registered there for it.",
    "invalid_scope": "{remote} does not give this install's client the read scope.",
    "invalid_request": "{remote} refused the authorization request",
    "server_error": "{remote} failed while authorizing",
    "temporarily_unavailable": "{remote} cannot authorize now; try again later.",
}


def finish(db: Session, remote: RemoteApi, user_id: int, state: str | None, code: str | None,
           error: str | None = None, error_description: str | None = None,
           session_state: str | None = None) -> RemoteConnection:
    """Complete the authorization the callback's ``state`` names: the user's connection to
    ``remote``, made or renewed with the tokens the code is exchanged for.

    ``session_state`` is the state the browser's session was given by :func:`begin`; a
    callback without it, or with another, was not started by this browser (a forged link)
    and is refused, as is a state unknown, spent, expired, or another user's or remote's."""
    if not state or not session_state or not secrets.compare_digest(
            state.encode("utf-8", "replace"), session_state.encode("utf-8", "replace")):
        raise AuthorizationFailed(
            "This connection was not started from this browser, or it was started again "
            "since; connect again.")
    pending = db.scalar(select(RemoteAuthorization).where(
        RemoteAuthorization.state_hash == digest(state)))
    if (pending is None or pending.user_id != user_id or pending.remote_api_id != remote.id
            or pending.expires <= utcnow()):
        raise AuthorizationFailed("This connection request is unknown or has expired; "
                                  "connect again.")
    db.delete(pending)
    db.flush()
    if error:
        message = ERRORS.get(error, "{remote} refused the authorization ({error})").format(
            remote=remote.name, error=error)
        if error_description and error in ("invalid_request", "server_error"):
            message = f"{message}: {error_description}"
        raise AuthorizationFailed(message if message.endswith(".") else message + ".")
    if not code:
        raise AuthorizationFailed(f"{remote.name} sent back no authorization code.")
    client = client_of(remote)
    tokens = token_request(remote, client, client.prepare_request_body(
        code=code, redirect_uri=pending.redirect_uri, code_verifier=pending.code_verifier,
        client_secret=remote.client_secret))
    return store(db, remote, user_id, tokens)


def refreshed_tokens(remote: RemoteApi, refresh_token: str) -> Tokens:
    """New tokens for a connection's refresh token (:class:`AuthorizationFailed` if the
    remote will not give them)."""
    client = client_of(remote)
    return token_request(remote, client, client.prepare_refresh_body(
        refresh_token=refresh_token, client_id=remote.client_id,
        client_secret=remote.client_secret))


def store(db: Session, remote: RemoteApi, user_id: int, tokens: Tokens) -> RemoteConnection:
    """The user's connection to ``remote`` with these tokens (made, or its tokens replaced)."""
    connection = db.scalar(select(RemoteConnection).where(
        RemoteConnection.remote_api_id == remote.id, RemoteConnection.user_id == user_id))
    now = utcnow()
    if connection is None:
        connection = RemoteConnection(remote_api_id=remote.id, user_id=user_id, created=now)
        db.add(connection)
    connection.access_token = tokens.access_token
    connection.refresh_token = tokens.refresh_token
    connection.expires = tokens.expires
    connection.remote_login = None
    connection.refreshed = now
    db.flush()
    return connection


def _post_form(url: str, body: str, timeout: float = TIMEOUT) -> tuple[int, str]:
    """POST a form body; the status and the answer's text (its first MiB)."""
    request = urllib.request.Request(
        url, data=body.encode(), method="POST",
        headers={"Accept": "application/json",
                 "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw = answer.status, answer.read(1 << 20)
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read(1 << 20)
    return status, raw.decode("utf-8", "replace")


def token_request(remote: RemoteApi, client: WebApplicationClient, body: str) -> Tokens:
    """A grant at the remote's token endpoint, the client authenticated with its id and
    secret in the form (``client_secret_post``, which IRIDA's and seqcore's servers take);
    :class:`AuthorizationFailed` saying why not."""
    url = token_endpoint(remote)
    try:
        status, text = _post_form(url, body)
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        raise RemoteUnreachable(f"{remote.name} could not be reached at {url}: {reason}."
                                ) from None
    try:
        token = client.parse_request_body_response(text)
    except OAuth2Error as err:
        if err.error == "missing_token":  # neither a token nor an error of OAuth2's
            raise AuthorizationFailed(f"{remote.name} answered the token request with "
                                      f"{status}: {text[:200]!r}.") from None
        detail = f"{err.error}: {err.description}" if err.description else err.error
        if err.error == "invalid_client":
            detail += " (check the client id and secret registered for it here)"
        raise AuthorizationFailed(f"{remote.name} refused the token request ({detail})."
                                  ) from None
    except ValueError:  # an expires_in that is not a number
        raise AuthorizationFailed(f"{remote.name} answered the token request with "
                                  f"{status}: {text[:200]!r}.") from None
    if status != 200 or not isinstance(token.get("access_token"), str):
        raise AuthorizationFailed(f"{remote.name} answered the token request with "
                                  f"{status}: {text[:200]!r}.")
    seconds = token.get("expires_in")
    refresh_token = token.get("refresh_token")
    return Tokens(token["access_token"],
                  refresh_token if isinstance(refresh_token, str) else None,
                  None if seconds is None else utcnow() + timedelta(seconds=int(seconds)))


def revoke(remote: RemoteApi, token: str) -> bool:
    """Ask the remote to revoke ``token`` (RFC 7009); whether it said so. A remote that
    cannot be reached, or does not revoke, is not an error: the connection here is gone
    either way."""
    form = urllib.parse.urlencode({"token": token, "client_id": remote.client_id,
                                   "client_secret": remote.client_secret})
    try:
        status, _text = _post_form(revoke_endpoint(remote), form, timeout=10)
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return status == 200
