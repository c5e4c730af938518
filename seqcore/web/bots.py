"""A project's and a group's bot accounts page: the bots with their tokens, the form making
a bot (its access level and first token), another token for a bot, revoking a token and
deleting a bot. Only maintainers, owners and administrators (``project:write`` /
``group:write``) see it, as REST's bot endpoints ask; the operations are the domain's
(:mod:`seqcore.projects.bots`). A new token's secret is in the answer that made it (201),
never stored in the session or redirected through, as on the personal token page."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response

from seqcore.errors.domain import Invalid
from seqcore.models.access_token import LifetimeRules
from seqcore.models.group import AccessLevel
from seqcore.oauth.personal import NewToken
from seqcore.parsing.identifiers import parse_id
from seqcore.projects.bots import (
    bot_tokens,
    create_bot,
    create_bot_token,
    delete_bot,
    list_bots,
    revoke_bot_token,
    token_state,
)
from seqcore.security.permissions import Permission
from seqcore.web.guard import add_page, context_at, not_found, require, signed_in
from seqcore.web.i18n import _
from seqcore.web.labels import ACCESS_LEVELS
from seqcore.web.render import page

#: The levels a bot may be made with (the form offers them; the domain bounds them by the
#: maker's own level).
LEVELS = [level for level in AccessLevel if level is not AccessLevel.NO_ACCESS]
STATES = {"active": _("Active"), "revoked": _("Revoked"), "expired": _("Expired")}


def _namespace(request: Request) -> tuple[str, Any]:
    """``("project", project)`` or ``("group", group)`` the URL names, which the caller
    must write (404 unseen, 403 seen but not writable)."""
    kind = "project" if request.matched_route.name.startswith("web.project.") else "group"
    context = context_at(request, f"{kind}s", request.matchdict["id"])
    if kind == "project":
        require(request, context, Permission.PROJECT_WRITE)
        return kind, context.project
    require(request, context, Permission.GROUP_WRITE)
    return kind, context.group


def _actor(identity: Any) -> int | None:
    return None if identity.is_admin else identity.user_id


def _rules(request: Request) -> LifetimeRules:
    return LifetimeRules.of(request.registry.settings)


def _number(request: Request, key: str) -> int:
    number = parse_id(request.matchdict[key])
    if number is None:
        raise not_found()
    return number


def bots_page(request: Request, status: int = 200, new_token: NewToken | None = None,
              problems: dict[str, str] | None = None,
              form: dict[str, Any] | None = None) -> Response:
    signed_in(request)
    kind, namespace = _namespace(request)
    db = request.db
    rules = _rules(request)
    bots = [(bot, user, level, bot_tokens(db, bot)) for bot, user, level in
            list_bots(db, namespace)]
    return page(request, "bots.mako", status=status, kind=kind, namespace=namespace,
                bots=bots, levels=[(level.value, ACCESS_LEVELS[level.value])
                                   for level in LEVELS],
                level_label=lambda value: ACCESS_LEVELS.get(value, str(value)),
                state=lambda token: STATES[token_state(token, rules)],
                new_token=new_token, problems=problems or {}, form=form or {},
                rules=rules, base=f"web.{kind}.bots")


def _problems(error: Invalid) -> dict[str, str]:
    return {key: " ".join(messages) for key, messages in error.problems.items()}


def bot_create(request: Request) -> Response:
    identity = signed_in(request)
    _kind, namespace = _namespace(request)
    form = {"access_level": request.POST.get("access_level", ""),
            "token_name": request.POST.get("token_name", ""),
            "scopes": request.POST.getall("scopes"),
            "expires_at": request.POST.get("expires_at", "").strip()}
    level: Any = int(form["access_level"]) if form["access_level"].isdigit() else None
    try:
        _bot, token = create_bot(request.db, namespace, level, form["token_name"],
                                 form["scopes"], form["expires_at"] or None,
                                 actor_id=_actor(identity), rules=_rules(request))
    except Invalid as error:
        request.tm.doom()
        return bots_page(request, status=400, problems=_problems(error), form=form)
    return bots_page(request, status=201, new_token=token)


def token_create(request: Request) -> Response:
    identity = signed_in(request)
    _kind, namespace = _namespace(request)
    bot_id = _number(request, "bot")
    try:
        token = create_bot_token(request.db, namespace, bot_id, request.POST.get("name", ""),
                                 request.POST.getall("scopes"),
                                 request.POST.get("expires_at", "").strip() or None,
                                 actor_id=_actor(identity), rules=_rules(request))
    except Invalid as error:
        request.tm.doom()
        return bots_page(request, status=400, problems=_problems(error))
    return bots_page(request, status=201, new_token=token)


def _back(request: Request, kind: str, namespace: Any, message: Any) -> Response:
    request.session.flash(request.localizer.translate(message))
    return HTTPSeeOther(location=request.route_path(f"web.{kind}.bots", id=namespace.id))


def token_revoke(request: Request) -> Response:
    signed_in(request)
    kind, namespace = _namespace(request)
    token = revoke_bot_token(request.db, namespace, _number(request, "bot"),
                             _number(request, "token"))
    return _back(request, kind, namespace,
                 _("Token ${name} revoked.", mapping={"name": token.name}))


def bot_delete(request: Request) -> Response:
    identity = signed_in(request)
    kind, namespace = _namespace(request)
    delete_bot(request.db, namespace, _number(request, "bot"), actor_id=_actor(identity))
    return _back(request, kind, namespace, _("Bot account deleted."))


def includeme(config: Configurator) -> None:
    for kind, base in (("project", "/-/projects/{id:\\d+}/manage/bots"),
                       ("group", "/-/groups/{id:\\d+}/bots")):
        name = f"web.{kind}.bots"
        add_page(config, name, base, bots_page)
        add_page(config, name, None, bot_create, method="POST")
        add_page(config, f"{name}.delete", base + "/{bot}/delete", bot_delete, method="POST")
        add_page(config, f"{name}.tokens", base + "/{bot}/tokens", token_create,
                 method="POST")
        add_page(config, f"{name}.revoke", base + "/{bot}/tokens/{token}/revoke",
                 token_revoke, method="POST")
