"""Who is calling, for the web pages (the session) and GraphQL (a personal access token over
HTTP Basic, or the session).

The REST API keeps its own rule (OAuth2 bearer tokens, :mod:`seqcore.security.tweens`);
:class:`seqcore.security.policy.SecurityPolicy` asks this module for the identity of every
request outside it.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pyramid.request import Request
from sqlalchemy import and_, or_, select, update

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.oauth import digest
from seqcore.models.user import User
from seqcore.security.credentials import web_session_user
from seqcore.security.identity import Identity

GRAPHQL_PATH = "/api/graphql"
SESSION_SCOPES = frozenset({"read_api", "api"})
SESSION_USER = "user_id"
SESSION_KEY = "session_key"  # the secret of the session's WebSession row
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class Credentials:
    """The outcome of authenticating a GraphQL request."""

    identity: Identity | None
    method: str | None = None  # "token" or "session"
    error: str | None = None
    token_id: int | None = None


def identity_of(user: User, scopes: frozenset[str]) -> Identity:
    return Identity(user_id=user.id, username=user.username, role=user.role, scopes=scopes)


def session_identity(request: Request) -> Identity | None:
    """The signed-in user of the session cookie, if the session has not been ended and the
    account still exists and is enabled."""
    if "seqcore.session_identity" not in request.environ:
        identity = None
        # Valid only while its server-side row lives (sign-out and password changes end it).
        user = web_session_user(request.db, request.session.get(SESSION_KEY),
                                request.session.get(SESSION_USER))
        if user is not None:
            identity = identity_of(user, SESSION_SCOPES)
        request.environ["seqcore.session_identity"] = identity
    return request.environ["seqcore.session_identity"]


def basic_credentials(header: str) -> tuple[str, str] | None:
    """``(email, token)`` from ``Basic <base64(email:token)>``; ``None`` if malformed."""
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    email, sep, token = decoded.partition(":")
    if not sep or not email or not token:
        return None
    return email, token


def check_personal_token(db: Any, email: str, token: str) -> Credentials:
    """Resolve ``email:token`` (one SQL statement, plus one to record the use)."""
    row = db.execute(
        select(PersonalAccessToken, User)
        .join(User, PersonalAccessToken.user_id == User.id)
        .where(PersonalAccessToken.token_hash == digest(token))
    ).first()
    now = utcnow()
    if row is None or row.User.email.lower() != email.lower():
        return Credentials(None, error="The e-mail address or personal access token is not "
                                       "valid.")
    pat, user = row
    if pat.revoked:
        return Credentials(None, error="The personal access token has been revoked.")
    if pat.expires_at is not None and pat.expires_at <= now:
        return Credentials(None, error="The personal access token has expired.")
    if not user.enabled:
        return Credentials(None, error="The account is disabled.")
    # Recorded at most once a minute, so a busy client does not write on every request.
    db.execute(update(PersonalAccessToken)
               .where(PersonalAccessToken.id == pat.id,
                      or_(PersonalAccessToken.last_used_at.is_(None),
                          and_(PersonalAccessToken.last_used_at < now - LAST_USED_RESOLUTION)))
               .values(last_used_at=now))
    return Credentials(identity_of(user, frozenset(pat.scope_list)), "token", token_id=pat.id)


def graphql_credentials(request: Request) -> Credentials:
    """Basic ``email:token`` when an Authorization header is sent, else the session."""
    if "seqcore.graphql_credentials" not in request.environ:
        header = request.headers.get("Authorization")
        if header is not None:
            parsed = basic_credentials(header)
            if parsed is None:
                result = Credentials(None, error=(
                    "Send 'Authorization: Basic <base64 of email:personal access token>' "
                    "(tokens are created on your profile page), or sign in."))
            else:
                result = check_personal_token(request.db, *parsed)
        else:
            identity = session_identity(request)
            result = (Credentials(identity, "session") if identity is not None else
                      Credentials(None, error="Authentication is required: send 'Authorization:"
                                              " Basic <base64 of email:personal access token>' "
                                              "or sign in at /users/sign_in."))
        request.environ["seqcore.graphql_credentials"] = result
    return request.environ["seqcore.graphql_credentials"]


def is_graphql(request: Request) -> bool:
    return request.path_info == GRAPHQL_PATH


def web_identity(request: Request) -> Identity | None:
    """The identity of a request outside the REST API (GraphQL or a web page)."""
    if is_graphql(request):
        return graphql_credentials(request).identity
    return session_identity(request)
