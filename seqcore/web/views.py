"""Sign-in, sign-out, the profile page and its Access Tokens."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPFound, HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.user import User
from seqcore.oauth.personal import (
    LifetimeRules,
    RotationRefused,
    create_token,
    revoke_token,
    rotate_token,
    token_problems,
    tokens_of,
)
from seqcore.parsing.identifiers import parse_id
from seqcore.security.credentials import (
    end_other_credentials,
    end_web_session,
    start_web_session,
)
from seqcore.security.passwords import hash_with_settings, password_problems
from seqcore.security.policy import SESSION_KEY, SESSION_USER, session_identity
from seqcore.security.signin import LOCKED_MESSAGE, Outcome, authenticate
from seqcore.web.render import page

BAD_CREDENTIALS = "The username or password is not correct."


def safe_next(value: str | None, default: str) -> str:
    """Only a plain local path (``/...``), so the sign-in page cannot redirect anywhere
    else: not ``//host``, no backslash, no scheme or host once parsed, and no control
    character (a CR or LF would split the ``Location`` header; webob refuses it with a 500).
    Anything else falls back to ``default``."""
    if (not value or not value.startswith("/") or value.startswith("//") or "\\" in value
            or any(ord(char) < 32 or ord(char) == 127 for char in value)):
        return default
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return default
    return value


def sign_in_redirect(request: Request) -> HTTPFound:
    query = urlencode({"next": request.path_qs})
    return HTTPFound(location=f"{request.route_path('web.sign_in')}?{query}")


def sign_in_form(request: Request) -> Response:
    next_url = safe_next(request.GET.get("next"), request.route_path("web.profile"))
    if session_identity(request) is not None:
        return HTTPFound(location=next_url)
    return page(request, "sign_in.mako", error=None, username="", next_url=next_url)


def sign_in(request: Request) -> Response:
    username = request.POST.get("username", "").strip()
    password = request.POST.get("password", "")
    next_url = safe_next(request.POST.get("next"), request.route_path("web.profile"))
    if not username or not password:
        return page(request, "sign_in.mako", status=400, username=username, next_url=next_url,
                    error="Enter your username (or e-mail address) and password.")
    result = authenticate(request, username, password)
    if result.outcome is Outcome.LOCKED:
        return page(request, "sign_in.mako", status=429, username=username, next_url=next_url,
                    error=LOCKED_MESSAGE)
    if result.outcome is not Outcome.OK:
        return page(request, "sign_in.mako", status=400, username=username, next_url=next_url,
                    error=BAD_CREDENTIALS)
    user = result.user
    if user is None:  # an OK outcome names the account
        raise RuntimeError("sign-in succeeded without an account")
    # A fresh session (and CSRF token) on sign-in, so a planted cookie gains nothing.
    request.session.invalidate()
    request.session[SESSION_USER] = user.id
    request.session[SESSION_KEY] = start_web_session(request.db, user.id)
    request.session["signed_in"] = int(utcnow().timestamp())
    request.session.new_csrf_token()
    return HTTPSeeOther(location=next_url)


def sign_out(request: Request) -> Response:
    """Ends the session on the server too: a copy of the cookie stops working."""
    end_web_session(request.db, request.session.get(SESSION_KEY))
    request.session.invalidate()
    return HTTPSeeOther(location=request.route_path("web.sign_in"))


def _user(request: Request) -> User | None:
    identity = session_identity(request)
    return None if identity is None else request.db.get(User, identity.user_id)


def profile(request: Request) -> Response:
    user = _user(request)
    if user is None:
        return sign_in_redirect(request)
    return page(request, "profile.mako", user=user, problems={}, changed=False)


def change_password(request: Request) -> Response:
    """Needs the current password (checked under the sign-in limit, so a borrowed session
    cannot guess it); ends every other session and OAuth token, and the personal access
    tokens unless the user keeps them."""
    user = _user(request)
    if user is None:
        return sign_in_redirect(request)
    current = request.POST.get("current_password", "")
    new = request.POST.get("new_password", "")
    problems: dict[str, str] = {}
    result = authenticate(request, user.username, current)
    if result.outcome is Outcome.LOCKED:
        problems["current_password"] = LOCKED_MESSAGE
    elif result.outcome is not Outcome.OK:
        problems["current_password"] = "The current password is not correct."
    rules = password_problems(new)
    if rules:
        problems["new_password"] = " ".join(rules)
    elif new != request.POST.get("confirm_password", ""):
        problems["confirm_password"] = "The new passwords do not match."
    if problems:
        status = 429 if result.outcome is Outcome.LOCKED else 400
        return page(request, "profile.mako", status=status, user=user, problems=problems,
                    changed=False)
    user.password_hash = hash_with_settings(new, request.registry.settings)
    keep = request.POST.get("keep_personal_tokens") == "on"
    end_other_credentials(request.db, user.id, keep_session=request.session.get(SESSION_KEY),
                          keep_personal_tokens=keep)
    return page(request, "profile.mako", user=user, problems={}, changed=True)


def _fmt(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _rules(request: Request) -> LifetimeRules:
    return LifetimeRules.of(request.registry.settings)


def tokens_page(request: Request, status: int = 200, **values: Any) -> Response:
    identity = session_identity(request)
    if identity is None:
        return sign_in_redirect(request)
    rules = _rules(request)
    now = utcnow()

    def token_status(token: PersonalAccessToken) -> str:
        if token.revoked:
            return "Revoked"
        return "Active" if token.active(now, rules.max_lifetime) else "Expired"

    values.setdefault("new_token", None)
    values.setdefault("rotated", False)
    values.setdefault("problems", {})
    values.setdefault("form", {})
    return page(request, "tokens.mako", status=status,
                tokens=tokens_of(request.db, identity.user_id), fmt=_fmt,
                token_status=token_status,
                ends=lambda token: token.ends_at(rules.max_lifetime), rules=rules,
                latest_expiry=rules.latest_expiry(now.date()), **values)


def tokens(request: Request) -> Response:
    if session_identity(request) is None:
        return sign_in_redirect(request)
    return tokens_page(request)


def create(request: Request) -> Response:
    identity = session_identity(request)
    if identity is None:
        return sign_in_redirect(request)
    form = {"name": request.POST.get("name", ""), "scopes": request.POST.getall("scopes"),
            "expires_at": request.POST.get("expires_at", "").strip()}
    problems = token_problems(form["name"], form["scopes"], form["expires_at"] or None,
                              rules=_rules(request))
    if problems:
        return tokens_page(request, status=400, problems=problems, form=form)
    # Shown in this response only: never stored in the session or redirected through.
    new_token = create_token(request.db, identity.user_id, form["name"], form["scopes"],
                             form["expires_at"] or None)
    return tokens_page(request, status=201, new_token=new_token)


def revoke(request: Request) -> Response:
    identity = session_identity(request)
    if identity is None:
        return sign_in_redirect(request)
    token_id = parse_id(request.matchdict["id"])
    if token_id is None or not revoke_token(request.db, identity.user_id, token_id):
        return page(request, "message.mako", status=404, heading="Not found",
                    message="You have no such token.")
    return HTTPSeeOther(location=request.route_path("web.tokens"))


def rotate(request: Request) -> Response:
    """Revoke a working token at once and show its successor's secret, once (201): the same
    name and scopes and lifetime span. Not the user's token: 404; revoked or expired: 409,
    and nothing changes."""
    identity = session_identity(request)
    if identity is None:
        return sign_in_redirect(request)
    token_id = parse_id(request.matchdict["id"])
    if token_id is None:
        return page(request, "message.mako", status=404, heading="Not found",
                    message="You have no such token.")
    try:
        new_token = rotate_token(request.db, identity.user_id, token_id, _rules(request))
    except RotationRefused as refused:
        if refused.missing:
            return page(request, "message.mako", status=404, heading="Not found",
                        message="You have no such token.")
        return page(request, "message.mako", status=409, heading="Not rotated",
                    message=refused.message)
    return tokens_page(request, status=201, new_token=new_token, rotated=True)


def includeme(config: Configurator) -> None:
    config.add_route("web.home", "/")
    config.add_route("web.sign_in", "/users/sign_in")
    config.add_route("web.sign_out", "/users/sign_out")
    config.add_route("web.profile", "/-/profile")
    config.add_route("web.password", "/-/profile/password")
    config.add_route("web.tokens", "/-/profile/personal_access_tokens")
    config.add_route("web.token_revoke", "/-/profile/personal_access_tokens/{id}/revoke")
    config.add_route("web.token_rotate", "/-/profile/personal_access_tokens/{id}/rotate")
    config.add_view(sign_in_form, route_name="web.sign_in", request_method="GET")
    config.add_view(sign_in, route_name="web.sign_in", request_method="POST", require_csrf=True)
    config.add_view(sign_out, route_name="web.sign_out", request_method="POST",
                    require_csrf=True)
    config.add_view(profile, route_name="web.profile", request_method="GET")
    config.add_view(change_password, route_name="web.password", request_method="POST",
                    require_csrf=True)
    config.add_view(tokens, route_name="web.tokens", request_method="GET")
    config.add_view(create, route_name="web.tokens", request_method="POST", require_csrf=True)
    config.add_view(revoke, route_name="web.token_revoke", request_method="POST",
                    require_csrf=True)
    config.add_view(rotate, route_name="web.token_rotate", request_method="POST",
                    require_csrf=True)
