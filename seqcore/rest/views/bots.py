"""``/api/projects/{pid}/bots`` and ``/api/groups/{gid}/bots``: bot accounts and their
personal access tokens (:mod:`seqcore.projects.bots`).

Maintainers, owners and administrators (``project:write``/``group:write``) list, make and
delete a namespace's bots and their tokens; every other caller who reads the namespace is
refused (403). A token's secret is in the answer that made it, and never again.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.access_token import LifetimeRules, PersonalAccessToken
from seqcore.models.bot import NamespaceBot
from seqcore.models.group import AccessLevel
from seqcore.models.user import User
from seqcore.oauth.personal import NewToken
from seqcore.parsing.schemas import BotSchema, BotTokenSchema
from seqcore.projects.bots import (
    bot_tokens,
    create_bot,
    create_bot_token,
    delete_bot,
    find_bot,
    list_bots,
    revoke_bot_token,
    token_state,
)
from seqcore.rest.body import load
from seqcore.rest.envelope import collection, links_only
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission


def _actor(request: Request) -> int | None:
    """Whose own level bounds the change (``None``: an administrator's, unbounded)."""
    return None if request.identity.is_admin else request.identity.user_id


def _rules(request: Request) -> LifetimeRules:
    return LifetimeRules.of(request.registry.settings)


def _bots_context(context: Any) -> Any:
    """The ``bots`` collection context at or above ``context``."""
    while not hasattr(context, "namespace"):
        context = context.__parent__
    return context


def bot_entry(request: Request, bots_ctx: Any, bot: NamespaceBot, user: User,
              level: int) -> dict[str, Any]:
    return {
        "userId": user.username, "email": user.email, "userType": user.account_type,
        "accessLevel": AccessLevel(level).name, "accessLevelValue": level,
        "createdDate": epoch_ms(bot.created), "label": user.username,
        "identifier": str(bot.id),
        "links": [
            {"rel": "self", "href": url_for(request, bots_ctx, str(bot.id))},
            {"rel": "bot/tokens", "href": url_for(request, bots_ctx, str(bot.id), "tokens")},
        ],
    }


def token_entry(request: Request, tokens_href: str, token: PersonalAccessToken,
                rules: LifetimeRules) -> dict[str, Any]:
    return {
        "name": token.name, "scopes": token.scope_list, "state": token_state(token, rules),
        "createdDate": epoch_ms(token.created), "expiresAt": epoch_ms(token.expires_at),
        "lastUsedDate": epoch_ms(token.last_used_at),
        "revokedDate": epoch_ms(token.revoked_at), "identifier": str(token.id),
        "links": [{"rel": "self", "href": f"{tokens_href}/{token.id}"}],
    }


def _new_token_entry(request: Request, tokens_href: str, new: NewToken) -> dict[str, Any]:
    """The entry of a token just made, with its secret (shown this once)."""
    return {**token_entry(request, tokens_href, new.record, _rules(request)),
            "token": new.secret}


def list_namespace_bots(request: Request) -> dict:
    bots_ctx = request.context
    return collection(request, bots_ctx, [
        bot_entry(request, bots_ctx, bot, user, level)
        for bot, user, level in list_bots(request.db, bots_ctx.namespace)])


def add_bot(request: Request) -> dict:
    """A bot at ``accessLevel`` with its first token (``tokenName``, ``scopes``,
    ``expiresAt``), whose secret the answer carries."""
    data = load(request, BotSchema())
    bots_ctx = request.context
    bot, token = create_bot(request.db, bots_ctx.namespace, data["accessLevel"],
                            data["tokenName"], data["scopes"], data["expiresAt"],
                            actor_id=_actor(request), rules=_rules(request))
    bot, user, level = find_bot(request.db, bots_ctx.namespace, bot.id)
    request.response.status = 201
    request.response.location = url_for(request, bots_ctx, str(bot.id))
    tokens_href = url_for(request, bots_ctx, str(bot.id), "tokens")
    return {"resource": {**bot_entry(request, bots_ctx, bot, user, level),
                         "personalAccessToken": _new_token_entry(request, tokens_href, token)}}


def get_bot(request: Request) -> dict:
    bots_ctx = request.context.__parent__
    bot, user, level = find_bot(request.db, bots_ctx.namespace, request.context.bot.id)
    return {"resource": bot_entry(request, bots_ctx, bot, user, level)}


def remove_bot(request: Request) -> dict:
    """Delete the bot: its tokens stop working with this answer."""
    bots_ctx = request.context.__parent__
    delete_bot(request.db, bots_ctx.namespace, request.context.bot.id,
               actor_id=_actor(request))
    return links_only([("bots", url_for(request, bots_ctx))])


def list_tokens(request: Request) -> dict:
    tokens_ctx = request.context
    href = url_for(request, tokens_ctx)
    rules = _rules(request)
    return collection(request, tokens_ctx, [
        token_entry(request, href, token, rules)
        for token in bot_tokens(request.db, tokens_ctx.__parent__.bot)])


def add_token(request: Request) -> dict:
    data = load(request, BotTokenSchema())
    tokens_ctx = request.context
    bots_ctx = _bots_context(tokens_ctx)
    new = create_bot_token(request.db, bots_ctx.namespace, tokens_ctx.__parent__.bot.id,
                           data["name"], data["scopes"], data["expiresAt"],
                           actor_id=_actor(request), rules=_rules(request))
    href = url_for(request, tokens_ctx)
    request.response.status = 201
    request.response.location = f"{href}/{new.record.id}"
    return {"resource": _new_token_entry(request, href, new)}


def revoke_token(request: Request) -> dict:
    """Revoke the token (it stops working with this answer); the entry says ``revoked``."""
    context = request.context
    tokens_ctx = context.__parent__
    token = revoke_bot_token(request.db, _bots_context(tokens_ctx).namespace,
                             tokens_ctx.__parent__.bot.id, context.token.id)
    return {"resource": token_entry(request, url_for(request, tokens_ctx), token,
                                    _rules(request))}


def _endpoints(owner: str, prefix: str, write: Permission) -> list[Endpoint]:
    """The four bot endpoints under ``prefix`` (a project's or a group's URL)."""
    bots = f"{prefix}/bots"
    bot = f"{bots}/{{bid:\\d+}}"
    return [
        Endpoint(f"api.{owner}.bots", bots, {
            "GET": View(list_namespace_bots, write),
            "POST": View(add_bot, write),
        }, description=f"A {owner}'s bot accounts; POST makes one with its first token."),
        Endpoint(f"api.{owner}.bot", bot, {
            "GET": View(get_bot, write),
            "DELETE": View(remove_bot, write),
        }, description="One bot account; DELETE deletes it and ends its tokens."),
        Endpoint(f"api.{owner}.bot.tokens", f"{bot}/tokens", {
            "GET": View(list_tokens, write),
            "POST": View(add_token, write),
        }, description="A bot's personal access tokens; POST makes one (shown once)."),
        Endpoint(f"api.{owner}.bot.token", f"{bot}/tokens/{{tid:\\d+}}", {
            "DELETE": View(revoke_token, write),
        }, description="Revoke one of a bot's personal access tokens."),
    ]


ENDPOINTS = [
    *_endpoints("project", "/api/projects/{pid:\\d+}", Permission.PROJECT_WRITE),
    *_endpoints("group", "/api/groups/{gid:\\d+}", Permission.GROUP_WRITE),
]
