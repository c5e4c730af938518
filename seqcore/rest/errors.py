"""Error responses: JSON bodies for every ``/api`` error, never an HTML page or a 500 for bad
input.

Body shapes: validation ``{"<field>": ["<message>", ...]}``; everything else
``{"message": "..."}`` (plus ``acceptable-properties`` for unknown fields).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import (
    HTTPException,
    HTTPForbidden,
    HTTPMethodNotAllowed,
    HTTPNotFound,
)
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy.exc import IntegrityError

from seqcore.errors.domain import Conflict, DomainError, Forbidden, Invalid, NotFound
from seqcore.security.answers import is_api

log = logging.getLogger(__name__)

STATUS_MESSAGES = {
    400: "The request could not be understood.",
    403: "You are not allowed to do this.",
    404: "The resource was not found.",
    405: "Request method not supported.",
    406: "None of the media types in the Accept header can be produced.",
    409: "The request conflicts with the current state of the resource.",
    413: "The request body is too large.",
    415: "The content type you provided is not supported by this resource.",
    500: "Internal server error.",
}


class ApiError(HTTPException):
    """An HTTP error with a JSON body; raise it anywhere inside a request.

    Raising (rather than returning) lets pyramid_tm see an exception and roll back whatever
    the request wrote before it failed.
    """

    def __init__(self, status: int, body: Mapping[str, Any] | None = None,
                 message: str | None = None, headers: Mapping[str, str] | None = None) -> None:
        payload = dict(body) if body is not None else {
            "message": message or STATUS_MESSAGES.get(status, "Error.")
        }
        super().__init__()
        self.status = status
        self.content_type = "application/json"
        self.charset = "utf-8"
        self.body = json.dumps(payload).encode("utf-8")
        self.payload = payload
        if headers:
            self.headers.update(headers)

    def prepare(self, environ: dict) -> None:  # keep our JSON body, not a generated page
        return


def json_error(status: int, message: str | None = None,
               headers: Mapping[str, str] | None = None, **extra: Any) -> Response:
    body = {"message": message or STATUS_MESSAGES.get(status, "Error."), **extra}
    response = Response(status=status, json_body=body)
    if headers:
        response.headers.update(headers)
    return response


def validation_error(errors: Mapping[str, list[str]]) -> ApiError:
    return ApiError(400, body={k: list(v) for k, v in errors.items()})


DOMAIN_STATUS = ((NotFound, 404), (Forbidden, 403), (Conflict, 409))


def api_error(exc: DomainError) -> ApiError:
    """A domain error in REST's words: ``Invalid`` is a 400 with the field problems (or a
    message and its extras), ``NotFound`` 404, ``Forbidden`` 403, ``Conflict`` 409.

    An :class:`ApiError`, so the body is written exactly as every other REST error's."""
    if isinstance(exc, Invalid):
        if exc.has_message or not exc.problems:
            return ApiError(400, body={"message": exc.message, **exc.extra})
        return validation_error(exc.problems)
    status = next((code for kind, code in DOMAIN_STATUS if isinstance(exc, kind)), 400)
    return ApiError(status, message=exc.message)


def domain_error_view(exc: DomainError, request: Request) -> Response:
    return api_error(exc)


def api_error_view(exc: ApiError, request: Request) -> Response:
    return exc


def not_found_view(exc: HTTPNotFound, request: Request) -> Response:
    if not is_api(request.path_info):
        return exc
    return json_error(404, "The resource was not found.")


def forbidden_view(exc: HTTPForbidden, request: Request) -> Response:
    """403 only for what the caller may see; a thing the caller cannot read is 404."""
    if not is_api(request.path_info):
        return exc
    from seqcore.resources.base import readable

    context = getattr(exc, "context", None) or request.context
    if context is not None and not readable(request, context):
        return json_error(404, "The resource was not found.")
    from seqcore.security.archived import archive_message, refused_by_archive

    if refused_by_archive(getattr(exc, "result", None)):
        return json_error(403, archive_message(request.db, context))
    return json_error(403, "You are not allowed to do this.")


def method_not_allowed_view(exc: HTTPMethodNotAllowed, request: Request) -> Response:
    response = json_error(405, f"Request method '{request.method}' not supported.")
    allow = exc.headers.get("Allow") or getattr(exc, "allow", None)
    if allow:
        response.headers["Allow"] = allow if isinstance(allow, str) else ", ".join(allow)
    return response


def http_exception_view(exc: HTTPException, request: Request) -> Response:
    if not is_api(request.path_info) or exc.status_code < 400:
        return exc
    response = json_error(exc.status_code, STATUS_MESSAGES.get(exc.status_code, exc.title))
    for key in ("Allow", "WWW-Authenticate", "Location"):
        if key in exc.headers:
            response.headers[key] = exc.headers[key]
    return response


def integrity_error_view(exc: IntegrityError, request: Request) -> Response:
    """409 for a write the database refused (a concurrent request stored the same unique key
    first, or removed a row this one refers to), whether it surfaced when a view flushed or
    when pyramid_tm committed after the view returned. Nothing of the request is kept:
    pyramid_tm aborts the transaction, since an exception view answered."""
    from seqcore.errors.conflicts import conflict_message

    message = conflict_message(exc)
    log.info("Conflict on %s %s: %s", request.method, request.path_info, exc.orig)
    if request.path_info.startswith("/api/graphql"):
        return Response(status=409, json_body={"data": None, "errors": [
            {"message": message, "extensions": {"code": "conflict"}}]})
    if not is_api(request.path_info):
        return Response(status=409, content_type="text/plain", charset="utf-8",
                        text=message + "\n")
    return json_error(409, message)


def inputs_in_use_view(exc: Any, request: Request) -> Response:
    """409 naming the submissions that used the data; those the caller may not read are
    counted, not named."""
    from seqcore.resources.base import readable

    collection = request.root["api"]["analysisSubmissions"]
    named, hidden = [], 0
    for submission_id, name in exc.submissions:
        try:
            context = collection[str(submission_id)]
        except KeyError:
            continue
        if readable(request, context):
            named.append(f"{submission_id} ({name!r})")
        else:
            hidden += 1
    parts = ([", ".join(named)] if named else []) + (
        [f"{hidden} you cannot read"] if hidden else [])
    return json_error(409, f"{exc.what} is an input of analysis submission(s) "
                           f"{' and '.join(parts)}; it is kept as their record of what they "
                           "ran on.")


def server_error_view(exc: Exception, request: Request) -> Response:
    log.exception("Unhandled error on %s %s", request.method, request.path_info)
    return json_error(500, STATUS_MESSAGES[500])


def includeme(config: Configurator) -> None:
    config.add_exception_view(api_error_view, context=ApiError)
    config.add_exception_view(not_found_view, context=HTTPNotFound)
    config.add_exception_view(forbidden_view, context=HTTPForbidden)
    config.add_exception_view(method_not_allowed_view, context=HTTPMethodNotAllowed)
    config.add_exception_view(http_exception_view, context=HTTPException)
    config.add_exception_view(integrity_error_view, context=IntegrityError)
    config.add_exception_view(domain_error_view, context=DomainError)
    from seqcore.analysis.dependents import InputsInUse

    config.add_exception_view(inputs_in_use_view, context=InputsInUse)
    config.add_exception_view(server_error_view, context=Exception)
