"""Signed-cookie sessions for the web pages and GraphiQL.

The cookie holds only the user id, the CSRF token and when the user signed in; it is signed
(HMAC) with ``seqcore.session.secret``, HttpOnly and SameSite=Lax. Production must set the
secret: without one, a SQLite deployment (development) generates it once and keeps it next
to its database file, and anything else refuses to start.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any

from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError
from pyramid.session import JSONSerializer, SignedCookieSessionFactory
from sqlalchemy.engine import make_url

COOKIE = "seqcore_session"
SECRET_FILE = "seqcore-session-secret"


def session_secret(settings: dict[str, Any]) -> str:
    secret = settings["seqcore.session.secret"]
    if secret:
        return secret
    url = make_url(str(settings["sqlalchemy.url"]))
    if url.get_backend_name() != "sqlite":
        raise ConfigurationError(
            "seqcore.session.secret (environment: SEQCORE_SESSION_SECRET) must be set: it "
            "signs the session cookies of the sign-in pages and GraphiQL.")
    if not url.database or url.database == ":memory:":
        return secrets.token_urlsafe(32)
    path = Path(url.database).resolve().parent / SECRET_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{SECRET_FILE}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32))
        try:  # first writer wins; a concurrent start reads the winner's secret
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return path.read_text().strip()


def includeme(config: Configurator) -> None:
    settings = config.get_settings()
    secret = session_secret(settings)
    # Signed download links (line lists) are signed with a key derived from the same
    # secret, so a link is no session cookie and a cookie no link.
    config.registry["seqcore.download_secret"] = hmac.new(
        secret.encode(), b"seqcore.download", hashlib.sha256).hexdigest()
    factory = SignedCookieSessionFactory(
        secret, cookie_name=COOKIE, httponly=True, samesite="Lax",
        secure=settings["seqcore.session.secure"],
        timeout=settings["seqcore.session.max_age"], reissue_time=60,
        serializer=JSONSerializer(), salt="seqcore.session.",
    )
    config.set_session_factory(factory)
