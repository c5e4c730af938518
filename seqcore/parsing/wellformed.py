"""What every request's head must be before anything reads it: a UTF-8 URL, a known
charset and, for multipart bodies, a boundary form parsers accept.

WebOb decodes the path and the query string lazily and strictly, so ``/api/projects/%FF`` or
``?search=%ED%A0%80`` (an encoded surrogate) raised ``UnicodeDecodeError`` wherever code first
touched ``request.path_info`` or ``request.GET``: routing, a view, a form; a body whose
``Content-Type`` names a charset Python does not know (``charset=foo``) raised
``LookupError`` wherever it was decoded; a multipart boundary that is empty or not ASCII
raised ``ValueError`` in the form parser. This tween, the outermost of seqcore's, checks the
head once for every request (REST, GraphQL, OAuth, web pages, a plugin's endpoints) without
reading the body, and answers 400 in the shape the path's clients read.

It also gives the path its one canonical spelling before anything routes it
(:func:`canonical_path`): runs of slashes collapsed (the IRIDA uploader sends
``/api//version``) and, under ``/api``, one trailing slash dropped (the legacy uploader starts
at ``/api/``; IRIDA answers every collection with and without one). Doing it here, once,
means every route (the core's, OAuth's, GraphQL's, a plugin's endpoints) answers both
spellings the same way, with the same status, body and links, and no route declares its
slashed twin; links are built from the canonical path, so they never end in a slash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from email.message import Message
from typing import Any

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from seqcore.parsing.jsontext import JSONInputError, codec_for, declared_charset

URL_MESSAGE = "The URL is not valid UTF-8: percent-encode the UTF-8 bytes of each character."
DOT_SEGMENT_MESSAGE = "The path has a '.' or '..' segment; send the resolved path."
NUL_MESSAGE = "The URL holds a NUL character (%00), which no name or value may contain."
BOUNDARY_MESSAGE = ("The multipart boundary is missing or invalid (1 to 200 printable ASCII "
                    "characters, not ending in a space).")
# Printable ASCII, not ending in a space, at most 200 characters: what form parsers accept
# (RFC 2046 asks for 70 characters of a smaller set, but common clients send characters
# such as '$').
_BOUNDARY = re.compile(r"[ -~]{0,199}[!-~]")
_SLASHES = re.compile(r"/{2,}")


def canonical_path(path: str) -> str:
    """``path`` as the routes are declared: ``//`` (and longer runs) collapsed to ``/``, then
    under ``/api`` a trailing ``/`` removed, so ``/api/`` is ``/api`` and ``/api/projects/``
    (or ``/api/projects//``) is ``/api/projects``. Other paths (web pages) keep a trailing
    slash: the ruling covers the REST API only."""
    if "//" in path:
        path = _SLASHES.sub("/", path)
    if path.endswith("/") and path.startswith("/api/"):
        path = path[:-1]
    return path


def bad_request_response(raw_path: str, message: str) -> Response:
    """400 in the shape the path's clients read: GraphQL's ``errors``, the REST API's
    ``{"message": ...}``, or plain text for web pages."""
    raw_path = canonical_path(raw_path)
    body: dict[str, Any]
    if raw_path == "/api/graphql":
        body = {"errors": [{"message": message, "extensions": {"code": "bad_request"}}]}
    elif raw_path == "/api" or raw_path.startswith("/api/"):
        body = {"message": message}
    else:
        return Response(message, status=400, content_type="text/plain", charset="utf-8")
    return Response(json.dumps(body), status=400, content_type="application/json",
                    charset="utf-8")


def problem(request: Request) -> str | None:
    """What is malformed about the request's head, or ``None``."""
    try:
        path = request.path_info
        request.GET  # noqa: B018 - decodes (and keeps) every parameter
    except UnicodeDecodeError:
        return URL_MESSAGE
    if "\x00" in path or "\x00" in request.query_string or any(
            "\x00" in key or "\x00" in value for key, value in request.GET.items()):
        # No name, id or text seqcore stores holds one (PostgreSQL's text cannot), so
        # nothing can match: refused here rather than by the database as a 500.
        return NUL_MESSAGE
    if any(segment in (".", "..") for segment in path.split("/")):
        # Traversal would resolve them (``/api/analysisTypes/..`` is the API root) and hand
        # a view a context of another kind; clients remove dot segments before sending.
        return DOT_SEGMENT_MESSAGE
    content_type = request.headers.get("Content-Type")
    try:
        codec_for(declared_charset(content_type))
    except JSONInputError as err:
        return err.message
    if content_type and content_type.lstrip().lower().startswith("multipart/"):
        message = Message()
        message["Content-Type"] = content_type
        boundary = message.get_param("boundary")
        if not isinstance(boundary, str) or not _BOUNDARY.fullmatch(boundary):
            return BOUNDARY_MESSAGE
    return None


def wellformed_tween_factory(handler: Callable[..., Any], registry: Registry) -> Callable[..., Any]:
    def tween(request: Request) -> Response:
        reason = problem(request)
        if reason is not None:
            return bad_request_response(request.environ.get("PATH_INFO", ""), reason)
        path = canonical_path(request.path_info)
        if path != request.path_info:
            request.path_info = path
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    # Outermost of seqcore's: every other tween reads the path or the body's type, and sees
    # the canonical path.
    config.add_tween("seqcore.parsing.wellformed.wellformed_tween_factory", under=INGRESS,
                     over=("seqcore.security.proxies.forwarded_tween_factory",
                           "seqcore.security.formlimit.form_limit_tween_factory",
                           "seqcore.security.tweens.api_auth_tween_factory"))
