"""The URL of every request must be UTF-8 before anything reads it.

WebOb decodes the path and the query string lazily and strictly, so ``/api/projects/%FF`` or
``?search=%ED%A0%80`` (an encoded surrogate) raised ``UnicodeDecodeError`` wherever code first
touched ``request.path_info`` or ``request.GET``: routing, a view, a form. This tween, the
outermost of seqcore's, decodes both once and answers 400 when they are not UTF-8, so no
route, view or page can meet such a URL.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

MESSAGE = "The URL is not valid UTF-8: percent-encode the UTF-8 bytes of each character."


def bad_url_response(raw_path: str) -> Response:
    """400 in the shape the path's clients read: GraphQL's ``errors``, the REST API's
    ``{"message": ...}``, or plain text for web pages."""
    if raw_path == "/api/graphql":
        body = {"errors": [{"message": MESSAGE, "extensions": {"code": "bad_request"}}]}
    elif raw_path == "/api" or raw_path.startswith("/api/"):
        body = {"message": MESSAGE}
    else:
        return Response(MESSAGE, status=400, content_type="text/plain", charset="utf-8")
    return Response(json.dumps(body), status=400, content_type="application/json",
                    charset="utf-8")


def utf8_url_tween_factory(handler: Callable, registry: Registry) -> Callable:
    def tween(request: Request) -> Response:
        try:
            request.path_info  # noqa: B018 - decoding is the check
            request.GET  # noqa: B018 - decodes (and keeps) every parameter
        except UnicodeDecodeError:
            return bad_url_response(request.environ.get("PATH_INFO", ""))
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    config.add_tween("seqcore.rest.requesturl.utf8_url_tween_factory", under=INGRESS,
                     over="seqcore.security.tweens.collapse_slashes_tween_factory")
