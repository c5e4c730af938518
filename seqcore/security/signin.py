"""Checking a password, at every door that takes one, under one rate limit.

Three doors take a password: the sign-in page, the OAuth password grant and the
authorization-code consent form. They all call :func:`authenticate`, so a guesser gains
nothing by switching doors. Failures are rows (:class:`~seqcore.models.access_token.
SignInFailure`), so the limit holds across server processes; they are counted per account
(a username and the account's e-mail address are one account) and per client address (from
trusted proxies only, :mod:`seqcore.security.proxies`).

The rule (``L`` = ``seqcore.sign_in.max_failures``, within ``seqcore.sign_in.window_seconds``)
keeps guessing slow without letting a guesser lock the real holder out:

* ``L`` failures for one account from one address refuse that account at that address,
  even the right password, until the window has passed: the guesser is stopped where it
  guesses.
* An address from which the account signed in with its password within
  ``seqcore.sign_in.trust_days`` (a :class:`~seqcore.models.access_token.SignInSuccess`)
  is trusted for it: nothing else refuses the account there. So failures from anywhere
  else never lock the holder out of the office, the laboratory or the uploader's machine,
  and a site behind one NAT address keeps signing in while someone there guesses.
* From any other address, the account is also refused after ``L`` failures for it from
  anywhere (guessing spread over many addresses), and the address after ``4 L`` failures
  over all accounts (one address trying many accounts).

A success clears the failures of that account at that address and trusts the address.

An unknown or disabled account costs the same argon2 verification as a real one (against a
dummy hash made with the configured costs), so the answer's timing does not tell whether an
account exists.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from pyramid.request import Request
from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.access_token import SignInFailure, SignInSuccess
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


def _limits(request: Request) -> tuple[int, timedelta, timedelta]:
    settings = request.registry.settings
    return (settings["seqcore.sign_in.max_failures"],
            timedelta(seconds=settings["seqcore.sign_in.window_seconds"]),
            timedelta(days=settings["seqcore.sign_in.trust_days"]))


def client_address(request: Request) -> str:
    """The client's address; forwarding headers were already applied (trusted proxies
    only) by :func:`seqcore.security.proxies.forwarded_tween_factory`."""
    return (request.environ.get("REMOTE_ADDR") or "unknown")[:64]


def trusted(request: Request, user: User | None) -> bool:
    """Whether the account signed in with its password from the client's address recently
    (``seqcore.sign_in.trust_days``)."""
    if user is None:
        return False
    _, _, trust = _limits(request)
    return request.db.scalar(select(SignInSuccess.id).where(
        SignInSuccess.user_id == user.id, SignInSuccess.address == client_address(request),
        SignInSuccess.last > utcnow() - trust)) is not None


def locked(request: Request, key: str, user: User | None = None) -> bool:
    """Whether password checks for this account are refused at the client's address now
    (the module's rule)."""
    limit, window, _ = _limits(request)
    address = client_address(request)
    here, by_account, by_address = request.db.execute(select(
        func.count().filter(SignInFailure.username == key, SignInFailure.address == address),
        func.count().filter(SignInFailure.username == key),
        func.count().filter(SignInFailure.address == address),
    ).where(SignInFailure.created > utcnow() - window, or_(
        SignInFailure.username == key, SignInFailure.address == address))).one()
    if here >= limit:
        return True
    if by_account < limit and by_address < ADDRESS_FACTOR * limit:
        return False
    return not trusted(request, user)


def record_failure(request: Request, key: str) -> None:
    _, window, _ = _limits(request)
    db = request.db
    db.execute(delete(SignInFailure).where(SignInFailure.created <= utcnow() - window))
    db.add(SignInFailure(username=key, address=client_address(request)))
    db.flush()


def record_success(request: Request, key: str, user: User) -> None:
    """Clear the account's failures at this address and trust the address for it."""
    _, _, trust = _limits(request)
    db = request.db
    address = client_address(request)
    db.execute(delete(SignInFailure).where(SignInFailure.username == key,
                                           SignInFailure.address == address))
    db.execute(delete(SignInSuccess).where(SignInSuccess.last <= utcnow() - trust))
    known = db.scalar(select(SignInSuccess).where(SignInSuccess.user_id == user.id,
                                                  SignInSuccess.address == address))
    if known is not None:
        known.last = utcnow()
        db.flush()
        return
    try:  # a sign-in from the same address at the same moment may have added it
        with db.begin_nested():
            db.add(SignInSuccess(user_id=user.id, address=address))
    except IntegrityError:
        pass


def authenticate(request: Request, login: str, password: str) -> SignIn:
    """Check ``login`` (username or e-mail) and ``password`` under the rate limit.

    A failure is recorded in the request's transaction: the caller answers normally (an
    error page or an OAuth error body), which commits it.
    """
    login = (login or "").strip()
    user = find_account(request.db, login)
    key = account_key(login, user)
    if locked(request, key, user):
        return SignIn(Outcome.LOCKED)
    if user is None:
        settings = request.registry.settings
        verify_password(_dummy_hash(settings["seqcore.password_hash.time_cost"],
                                    settings["seqcore.password_hash.memory_cost"]),
                        password or "")
        ok = False
    else:
        # A bot account signs in nowhere: it has no password, and only its personal
        # access tokens authenticate it (seqcore.projects.bots).
        ok = (verify_password(user.password_hash, password or "") and user.enabled
              and not user.is_bot)
    if not ok or user is None:
        record_failure(request, key)
        return SignIn(Outcome.BAD)
    record_success(request, key, user)
    return SignIn(Outcome.OK, user)
