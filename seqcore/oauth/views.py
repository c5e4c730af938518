"""``/api/oauth/token``, ``/api/oauth/revoke``, ``/api/oauth/introspect``, the
authorization-code consent page and the server's metadata
(``/.well-known/oauth-authorization-server``)."""

from __future__ import annotations

import html
import json
import secrets
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from oauthlib.oauth2 import FatalClientError, OAuth2Error, Server
from pyramid.config import Configurator
from pyramid.csrf import check_csrf_token
from pyramid.httpexceptions import HTTPException
from pyramid.request import Request
from pyramid.response import Response

from seqcore.framework.contrib import Endpoint, View
from seqcore.models.user import User
from seqcore.oauth.validator import GRANT_TYPES, SCOPES, Validator, issuer
from seqcore.security.policy import session_identity
from seqcore.security.signin import LOCKED_MESSAGE, Outcome, authenticate

FORM_TYPE = "application/x-www-form-urlencoded"


def _token(request: object) -> str:
    return secrets.token_urlsafe(32)


def oauth_server(request: Request) -> Server:
    server = Server(
        Validator(request),
        token_expires_in=lambda oauth_request: oauth_request.client.access_token_seconds,
        token_generator=_token,
        refresh_token_generator=_token,
    )
    # Only the grants seqcore serves: any other is unsupported_grant_type (400).
    for grant in set(server._grant_types) - GRANT_TYPES:
        del server._grant_types[grant]
    return server


class NotAForm(HTTPException):
    """A body that is not a form, answered in RFC 6749's error shape (a 415).

    Raised, not returned, so that the request's transaction is aborted like any refusal.
    The endpoints under ``/api/oauth`` are a transport of their own beside REST: they speak
    OAuth's wire format and share nothing of REST's error bodies."""

    def __init__(self, endpoint: str = "token endpoint") -> None:
        super().__init__()
        self.status = 415
        self.content_type = "application/json"
        self.charset = "utf-8"
        self.body = json.dumps({
            "error": "invalid_request",
            "error_description": f"The {endpoint} takes {FORM_TYPE} bodies.",
        }).encode("utf-8")

    def prepare(self, environ: dict) -> None:  # keep the JSON body, not a generated page
        return


def _form_body(request: Request, endpoint: str = "token endpoint") -> str:
    if (request.content_type or "").lower() != FORM_TYPE:
        raise NotAForm(endpoint)
    return request.body.decode("utf-8", errors="replace")


def _wire_token_body(body: str) -> str:
    """The token response as IRIDA clients parse it: ``token_type`` in lower case, and no
    JSON ``true``/``false``/``null`` (the uploader reads it with ``ast.literal_eval``)."""
    data = json.loads(body)
    if "token_type" in data:
        data["token_type"] = str(data["token_type"]).lower()
    data = {k: v for k, v in data.items() if v is not None and not isinstance(v, bool)}
    return json.dumps(data)


def _endpoint_answer(call: Callable[..., tuple[dict[str, str], str, int]],
                     request: Request, endpoint: str = "token endpoint",
                     ) -> tuple[dict[str, str], str, int]:
    """Call an oauthlib endpoint; an error it raises instead of returning (credentials in
    the query string, say) is answered in RFC 6749's shape, a 4xx, like the ones it returns."""
    try:
        return call(request.url, http_method="POST", body=_form_body(request, endpoint),
                    headers=dict(request.headers))
    except OAuth2Error as err:
        return dict(err.headers), err.json, err.status_code


def _json_answer(headers: dict[str, str], body: str, status: int) -> Response:
    """An oauthlib endpoint's answer as a JSON response, with the headers it asked for."""
    response = Response(body=body, status=status, content_type="application/json",
                        charset="utf-8")
    response.headers.update({k: v for k, v in headers.items() if k != "Content-Type"})
    return response


def token(request: Request) -> Response:
    headers, body, status = _endpoint_answer(oauth_server(request).create_token_response,
                                             request)
    if status == 200:
        body = _wire_token_body(body)
    response = _json_answer(headers, body, status)
    response.headers["Cache-Control"] = "no-store"
    return response


def revoke(request: Request) -> Response:
    headers, body, status = _endpoint_answer(
        oauth_server(request).create_revocation_response, request)
    return _json_answer(headers, body or "{}", status)


def introspect(request: Request) -> Response:
    """RFC 7662: whether a token is live, and for whom, to an authenticated client.

    oauthlib parses the request and authenticates the client (HTTP Basic or form fields,
    as at the token endpoint) and sends ``Cache-Control: no-store``;
    :meth:`Validator.introspect_token` decides what the client may learn. Nothing is
    written."""
    return _json_answer(*_endpoint_answer(
        oauth_server(request).create_introspect_response, request, "introspection endpoint"))


# Client authentication every endpoint under /api/oauth accepts (Validator.authenticate_client).
CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]
METADATA_PATH = "/.well-known/oauth-authorization-server"


def server_metadata(request: Request) -> Response:
    """RFC 8414: where the endpoints are and what they accept, for clients to discover.

    Every URL is built from the application URL (with the scheme and host a trusted proxy
    forwarded) and the registered routes; the lists are the ones the endpoints enforce
    (PKCE's ``plain`` method only where ``seqcore.oauth.pkce_plain`` allows it)."""
    methods = ["S256"]
    if request.registry.settings.get("seqcore.oauth.pkce_plain"):
        methods.append("plain")
    document = {
        "issuer": issuer(request),
        "authorization_endpoint": request.route_url("oauth.authorize"),
        "token_endpoint": request.route_url("oauth.token"),
        "revocation_endpoint": request.route_url("oauth.revoke"),
        "introspection_endpoint": request.route_url("oauth.introspect"),
        "grant_types_supported": sorted(GRANT_TYPES),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "scopes_supported": list(SCOPES),
        "token_endpoint_auth_methods_supported": CLIENT_AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": CLIENT_AUTH_METHODS,
        "introspection_endpoint_auth_methods_supported": CLIENT_AUTH_METHODS,
        "code_challenge_methods_supported": methods,
    }
    return Response(json.dumps(document), content_type="application/json", charset="utf-8")


def metadata_method_not_allowed(request: Request) -> Response:
    response = Response(json.dumps({"error": "invalid_request",
                                    "error_description": "The metadata is read with GET."}),
                        status=405, content_type="application/json", charset="utf-8")
    response.allow = ("GET", "HEAD")
    return response


CONSENT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize {client} - seqcore</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main>
<h1>Authorize {client}</h1>
<p>The application <strong>{client}</strong> asks for access to your seqcore account with the
scopes: <strong>{scopes}</strong>.</p>
{error}
<form method="post" action="{action}">
{hidden}
{credentials}
<p><button type="submit" name="decision" value="approve">Authorize</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p>
</form></main></body></html>
"""

OAUTH_PARAMS = ("response_type", "client_id", "redirect_uri", "scope", "state",
                "code_challenge", "code_challenge_method")

PASSWORD_FIELDS = """<p><label for="username">Username</label><br>
<input id="username" name="username" autocomplete="username" required></p>
<p><label for="password">Password</label><br>
<input id="password" name="password" type="password" autocomplete="current-password" required>
</p>"""
SIGNED_IN = """<p>You are signed in as <strong>{username}</strong>.</p>
<input type="hidden" name="csrf_token" value="{csrf}">"""


def _consent_page(request: Request, params: dict[str, str], scopes: list[str],
                  error: str = "", status: int = 200) -> Response:
    hidden = "\n".join(
        f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
        for k, v in params.items() if k in OAUTH_PARAMS and v is not None
    )
    # A browser signed in to seqcore is asked only to approve; the form then carries the
    # session's CSRF token instead of a password (another site cannot approve for it).
    signed_in = session_identity(request)
    credentials = PASSWORD_FIELDS if signed_in is None else SIGNED_IN.format(
        username=html.escape(signed_in.username),
        csrf=html.escape(request.session.get_csrf_token()))
    page = CONSENT_PAGE.format(
        client=html.escape(params.get("client_id", "")), scopes=html.escape(" ".join(scopes)),
        action=html.escape(request.path_url), hidden=hidden, credentials=credentials,
        error=f'<p role="alert">{html.escape(error)}</p>' if error else "",
    )
    return Response(page, status=status, content_type="text/html", charset="utf-8")


def _oauth_error_page(err: OAuth2Error) -> Response:
    return Response(f"<!doctype html><title>Authorization error</title><h1>Authorization "
                    f"error</h1><p>{html.escape(err.description or err.error)}</p>",
                    status=400, content_type="text/html", charset="utf-8")


def _plain_refused(request: Request, params: Mapping[str, Any]) -> Response | None:
    """PKCE's ``plain`` method (or a challenge without a method, which means plain) is
    refused unless ``seqcore.oauth.pkce_plain`` allows it: S256 is what clients must use.
    The redirect URI was validated before: the refusal goes back to it, as RFC 6749's."""
    if not params.get("code_challenge") or request.registry.settings.get(
            "seqcore.oauth.pkce_plain"):
        return None
    if (params.get("code_challenge_method") or "plain") == "S256":
        return None
    redirect = params.get("redirect_uri") or oauth_server(
        request).request_validator.get_default_redirect_uri(params.get("client_id"), None)
    query = {"error": "invalid_request",
             "error_description": "code_challenge_method must be S256 (plain is not accepted)."}
    if params.get("state"):
        query["state"] = params["state"]
    separator = "&" if "?" in redirect else "?"
    return Response(status=302, location=f"{redirect}{separator}{urlencode(query)}")


def authorize_get(request: Request) -> Response:
    server = oauth_server(request)
    try:
        scopes, _ = server.validate_authorization_request(
            request.url, http_method="GET", body=None, headers=dict(request.headers))
    except FatalClientError as err:
        return _oauth_error_page(err)
    except OAuth2Error as err:
        return Response(status=302, location=err.in_uri(err.redirect_uri))
    refused = _plain_refused(request, request.GET)
    if refused is not None:
        return refused
    return _consent_page(request, dict(request.GET), scopes)


def authorize_post(request: Request) -> Response:
    params = {k: request.POST.get(k) for k in OAUTH_PARAMS if request.POST.get(k) is not None}
    uri = request.path_url + "?" + urlencode(params)
    server = oauth_server(request)
    try:
        scopes, _ = server.validate_authorization_request(
            uri, http_method="GET", body=None, headers={})
    except FatalClientError as err:
        return _oauth_error_page(err)
    except OAuth2Error as err:
        return Response(status=302, location=err.in_uri(err.redirect_uri))
    refused = _plain_refused(request, params)
    if refused is not None:
        return refused
    if request.POST.get("decision") != "approve":
        redirect = params.get("redirect_uri") or server.request_validator.get_default_redirect_uri(
            params.get("client_id"), None)
        query = {"error": "access_denied"}
        if params.get("state"):
            query["state"] = params["state"]
        separator = "&" if "?" in redirect else "?"
        return Response(status=302, location=f"{redirect}{separator}{urlencode(query)}")
    signed_in = session_identity(request)
    if signed_in is not None and not request.POST.get("password"):
        # Approval by the signed-in browser: its session's CSRF token must come back.
        if not check_csrf_token(request, raises=False):
            return _consent_page(request, params, scopes, status=400,
                                 error="This form has expired; approve again.")
        user = request.db.get(User, signed_in.user_id)
    else:
        result = authenticate(request, request.POST.get("username", ""),
                              request.POST.get("password", ""))
        if result.outcome is Outcome.LOCKED:
            return _consent_page(request, params, scopes, error=LOCKED_MESSAGE, status=429)
        if result.outcome is not Outcome.OK:
            return _consent_page(request, params, scopes,
                                 error="The username or password is not correct.", status=400)
        user = result.user
    headers, _, status = server.create_authorization_response(
        uri, http_method="GET", body=None, headers={}, scopes=scopes,
        credentials={"user": user},
    )
    return Response(status=status, headers=headers)


ENDPOINTS = [
    Endpoint("oauth.token", "/api/oauth/token", {"POST": View(token, renderer=None)},
             traverse="/api",
             description="OAuth2 token endpoint: password, authorization_code, refresh_token."),
    Endpoint("oauth.revoke", "/api/oauth/revoke", {"POST": View(revoke, renderer=None)},
             traverse="/api", description="OAuth2 token revocation (RFC 7009)."),
    Endpoint("oauth.authorize", "/api/oauth/authorize", {
        "GET": View(authorize_get, renderer=None),
        "POST": View(authorize_post, renderer=None),
    }, traverse="/api", description="Authorization-code flow: the consent page."),
    Endpoint("oauth.introspect", "/api/oauth/introspect",
             {"POST": View(introspect, renderer=None)}, traverse="/api",
             description="OAuth2 token introspection (RFC 7662), for resource servers."),
]


def not_a_form_view(exc: NotAForm, request: Request) -> Response:
    return exc


def includeme(config: Configurator) -> None:
    config.add_exception_view(not_a_form_view, context=NotAForm)
    for endpoint in ENDPOINTS:
        config.add_endpoint(endpoint)
    # Outside /api: no bearer token is asked for (RFC 8414 metadata is public).
    config.add_route("oauth.metadata", METADATA_PATH)
    config.add_view(server_metadata, route_name="oauth.metadata",
                    request_method=("GET", "HEAD"))
    config.add_view(metadata_method_not_allowed, route_name="oauth.metadata")
