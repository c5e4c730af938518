"""``/api/graphql``: authentication, request parsing, limits, execution.

Transport follows IRIDA Next: ``POST`` with a JSON body ``{query, variables, operationName}``
(or ``GET`` with the same as parameters, for queries only), and HTTP 200 for every GraphQL
answer, errors included. Where IRIDA Next answers 200 as a guest, seqcore answers 401 (no or
bad credentials), with a GraphQL-shaped body. Browser calls authenticated by the session
cookie must carry the session's CSRF token in ``X-CSRF-Token``.

The answer is bounded (``seqcore.graphql.max_response_bytes``): it is encoded piece by piece
and abandoned once past the bound, so no large body is built or sent. Each mutation field
keeps or rolls back its own writes (:func:`seqcore.graphql.mutations.base.run`); whatever
fails outside them (an oversize answer, an unexpected error while rendering a payload)
rolls back the whole request, and the answer then says so instead of reporting objects
that were not saved.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any

from graphql import GraphQLError, GraphQLFormattedError, parse, specified_rules, validate
from graphql import execute as graphql_execute
from graphql.language import OperationDefinitionNode
from pyramid.config import Configurator
from pyramid.csrf import check_csrf_token
from pyramid.request import Request
from pyramid.response import Response

from seqcore.graphql.context import Context
from seqcore.graphql.deadline import Deadline
from seqcore.graphql.documentcaps import check_document
from seqcore.graphql.limits import NoNulInStrings, limit_rule
from seqcore.graphql.loaders import Loaders
from seqcore.graphql.schema import NODE_TYPES, SCHEMA
from seqcore.parsing.jsontext import (
    JSONInputError,
    check_value,
    declared_charset,
    decode_json,
    loads,
)
from seqcore.security.policy import GRAPHQL_PATH, credentials

log = logging.getLogger(__name__)


def graphql_response(body: dict[str, Any] | bytes, status: int = 200, **headers: str
                     ) -> Response:
    encoded = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    response = Response(status=status, content_type="application/json", charset="utf-8",
                        body=encoded)
    response.headers["Cache-Control"] = "no-store"
    response.headers.update(headers)
    return response


def error_response(message: str, status: int, code: str, **headers: str) -> Response:
    return graphql_response({"errors": [{"message": message, "extensions": {"code": code}}]},
                            status, **headers)


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _json_object(raw: Any, what: str) -> dict[str, Any] | None:
    if raw in (None, "", "null"):
        return None
    if isinstance(raw, str):
        try:
            raw = loads(raw)
        except json.JSONDecodeError:
            raise BadRequest(f"'{what}' is not valid JSON.") from None
        except JSONInputError as err:
            raise BadRequest(err.message) from None
    if not isinstance(raw, dict):
        raise BadRequest(f"'{what}' must be a JSON object.")
    return raw


def read_params(request: Request) -> tuple[str, dict[str, Any] | None, str | None]:
    """``(query, variables, operationName)`` from the query string or the body."""
    content_type = (request.content_type or "").lower()
    forms = ("application/x-www-form-urlencoded", "multipart/form-data")
    if request.method == "GET":
        params: Any = request.GET
    elif content_type in forms and "webob._parsed_post_vars" in request.environ:
        # The form tween has read (bounded) and parsed this form already.
        params = request.POST
    else:
        limit = int(request.registry.settings["seqcore.max_body_bytes"])
        raw = request.body_file.read(limit + 1)
        if len(raw) > limit:
            raise BadRequest(f"The request body is larger than {limit} bytes.", 413)
        if content_type == "application/graphql":
            params = {"query": raw.decode("utf-8", errors="replace")}
        elif content_type in forms:
            # The body was read above (bounded); hand the bytes back for the form parser.
            request.body = raw
            try:
                params = request.POST
            except (ValueError, LookupError, UnicodeDecodeError):
                raise BadRequest("The form body could not be parsed.") from None
        else:
            try:
                params = decode_json(raw, declared_charset(request.headers.get("Content-Type")))
            except JSONInputError as err:
                raise BadRequest(err.message) from None
            except json.JSONDecodeError:
                raise BadRequest("The body must be JSON: {\"query\": \"...\"}.") from None
            if not isinstance(params, dict):
                raise BadRequest("The body must be a JSON object: {\"query\": \"...\"}.")
    query = params.get("query")
    if not isinstance(query, str) or not query.strip():
        raise BadRequest("No query string was present")
    operation = params.get("operationName") or None
    if operation is not None and not isinstance(operation, str):
        raise BadRequest("'operationName' must be a string.")
    variables = _json_object(params.get("variables"), "variables")
    try:  # query strings and form fields did not pass through decode_json
        check_value([query, operation, variables])
    except JSONInputError as err:
        raise BadRequest(err.message) from None
    return query, variables, operation


def _operation(document: Any, name: str | None) -> OperationDefinitionNode | None:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((o for o in operations if o.name and o.name.value == name), None)


def _formatted(request: Request, errors: list[GraphQLError]) -> list[GraphQLFormattedError]:
    """Errors as the client sees them; a resolver's unexpected exception is logged and
    reported without its internals, and nothing of the request is committed."""
    out = []
    for error in errors:
        original = error.original_error
        if original is not None and not isinstance(original, GraphQLError):
            log.error("GraphQL resolver failed at %s", error.path, exc_info=original)
            request.tm.doom()
            error = GraphQLError("Internal server error.", error.nodes, error.source,
                                 error.positions, error.path,
                                 extensions={"code": "internal_error"})
        out.append(error.formatted)
    return out


class _TooLarge(Exception):
    pass


_encode = json.JSONEncoder().encode
# How many levels of an answer are walked in Python (the envelope, the root fields, their
# connections and lists): below, each part is encoded whole by the C encoder.
_WALKED = 5


def bounded_json(body: Any, limit: int) -> bytes | None:
    """``body`` as JSON (the bytes ``json.dumps`` gives), or ``None`` as soon as it grows
    past ``limit`` bytes.

    The top levels are walked in Python and each part below them (a node of a list, a
    field's value) is encoded whole by the standard library's C encoder: abandoned early as
    before, where the pure-Python ``iterencode`` over every value had cost 6 of the 30 ms of
    a page of 100 samples with their metadata."""
    chunks: list[str] = []
    size = 0

    def put(text: str) -> None:
        nonlocal size
        size += len(text)  # ASCII (ensure_ascii): as many bytes as characters
        if size > limit:
            raise _TooLarge
        chunks.append(text)

    def walk(value: Any, depth: int) -> None:
        if depth < _WALKED and isinstance(value, list) and value:
            put("[")
            for n, item in enumerate(value):
                if n:
                    put(", ")
                walk(item, depth + 1)
            put("]")
        elif (depth < _WALKED and isinstance(value, dict) and value
              and all(type(key) is str for key in value)):
            put("{")
            for n, (key, item) in enumerate(value.items()):
                put(f"{', ' if n else ''}{_encode(key)}: ")
                walk(item, depth + 1)
            put("}")
        else:
            put(_encode(value))

    try:
        walk(body, 0)
    except _TooLarge:
        return None
    return "".join(chunks).encode("ascii")


NOT_SAVED = "Nothing in this request was saved."


def _not_saved(errors: list[dict[str, Any]], reason: str, code: str = "not_saved"
               ) -> dict[str, Any]:
    """The answer to a mutation request whose transaction was rolled back after its fields
    ran: no field's data (they would report objects that are gone), and why."""
    return {"errors": [*errors, {"message": f"{reason} {NOT_SAVED}",
                                 "extensions": {"code": code}}], "data": None}


def graphql_view(request: Request) -> Response:
    caller = credentials(request)
    if caller.identity is None:
        return error_response(caller.error or "Authentication is required.", 401,
                              "unauthenticated",
                              **{"WWW-Authenticate": 'Basic realm="seqcore GraphQL"'})
    identity = caller.identity
    if (caller.method == "session" and request.method == "POST"
            and not check_csrf_token(request, raises=False)):
        return error_response("Requests authenticated by the session must send the "
                              "session's CSRF token in the X-CSRF-Token header.", 403,
                              "csrf")
    try:
        query, variables, operation_name = read_params(request)
    except BadRequest as err:
        return error_response(err.message, err.status, "bad_request")

    settings = request.registry.settings
    deadline = Deadline(float(settings["seqcore.graphql.max_seconds"]))
    schema = request.registry[SCHEMA].graphql_schema
    max_bytes = int(settings["seqcore.graphql.max_document_bytes"])
    if len(query) > max_bytes:
        return graphql_response({"errors": [{
            "message": f"The document is longer than {max_bytes} characters "
                       "(seqcore.graphql.max_document_bytes).",
            "extensions": {"code": "document_too_large"}}]})
    try:
        document = parse(query, max_tokens=int(settings["seqcore.graphql.max_tokens"]))
    except GraphQLError as err:
        return graphql_response({"errors": [err.formatted]})
    # Caps counted in one linear pass, before validation walks the document.
    too_large = check_document(document, settings)
    if too_large is not None:
        return graphql_response({"errors": [too_large.formatted]})
    operation = _operation(document, operation_name)
    if (request.method == "GET" and operation is not None
            and operation.operation.value != "query"):
        return error_response("Mutations must be sent with POST.", 405, "method_not_allowed",
                              Allow="GET, POST")
    rules = [*specified_rules, NoNulInStrings,
             limit_rule(settings["seqcore.graphql.max_depth"],
                        settings["seqcore.graphql.max_complexity"], variables)]
    problems = validate(schema, document, rules)
    if problems:
        return graphql_response({"errors": [e.formatted for e in problems]})

    async def run() -> Any:
        # Loaders bind to the running loop, so the context is made inside it.
        context = Context(request=request, identity=identity,
                          loaders=Loaders(request.db, identity),
                          app=settings["seqcore.graphql.app"],
                          node_types=request.registry[NODE_TYPES], method=caller.method)
        result = graphql_execute(schema, document, context_value=context,
                                 variable_values=variables, operation_name=operation_name,
                                 middleware=[deadline])
        return await result if inspect.isawaitable(result) else result

    result = asyncio.run(run())
    mutation = operation is not None and operation.operation.value == "mutation"
    body: dict[str, Any] = {}
    if result.errors:
        body["errors"] = _formatted(request, result.errors)
    body["data"] = result.data
    if mutation and request.tm.isDoomed():
        body = _not_saved(body.get("errors", []), "A part of this request failed unexpectedly.")
    elif deadline.passed_during_execution:
        if mutation:
            request.tm.doom()
            body = _not_saved(body.get("errors", []), deadline.message, "timeout")
        log.warning("GraphQL request stopped after %.1f s (seqcore.graphql.max_seconds)",
                    deadline.seconds)
    limit = settings["seqcore.graphql.max_response_bytes"]
    encoded = bounded_json(body, limit)
    if encoded is None:
        message = (f"The answer is larger than {limit} bytes "
                   "(seqcore.graphql.max_response_bytes); ask for fewer objects or fields.")
        if mutation:
            request.tm.doom()
            return graphql_response(_not_saved([], message, "response_too_large"))
        return graphql_response({"errors": [{"message": message, "extensions": {
            "code": "response_too_large"}}], "data": None})
    return graphql_response(encoded)


def method_not_allowed(request: Request) -> Response:
    return error_response(f"Request method '{request.method}' not supported.", 405,
                          "method_not_allowed", Allow="GET, POST")


def includeme(config: Configurator) -> None:
    from seqcore.resources.root import Root

    config.add_route("graphql", GRAPHQL_PATH, factory=Root)
    config.add_view(graphql_view, route_name="graphql", request_method=("GET", "POST"))
    config.add_view(method_not_allowed, route_name="graphql")
