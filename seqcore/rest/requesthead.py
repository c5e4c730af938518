"""What every request's head must be before anything reads it: a UTF-8 URL and a known
charset.

WebOb decodes the path and the query string lazily and strictly, so ``/api/projects/%FF`` or
``?search=%ED%A0%80`` (an encoded surrogate) raised ``UnicodeDecodeError`` wherever code first
touched ``request.path_info`` or ``request.GET``: routing, a view, a form; and a body whose
``Content-Type`` names a charset Python does not know (``charset=foo``) raised
``LookupError`` wherever it was decoded (forms, GraphQL form posts). This tween, the
outermost of seqcore's, decodes the URL once and checks the declared charset (without
reading the body), and answers 400 otherwise, so no route, view or page meets such a request.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from seqcore.jsontext import JSONInputError, codec_for, declared_charset

MESSAGE = "The URL is not valid UTF-8: percent-encode the UTF-8 bytes of each character."


def bad_request_response(raw_path: str, message: str = MESSAGE) -> Response:
    """400 in the shape the path's clients read: GraphQL's ``errors``, the REST API's
    ``{"message": ...}``, or plain text for web pages."""
    if raw_path == "/api/graphql":
        body = {"errors": [{"message": message, "extensions": {"code": "bad_request"}}]}
    elif raw_path == "/api" or raw_path.startswith("/api/"):
        body = {"message": message}
    else:
        return Response(message, status=400, content_type="text/plain", charset="utf-8")
    return Response(json.dumps(body), status=400, content_type="application/json",
                    charset="utf-8")


def request_head_tween_factory(handler: Callable, registry: Registry) -> Callable:
    def tween(request: Request) -> Response:
        raw_path = request.environ.get("PATH_INFO", "")
        try:
            request.path_info  # noqa: B018 - decoding is the check
            request.GET  # noqa: B018 - decodes (and keeps) every parameter
        except UnicodeDecodeError:
            return bad_request_response(raw_path)
        try:
            codec_for(declared_charset(request.headers.get("Content-Type")))
        except JSONInputError as err:
            return bad_request_response(raw_path, err.message)
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    config.add_tween("seqcore.rest.requesthead.request_head_tween_factory", under=INGRESS,
                     over="seqcore.security.tweens.collapse_slashes_tween_factory")
