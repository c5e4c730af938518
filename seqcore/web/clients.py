"""``/-/admin/clients``: the OAuth2 clients programs sign in through, for administrators:
the list, a form registering one (grant types, scopes, redirect URIs, token lifetimes), a
new secret for one, and deleting one (its tokens stop working at once). The operations are
:mod:`seqcore.oauth.clients`', which ``seqcore clients`` uses too; a secret is shown once,
in the answer that made it, and stored only as a digest."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.models.oauth import OAuthClient
from seqcore.oauth.clients import GRANTS, MIN_SECONDS, SCOPES, create_client, delete_client
from seqcore.oauth.clients import regenerate_secret as new_secret
from seqcore.web.guard import add_page, administrator, not_found
from seqcore.web.i18n import _, translate
from seqcore.web.render import page

DEFAULTS = {"grant_types": ["password", "refresh_token"], "scopes": list(SCOPES),
            "token_seconds": "43200", "refresh_seconds": "2592000", "redirect_uris": "",
            "client_id": "", "lenient": False}
#: The form's field of each of the domain's options (its problems are keyed by option).
OPTIONS = {"client-id": "client_id", "grant-type": "grant_types", "scope": "scopes",
           "token-seconds": "token_seconds", "refresh-seconds": "refresh_seconds",
           "redirect-uri": "redirect_uris"}


def clients_page(request: Request, status: int = 200, **values: Any) -> Response:
    administrator(request)
    clients = request.db.scalars(select(OAuthClient).order_by(OAuthClient.client_id)).all()
    values.setdefault("problems", {})
    values.setdefault("form", DEFAULTS)
    values.setdefault("secret", None)
    values.setdefault("regenerated", False)
    return page(request, "clients.mako", status=status, clients=clients, grants=GRANTS,
                scopes=SCOPES, **values)


def _seconds(request: Request, name: str, problems: dict[str, str]) -> int | None:
    """A lifetime of the form, in seconds (the domain checks its bounds)."""
    value = request.POST.get(name, "").strip()
    if value.isdigit() and len(value) < 10:
        return int(value)
    problems[name] = translate(request, _("A lifetime is a whole number of seconds, at "
                                          "least ${min}.", mapping={"min": MIN_SECONDS}))
    return None


def create(request: Request) -> Response:
    administrator(request)
    post = request.POST
    form = {"client_id": post.get("client_id", "").strip(),
            "grant_types": post.getall("grant_types"), "scopes": post.getall("scopes"),
            "token_seconds": post.get("token_seconds", "").strip(),
            "refresh_seconds": post.get("refresh_seconds", "").strip(),
            "redirect_uris": post.get("redirect_uris", ""),
            "lenient": post.get("lenient") == "on"}
    problems: dict[str, str] = {}
    token_seconds = _seconds(request, "token_seconds", problems)
    refresh_seconds = _seconds(request, "refresh_seconds", problems)
    if not problems:
        try:
            client, secret = create_client(
                request.db, form["client_id"], form["grant_types"], form["scopes"],
                token_seconds or 0, refresh_seconds, form["redirect_uris"].split(),
                form["lenient"])
        except Invalid as error:
            problems = {OPTIONS.get(key, key): " ".join(messages)
                        for key, messages in error.problems.items()}
    if problems:
        return clients_page(request, status=400, problems=problems, form=form)
    return clients_page(request, status=201, secret=(client, secret))


def _client(request: Request) -> OAuthClient:
    administrator(request)
    key = request.matchdict["id"]
    client = request.db.get(OAuthClient, int(key)) if len(key) < 10 else None
    if client is None:
        raise not_found()
    return client


def regenerate(request: Request) -> Response:
    client = _client(request)
    return clients_page(request, status=200, secret=(client, new_secret(request.db, client)),
                        regenerated=True)


def remove(request: Request) -> Response:
    client = _client(request)
    name = client.client_id
    delete_client(request.db, client)
    request.session.flash(translate(request, _("Client ${name} deleted.",
                                               mapping={"name": name})))
    return HTTPSeeOther(location=request.route_path("web.admin.clients"))


def includeme(config: Configurator) -> None:
    base = "/-/admin/clients"
    add_page(config, "web.admin.clients", base, clients_page)
    add_page(config, "web.admin.clients", None, create, method="POST")
    add_page(config, "web.admin.client.secret", base + "/{id:\\d+}/secret", regenerate,
             method="POST")
    add_page(config, "web.admin.client.delete", base + "/{id:\\d+}/delete", remove,
             method="POST")
