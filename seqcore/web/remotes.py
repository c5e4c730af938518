"""Remote APIs in the workbench: ``/-/remotes``, where each person connects their own account
to the other installs administrators registered (and disconnects it), and
``/-/admin/remotes``, where administrators register, change and delete them.

Connecting is OAuth2's authorization-code flow with PKCE (:mod:`seqcore.remotes.authorization`):
the Connect button (a POST with the CSRF token) records the authorization under way and sends
the browser to the remote's consent page; the remote sends it back to
``/-/remotes/{id}/callback``, which must carry the state this browser's session was given,
and the code is exchanged there for the tokens kept as the person's connection. A refusal
(denied on the remote, a forged or stale callback, the remote unreachable) is shown on the
page in words and stores nothing. An IRIDA Next remote's GraphQL API takes no OAuth2 token:
its Connect is a form asking for the e-mail of the person's account there and a personal
access token created there (:mod:`seqcore.remotes.personal`), checked with the remote
before it is stored. The register's operations are
:mod:`seqcore.remotes.registry`', which REST and ``seqcore remotes`` use too; the client
secret is written, never shown.
"""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.errors.domain import Conflict, Invalid, NotFound
from seqcore.models.remote import RemoteApi, RemoteConnection
from seqcore.remotes.authorization import AuthorizationFailed, RemoteUnreachable, begin, finish
from seqcore.remotes.connections import disconnect
from seqcore.remotes.personal import connect_with_token
from seqcore.remotes.registry import (
    KINDS,
    create_remote_api,
    delete_remote_api,
    find_remote_api,
    remote_apis,
    update_remote_api,
)
from seqcore.web.guard import add_page, administrator, not_found, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.render import page

#: The session key holding, by remote API id, the state of the connection under way.
STATES = "seqcore.remote_states"
#: The form's fields, by the register's (REST) names.
FORM_FIELDS = {"name": "name", "baseUrl": "base_url", "kind": "kind",
               "graphqlUrl": "graphql_url", "description": "description",
               "clientId": "client_id", "clientSecret": "client_secret"}
EMPTY = dict.fromkeys(FORM_FIELDS.values(), "") | {"kind": "irida"}


def _remote(request: Request) -> RemoteApi:
    key = request.matchdict["id"]
    try:
        if len(key) >= 10:
            raise NotFound()
        return find_remote_api(request.db, int(key))
    except NotFound:
        raise not_found() from None


def callback_url(request: Request, remote: RemoteApi) -> str:
    """This install's redirect URI for ``remote``: what its client must be registered with
    there."""
    return str(request.route_url("web.remote.callback", id=remote.id))


# -- each person's connections ------------------------------------------------------------


def remotes_page(request: Request, status: int = 200, error: str | None = None) -> Response:
    identity = signed_in(request)
    connections = {c.remote_api_id: c for c in request.db.scalars(
        select(RemoteConnection).where(RemoteConnection.user_id == identity.user_id))}
    return page(request, "remotes.mako", status=status, remotes=remote_apis(request.db),
                connections=connections, error=error)


def connect(request: Request) -> Response:
    identity = signed_in(request)
    remote = _remote(request)
    if remote.kind == "irida-next":
        return connect_with_personal_token(request, remote, identity.user_id)
    location, state = begin(request.db, remote, identity.user_id, callback_url(request, remote))
    states = dict(request.session.get(STATES) or {})
    states[str(remote.id)] = state
    request.session[STATES] = states
    return HTTPSeeOther(location=location)


def connect_with_personal_token(request: Request, remote: RemoteApi, user_id: int
                                ) -> Response:
    """Connect to an IRIDA Next remote with the e-mail and personal access token posted;
    the page again with the reason when the remote does not take them."""
    try:
        connect_with_token(request.db, remote, user_id, str(request.POST.get("email", "")),
                           str(request.POST.get("token", "")))
    except AuthorizationFailed as failed:
        request.tm.doom()
        return _refused(request, failed)
    return _connected(request, remote)


def callback(request: Request) -> Response:
    identity = signed_in(request)
    remote = _remote(request)
    states = dict(request.session.get(STATES) or {})
    session_state = states.pop(str(remote.id), None)
    request.session[STATES] = states  # one use, whatever comes of it
    query = request.GET
    try:
        finish(request.db, remote, identity.user_id, query.get("state"), query.get("code"),
               error=query.get("error"), error_description=query.get("error_description"),
               session_state=session_state)
    except AuthorizationFailed as failed:
        # finish() writes the connection last, so nothing of it is stored; the authorization
        # it consumed stays consumed (committed), whatever the remote said.
        return _refused(request, failed)
    return _connected(request, remote)


def _refused(request: Request, failed: AuthorizationFailed) -> Response:
    """The page again with the reason: 502 when the remote could not be reached."""
    return remotes_page(request, status=502 if isinstance(failed, RemoteUnreachable) else 400,
                        error=failed.message)


def _connected(request: Request, remote: RemoteApi) -> Response:
    request.session.flash(translate(request, _("Connected to ${name}.",
                                               mapping={"name": remote.name})))
    return HTTPSeeOther(location=request.route_path("web.remotes"))


def end_connection(request: Request) -> Response:
    identity = signed_in(request)
    remote = _remote(request)
    if disconnect(request.db, remote, identity.user_id):
        message = _("Disconnected from ${name}.", mapping={"name": remote.name})
    else:
        message = _("You were not connected to ${name}.", mapping={"name": remote.name})
    request.session.flash(translate(request, message))
    return HTTPSeeOther(location=request.route_path("web.remotes"))


# -- the administrators' register ---------------------------------------------------------


def _form(request: Request) -> dict[str, str]:
    return {field: request.POST.get(field, "") for field in FORM_FIELDS.values()}


def _values(form: dict[str, str]) -> dict[str, Any]:
    """The register's values from the form: empty optional fields are absent."""
    values: dict[str, Any] = {name: form[field] for name, field in FORM_FIELDS.items()}
    if not values["graphqlUrl"].strip():
        values["graphqlUrl"] = None
    return values


def _problems(error: Invalid | Conflict) -> dict[str, str]:
    if isinstance(error, Conflict):  # the name is taken
        return {"name": error.message}
    return {FORM_FIELDS.get(key, key): " ".join(messages)
            for key, messages in error.problems.items()}


def _status(error: Invalid | Conflict) -> int:
    return 409 if isinstance(error, Conflict) else 400


def admin_page(request: Request, status: int = 200, **values: Any) -> Response:
    administrator(request)
    values.setdefault("problems", {})
    values.setdefault("form", EMPTY)
    remotes = remote_apis(request.db)
    return page(request, "remotes_admin.mako", status=status, remotes=remotes, kinds=KINDS,
                callbacks={r.id: callback_url(request, r) for r in remotes}, **values)


def create(request: Request) -> Response:
    administrator(request)
    form = _form(request)
    try:
        remote = create_remote_api(request.db, _values(form))
    except (Invalid, Conflict) as error:
        request.tm.doom()
        return admin_page(request, status=_status(error), problems=_problems(error),
                          form=form)
    request.session.flash(translate(request, _(
        "Remote API ${name} registered. Register this install's client there with the "
        "redirect URI ${uri}.", mapping={"name": remote.name,
                                         "uri": callback_url(request, remote)})))
    return HTTPSeeOther(location=request.route_path("web.admin.remotes"))


def edit_page(request: Request, status: int = 200, **values: Any) -> Response:
    administrator(request)
    remote = _remote(request)
    values.setdefault("problems", {})
    values.setdefault("form", {field: getattr(remote, field) or "" for field in
                               FORM_FIELDS.values() if field != "client_secret"}
                      | {"client_secret": ""})
    return page(request, "remote_edit.mako", status=status, remote=remote, kinds=KINDS,
                callback=callback_url(request, remote), **values)


def update(request: Request) -> Response:
    administrator(request)
    remote = _remote(request)
    form = _form(request)
    try:
        update_remote_api(request.db, remote, _values(form))
    except (Invalid, Conflict) as error:
        request.tm.doom()
        return edit_page(request, status=_status(error), problems=_problems(error),
                         form=form)
    request.session.flash(translate(request, _("Remote API ${name} changed.",
                                               mapping={"name": remote.name})))
    return HTTPSeeOther(location=request.route_path("web.admin.remotes"))


def remove(request: Request) -> Response:
    administrator(request)
    remote = _remote(request)
    name = remote.name
    delete_remote_api(request.db, remote)
    request.session.flash(translate(request, _("Remote API ${name} deleted.",
                                               mapping={"name": name})))
    return HTTPSeeOther(location=request.route_path("web.admin.remotes"))


def includeme(config: Configurator) -> None:
    add_page(config, "web.remotes", "/-/remotes", remotes_page)
    one = "/-/remotes/{id:\\d+}"
    add_page(config, "web.remote.connect", one + "/connect", connect, method="POST")
    add_page(config, "web.remote.callback", one + "/callback", callback)
    add_page(config, "web.remote.disconnect", one + "/disconnect", end_connection,
             method="POST")
    base = "/-/admin/remotes"
    add_page(config, "web.admin.remotes", base, admin_page)
    add_page(config, "web.admin.remotes", None, create, method="POST")
    add_page(config, "web.admin.remote", base + "/{id:\\d+}", edit_page)
    add_page(config, "web.admin.remote", None, update, method="POST")
    add_page(config, "web.admin.remote.delete", base + "/{id:\\d+}/delete", remove,
             method="POST")
