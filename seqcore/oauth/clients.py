"""The OAuth2 client registry: registering a client, giving it a new secret, deleting it.
The command line (``seqcore clients``) and the administrators' web page make and change
clients through these functions, so both refuse the same things in the same words.

A client's secret is shown once, when it is made or replaced, and stored only as its
SHA-256 digest (:func:`seqcore.models.oauth.digest`). Deleting a client deletes the tokens
and codes issued to it (the foreign keys cascade), so they stop working at once.
"""

from __future__ import annotations

import secrets
import string
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Conflict, Invalid
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthClient, OAuthToken, digest

#: The grants the token endpoint serves. client_credentials is not offered: a token acts
#: for a person, and seqcore has no permissions for a client of its own (docs/security.md).
GRANTS = ("password", "authorization_code", "refresh_token")
SCOPES = ("read", "write")
#: The shortest lifetime of a token a client may be given, in seconds.
MIN_SECONDS = 60


def new_client_secret() -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(42))


def _redirect_problems(uris: list[str]) -> list[str]:
    """RFC 6749 3.1.2: a redirection URI is absolute and has no fragment."""
    problems = []
    for uri in uris:
        parts = urlsplit(uri)
        if not parts.scheme or not (parts.netloc or parts.path) or parts.fragment:
            problems.append(f"{uri!r} is not an absolute URI without a fragment.")
    return problems


def create_client(db: Session, client_id: str, grant_types: list[str], scopes: list[str],
                  token_seconds: int, refresh_seconds: int | None, redirect_uris: list[str],
                  lenient: bool) -> tuple[OAuthClient, str]:
    """Register a client; the client and its secret (the only time it is known).
    :class:`Invalid` (each problem under the option it concerns) or :class:`Conflict` (the
    client id is taken), nothing stored."""
    problems: dict[str, list[str]] = {}
    if not client_id or any(c.isspace() for c in client_id) or len(client_id) > 255:
        problems["client-id"] = ["Client details cannot contain spaces."
                                 if client_id else "A client needs a client id."]
    unknown = [grant for grant in grant_types if grant not in GRANTS]
    if unknown or not grant_types:
        problems["grant-type"] = [f"The grant types are {', '.join(GRANTS)}."]
    if not scopes or any(scope not in SCOPES for scope in scopes):
        problems["scope"] = [f"The scopes are {', '.join(SCOPES)}."]
    for name, seconds in (("token-seconds", token_seconds),
                          ("refresh-seconds", refresh_seconds)):
        if seconds is not None and seconds < MIN_SECONDS:
            problems[name] = [f"A lifetime is at least {MIN_SECONDS} seconds."]
    if "authorization_code" in grant_types and not redirect_uris:
        problems["redirect-uri"] = ["The authorization_code grant needs a redirect URI."]
    elif _redirect_problems(redirect_uris):
        problems["redirect-uri"] = _redirect_problems(redirect_uris)
    if problems:
        raise Invalid(problems)
    if db.scalar(select(OAuthClient.id).where(OAuthClient.client_id == client_id)):
        raise Conflict(f"a client {client_id!r} already exists")
    secret = new_client_secret()
    client = OAuthClient(
        client_id=client_id, secret_hash=digest(secret), grant_types=" ".join(grant_types),
        scopes=" ".join(scopes), redirect_uris=" ".join(redirect_uris),
        access_token_seconds=token_seconds, refresh_token_seconds=refresh_seconds,
        lenient=lenient,
    )
    db.add(client)
    db.flush()
    return client, secret


def regenerate_secret(db: Session, client: OAuthClient) -> str:
    """A new secret for ``client`` (returned, the only time it is known); the old one stops
    authenticating the client at once. Tokens already issued keep working until they expire
    or are revoked: revoke or delete the client to end them."""
    secret = new_client_secret()
    client.secret_hash = digest(secret)
    db.flush()
    return secret


def delete_client(db: Session, client: OAuthClient) -> None:
    """Delete ``client`` with the tokens and authorization codes issued to it."""
    for model in (OAuthToken, OAuthAuthorizationCode):
        db.execute(delete(model).where(model.client_id == client.id))
    db.delete(client)
    db.flush()
