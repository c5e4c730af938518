"""Checking a password, at every door that takes one, under one rate limit.

Three doors take a password: the sign-in page, the OAuth password grant and the
authorization-code consent form. They all call :func:`authenticate`, so a guesser gains
nothing by switching doors. Failures are rows (:class:`~seqcore.models.access_token.
SignInFailure`), so the limit holds across server processes; they are counted per account
(a username and the account's e-mail address are one account) and per client address (from
trusted proxies only, :mod:`seqcore.security.proxies`). After
``seqcore.sign_in.max_failures`` failures for an account, or four times that from one
address, within ``seqcore.sign_in.window_seconds``, every door refuses, even the right
password, until the window has passed.

An unknown or disabled account costs the same argon2 verification as a real one (against a
dummy hash made with the configured costs), so the answer's timing does not tell whether an
account exists.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import cast

from pyramid.request import Request
from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.access_token import SignInFailure
from seqcore.models.user import User
from seqcore.security.passwords import hash_password, verify_password

LOCKED_MESSAGE = "Too many failed sign-ins. Wait a few minutes, then try again."
ADDRESS_FACTOR = 4


class Outcome(enum.Enum):
    OK = "ok"
    BAD = "bad"  # unknown account, disabled account or wrong password: one answer for all
    LOCKED = "locked"


@dataclass(frozen=True)
class SignIn:
    outcome: Outcome
    user: User | None = None


def find_account(db: Session, login: str) -> User | None:
    """The account named by ``login``: its username, else its e-mail address (any case)."""
    if not login:
        return None
    user = db.scalar(select(User).where(User.username == login))
    if user is None:
        user = db.scalar(select(User).where(func.lower(User.email) == login.lower())
                         .order_by(User.id).limit(1))
    return user


def account_key(login: str, user: User | None) -> str:
    """What failures are counted under: the account's id when the login names one (so its
    username and e-mail share one count), else the login as typed, lower-cased (guessing
    at names that do not exist is limited too)."""
    if user is not None:
        return f"#{user.id}"
    return login.strip().lower()[:255]


@cache
def _dummy_hash(time_cost: int, memory_cost: int) -> str:
    return hash_password("not a password of anyone's", time_cost, memory_cost)


def _limits(request: Request) -> tuple[int, timedelta]:
    settings = request.registry.settings
    return (settings["seqcore.sign_in.max_failures"],
            timedelta(seconds=settings["seqcore.sign_in.window_seconds"]))


def client_address(request: Request) -> str:
    """The client's address; forwarding headers were already applied (trusted proxies
    only) by :func:`seqcore.security.proxies.forwarded_tween_factory`."""
    return (request.environ.get("REMOTE_ADDR") or "unknown")[:64]


def locked(request: Request, key: str) -> bool:
    """Whether too many password checks failed recently for this account or address."""
    limit, window = _limits(request)
    address = client_address(request)
    by_account, by_address = request.db.execute(select(
        func.count().filter(SignInFailure.username == key),
        func.count().filter(SignInFailure.address == address),
    ).where(SignInFailure.created > utcnow() - window, or_(
        SignInFailure.username == key, SignInFailure.address == address))).one()
    return cast("bool", by_account >= limit or by_address >= ADDRESS_FACTOR * limit)


def record_failure(request: Request, key: str) -> None:
    _, window = _limits(request)
    db = request.db
    db.execute(delete(SignInFailure).where(SignInFailure.created <= utcnow() - window))
    db.add(SignInFailure(username=key, address=client_address(request)))
    db.flush()


def clear_failures(request: Request, key: str) -> None:
    request.db.execute(delete(SignInFailure).where(SignInFailure.username == key))


def authenticate(request: Request, login: str, password: str) -> SignIn:
    """Check ``login`` (username or e-mail) and ``password`` under the rate limit.

    A failure is recorded in the request's transaction: the caller answers normally (an
    error page or an OAuth error body), which commits it.
    """
    login = (login or "").strip()
    user = find_account(request.db, login)
    key = account_key(login, user)
    if locked(request, key):
        return SignIn(Outcome.LOCKED)
    if user is None:
        settings = request.registry.settings
        verify_password(_dummy_hash(settings["seqcore.password_hash.time_cost"],
                                    settings["seqcore.password_hash.memory_cost"]),
                        password or "")
        ok = False
    else:
        ok = verify_password(user.password_hash, password or "") and user.enabled
    if not ok:
        record_failure(request, key)
        return SignIn(Outcome.BAD)
    clear_failures(request, key)
    return SignIn(Outcome.OK, user)
