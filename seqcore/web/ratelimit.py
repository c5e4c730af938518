"""Failed sign-ins are rate limited per username and per client address.

Failures are rows (:class:`~seqcore.models.access_token.SignInFailure`), so the limit holds
across server processes. After ``seqcore.sign_in.max_failures`` failures for one username
(or four times that from one address) within ``seqcore.sign_in.window_seconds``, sign-in is
refused without checking the password until the window has passed.
"""

from __future__ import annotations

from datetime import timedelta

from pyramid.request import Request
from sqlalchemy import delete, func, or_, select

from seqcore.db import utcnow
from seqcore.models.access_token import SignInFailure
from seqcore.web.settings import setting


def _window(request: Request) -> timedelta:
    return timedelta(seconds=setting(request.registry.settings,
                                     "seqcore.sign_in.window_seconds"))


def address(request: Request) -> str:
    return (request.client_addr or "unknown")[:64]


def blocked(request: Request, username: str) -> bool:
    """Whether too many sign-ins failed recently for this username or address."""
    limit = setting(request.registry.settings, "seqcore.sign_in.max_failures")
    since = utcnow() - _window(request)
    by_user, by_address = request.db.execute(select(
        func.count().filter(SignInFailure.username == username.lower()),
        func.count().filter(SignInFailure.address == address(request)),
    ).where(SignInFailure.created > since, or_(
        SignInFailure.username == username.lower(),
        SignInFailure.address == address(request)))).one()
    return by_user >= limit or by_address >= 4 * limit


def record_failure(request: Request, username: str) -> None:
    db = request.db
    db.execute(delete(SignInFailure).where(SignInFailure.created <= utcnow() - _window(request)))
    db.add(SignInFailure(username=username.lower()[:255], address=address(request)))


def clear_failures(request: Request, username: str) -> None:
    request.db.execute(delete(SignInFailure).where(SignInFailure.username == username.lower()))
