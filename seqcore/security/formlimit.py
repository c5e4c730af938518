"""Form bodies are refused by size before they are read.

Pyramid parses a form body (``request.POST``) whole and in memory, and the CSRF check and
oauthlib read it before any view can look at its size: a 64 MiB form sent to the sign-in
page or the token endpoint, with no credentials at all, used to cost the server several
times that in memory. This tween answers 413 first, from ``Content-Length`` alone, for

- every body sent to a web page (anything outside ``/api``),
- every body sent to the OAuth endpoints (``/api/oauth/...``: token, revoke, consent form),
- every ``application/x-www-form-urlencoded`` body anywhere;

and a body without a length (chunked) is read only up to the limit. JSON bodies and uploads
keep their own, larger limits (``seqcore.max_body_bytes``, ``seqcore.upload.max_bytes``), and
so do the pages that take a file in a multipart form (a spreadsheet import): they are named
with :func:`allow_large_forms` and get ``seqcore.max_body_bytes``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any, cast

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from seqcore.security.answers import is_api, json_error

FORM_TYPE = "application/x-www-form-urlencoded"
BODYLESS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})
#: The registry's list of path patterns whose multipart forms may be as large as a JSON body.
LARGE_FORMS = "seqcore.security.large_forms"


def allow_large_forms(registry: Registry, pattern: str) -> None:
    """Let multipart forms sent to the paths ``pattern`` (a regular expression matching the
    whole path) be as large as ``seqcore.max_body_bytes``: a page taking a file."""
    registry.setdefault(LARGE_FORMS, []).append(re.compile(pattern))


def form_limit(request: Request, limit: int) -> int:
    """The limit of this request's form: ``limit``, or ``seqcore.max_body_bytes`` for a
    multipart form sent to a path named by :func:`allow_large_forms` with a session cookie
    seqcore signed for an account (a client that never signed in cannot make the server parse
    a large form; the session row itself is checked by the page, inside the transaction,
    which this tween runs before)."""
    if (request.content_type or "").lower() != "multipart/form-data":
        return limit
    if not any(p.fullmatch(request.path_info) for p in request.registry.get(LARGE_FORMS, ())):
        return limit
    from seqcore.security.policy.session import SESSION_KEY, SESSION_USER

    if not (request.session.get(SESSION_USER) and request.session.get(SESSION_KEY)):
        return limit
    return max(limit, int(request.registry.settings["seqcore.max_body_bytes"]))


def limited(request: Request) -> bool:
    """Whether the form limit applies to this request's body."""
    path = request.path_info
    if not is_api(path) or path.startswith("/api/oauth/"):
        return True
    return (request.content_type or "").lower() == FORM_TYPE


def too_large(request: Request, limit: int) -> Response:
    message = f"The request body is larger than {limit} bytes."
    if is_api(request.path_info):
        response = json_error(413, message)
    else:
        response = Response(f"<!doctype html><title>Too large</title><h1>Request too large</h1>"
                            f"<p>{html.escape(message)}</p>", status=413,
                            content_type="text/html", charset="utf-8")
    # No "Connection: close" here: it is hop-by-hop, which WSGI forbids an application to
    # send (waitress refuses the response); the server decides about the connection.
    return response


def unparsable(request: Request) -> Response | None:
    """400 for a form the parser cannot read (a part declaring an unknown charset, broken
    framing), found here once, while the body is small, rather than as a 500 wherever a
    view or the CSRF check first touches ``request.POST`` (which keeps what it parsed)."""
    content_type = (request.content_type or "").lower()
    if content_type not in (FORM_TYPE, "multipart/form-data"):
        return None
    message = None
    try:
        fields = request.POST
    # AttributeError: WebOb fails so on a file part with an empty file name and a charset
    # it does not know (it tries to decode the bytes as text and then re-encode them).
    except (ValueError, LookupError, UnicodeDecodeError, AttributeError):
        message = "The form body could not be parsed."
    else:
        # No name or secret seqcore stores holds a NUL (PostgreSQL's text cannot).
        if any(isinstance(value, str) and "\x00" in key + value
               for key, value in fields.items()):
            message = "The form holds a NUL character, which no field may contain."
    if message is not None:
        if is_api(request.path_info):
            return json_error(400, message)
        return Response(message, status=400, content_type="text/plain", charset="utf-8")
    return None


def _has_body(request: Request) -> bool:
    if request.content_length is not None:
        return cast("bool", request.content_length > 0)
    return ("chunked" in (request.headers.get("Transfer-Encoding") or "").lower()
            or bool(request.environ.get("wsgi.input_terminated")))


def form_limit_tween_factory(handler: Callable[..., Any], registry: Registry) -> Callable[..., Any]:
    form_bytes = int(registry.settings["seqcore.max_form_bytes"])

    def tween(request: Request) -> Response:
        if request.method in BODYLESS or not limited(request) or not _has_body(request):
            return handler(request)
        limit = form_limit(request, form_bytes)
        if request.content_length is not None:
            if request.content_length > limit:
                return too_large(request, limit)
        else:
            # No length given: read at most one byte past the limit, then hand on what came.
            data = request.body_file_raw.read(limit + 1)
            if len(data) > limit:
                return too_large(request, limit)
            request.body = data
        return unparsable(request) or handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    config.add_tween("seqcore.security.formlimit.form_limit_tween_factory", under=INGRESS)
