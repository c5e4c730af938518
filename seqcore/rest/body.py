"""Reading JSON request bodies: content type, size, syntax, unknown fields, validation.

Every failure is a 4xx raised as :class:`~seqcore.rest.errors.ApiError` before anything is
written, with the messages IRIDA clients show their users.
"""

from __future__ import annotations

import json
from typing import Any

from marshmallow import Schema
from pyramid.request import Request

from seqcore.parsing.jsontext import JSONInputError, codec_for, declared_charset, decode_json
from seqcore.parsing.schemas import check
from seqcore.rest.errors import ApiError

JSON_TYPES = ("application/json",)


def read_json_value(request: Request) -> Any:
    """The body's JSON value, whatever its type, or a clear 400/413/415.

    The one place REST reads JSON: the content type, the size, the charset, the syntax, the
    nesting depth and every string (no lone surrogates) are checked here, before any view
    looks at the value (see :mod:`seqcore.parsing.jsontext`).
    """
    content_type = (request.content_type or "").lower()
    if content_type not in JSON_TYPES and not content_type.endswith("+json"):
        raise ApiError(415, body={
            "message": "The content type you provided is not supported by this resource.",
            "supported-media-types": list(JSON_TYPES),
        })
    charset = declared_charset(request.headers.get("Content-Type"))
    try:
        codec_for(charset)  # an unknown charset is refused before the body is read
    except JSONInputError as err:
        raise ApiError(400, message=err.message) from None
    raw = read_limited(request)
    try:
        return decode_json(raw, charset)
    except JSONInputError as err:
        raise ApiError(400, message=err.message) from None
    except json.JSONDecodeError as err:
        at = err.doc[err.pos:err.pos + 1]
        if "Expecting property name enclosed in double quotes" in err.msg and at not in "}":
            message = ("Your request could not be parsed. Field names must be surrounded by "
                       "double quotes (see: http://www.json.org/).")
        else:
            message = ("Your request could not be parsed for an unknown reason. The message we "
                       "got from the JSON parsing library follows, maybe that will help debug "
                       f"your JSON: [{err}]")
        raise ApiError(400, message=message) from None


def read_json(request: Request) -> dict[str, Any]:
    """The body as a JSON object, or a clear 400/413/415."""
    data = read_json_value(request)
    if not isinstance(data, dict):
        raise ApiError(400, message="Your request could not be parsed: the body must be a "
                                    "JSON object.")
    return data


def read_limited(request: Request) -> bytes:
    """The raw body, refused with 413 beyond ``seqcore.max_body_bytes`` (before reading it
    when ``Content-Length`` says so)."""
    limit = int(request.registry.settings["seqcore.max_body_bytes"])
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, message=f"The request body is larger than {limit} bytes.")
    raw = request.body_file.read(limit + 1)
    if len(raw) > limit:
        raise ApiError(413, message=f"The request body is larger than {limit} bytes.")
    return raw


def load(request: Request, schema: Schema, data: dict[str, Any] | None = None, *,
         partial: bool = False, allow_unknown: bool = False) -> dict[str, Any]:
    """Validate ``data`` (the request's JSON body by default) against ``schema`` with the
    domain's rules (:func:`seqcore.parsing.schemas.check`), answering its problems as a 400.

    Unknown fields are a 400 listing the acceptable ones, unless ``allow_unknown`` (a lenient
    client creating something), in which case they are dropped. All field errors come back
    at once as ``{"<field>": ["<message>", ...]}``.
    """
    if data is None:
        data = read_json(request)
    # An Invalid answers as a 400 through the domain-error view.
    return check(schema, data, partial=partial, allow_unknown=allow_unknown,
                 updating=request.method == "PATCH")


def lenient_create(request: Request) -> bool:
    """Unknown fields on POST are dropped for clients registered as lenient."""
    identity = request.identity
    return bool(request.method == "POST" and identity is not None and identity.lenient)
