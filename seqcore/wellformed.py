"""Refusing malformed HTTP before anything reads it.

The path, the query string and the ``Content-Type`` parameters are decoded lazily by the
web framework, wherever a view or tween first touches them; a byte sequence that is not
UTF-8, a charset Python does not know, or a multipart boundary that no parser accepts would
then fail deep inside that code as a 500. This tween, outermost of all, checks them once for
every request (REST, GraphQL, OAuth and web pages alike) and answers 400 with a
``{"message": ...}`` body, so that no endpoint has to remember to.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from email.message import Message

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

# Printable ASCII, not ending in a space, at most 200 characters: what every form parser
# accepts (RFC 2046 asks for 70 characters of a smaller set, but common clients send
# characters such as '$' and '%').
_BOUNDARY = re.compile(r"[ -~]{0,199}[!-~]")


def problem(request: Request) -> str | None:
    """What is malformed about the request's framing, or ``None``."""
    try:
        request.path_info  # noqa: B018  (decoding is the check)
    except UnicodeDecodeError:
        return "The request path is not valid UTF-8."
    try:
        request.GET  # noqa: B018
    except UnicodeDecodeError:
        return "The query string is not valid UTF-8."
    header = request.headers.get("Content-Type")
    if not header:
        return None
    message = Message()
    message["Content-Type"] = header
    charset = message.get_param("charset")
    if isinstance(charset, str) and charset:
        try:
            codecs.lookup(charset)
        except LookupError:
            return f"The charset {charset[:40]!r} of the request body is not supported."
    if message.get_content_maintype() == "multipart":
        boundary = message.get_param("boundary")
        if not isinstance(boundary, str) or not _BOUNDARY.fullmatch(boundary):
            return ("The multipart boundary is missing or invalid (1 to 200 printable ASCII "
                    "characters, not ending in a space).")
    return None


def wellformed_tween_factory(handler: Callable, registry: Registry) -> Callable:
    def tween(request: Request) -> Response:
        reason = problem(request)
        if reason is not None:
            return Response(status=400, json_body={"message": reason})
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    # Outermost: before the slashes are collapsed, which reads the path.
    config.add_tween("seqcore.wellformed.wellformed_tween_factory", under=INGRESS,
                     over="seqcore.security.tweens.collapse_slashes_tween_factory")
