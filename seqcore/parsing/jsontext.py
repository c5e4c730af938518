"""Decoding JSON that clients send: REST bodies, GraphQL requests and variables, cursors.

Python's ``json`` accepts more than a database or the code after it can take, and each of
these used to surface as a 500 somewhere far from the request: a lone surrogate
(``"\\ud800"``) is a valid JSON escape but cannot be encoded for the database, nor can
PostgreSQL store a NUL (``"\\u0000"``); nesting a few
thousand arrays deep raises ``RecursionError`` in the parser (and a few hundred deep in
whatever walks the value next); an integer of more than 4,300 digits raises ``ValueError``;
a ``charset`` Python does not know raises ``LookupError``. :func:`decode_json` refuses all
of them with a :class:`JSONInputError` whose message is meant for the client, so every
transport answers 400 before any view or resolver sees the value.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a top-level object is depth 1). seqcore's
own bodies nest at most four deep; the margin is for clients' run-sheet and metadata
documents."""

CHARSETS = frozenset({"utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32",
                      "utf-32-le", "utf-32-be", "ascii", "latin-1", "iso8859-1", "cp1252"})
"""Charsets a JSON body may declare (by any name Python knows them by). JSON is UTF-8
(RFC 8259); the UTF-16/32 forms, ASCII, and the ISO-8859-1 and windows-1252 that some HTTP
libraries put on every body are read as declared. Anything else is refused rather than
handed to an arbitrary codec."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONInputError(ValueError):
    """JSON a client sent that seqcore will not read; ``message`` says why, for the client."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def declared_charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` header, if the client sent one (WebOb's
    ``request.charset`` defaults to UTF-8, which would hide an unknown one)."""
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"') or None
    return None


def codec_for(charset: str | None) -> str:
    """The codec for a declared ``charset`` (UTF-8 when none), or :class:`JSONInputError`."""
    if not charset:
        return "utf-8"
    try:
        name = codecs.lookup(charset).name
    except (LookupError, ValueError, TypeError):
        name = None
    if name not in CHARSETS:
        shown = charset if len(charset) <= 40 else charset[:40] + "..."
        raise JSONInputError(f"The charset '{shown}' of your request is not supported; "
                             "send UTF-8.")
    return name


def decode_text(raw: bytes, charset: str | None) -> str:
    """``raw`` as text in its declared charset, or :class:`JSONInputError`."""
    codec = codec_for(charset)
    try:
        return raw.decode(codec)
    except UnicodeError:
        label = "UTF-8" if codec.startswith("utf-8") else charset
        raise JSONInputError(f"Your request could not be parsed: it is not {label}.") from None


def _no_constant(name: str) -> Any:
    raise JSONInputError(f"Your request could not be parsed: {name} is not a JSON number.")


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` and check the value with :func:`check_value`.

    :class:`json.JSONDecodeError` (malformed JSON) propagates unchanged, so that callers can
    word their own message; everything else that is refused is a :class:`JSONInputError`.
    """
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise JSONInputError(too_deep(max_depth)) from None
    except JSONInputError:
        raise
    except ValueError:  # an integer literal of thousands of digits
        raise JSONInputError("Your request could not be parsed: a number in it is too "
                             "long.") from None
    check_value(value, max_depth)
    return value


def decode_json(raw: bytes, charset: str | None, max_depth: int = MAX_DEPTH) -> Any:
    """A request body's JSON value: charset, syntax, depth and strings checked."""
    return loads(decode_text(raw, charset), max_depth)


def too_deep(max_depth: int) -> str:
    return (f"Your request could not be parsed: arrays and objects may be nested at most "
            f"{max_depth} deep.")


def check_value(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a decoded value nested deeper than ``max_depth`` or holding a lone surrogate
    in any string or key. Walks with a stack of its own, so no depth can exhaust Python's."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, dict):
            if depth >= max_depth:
                raise JSONInputError(too_deep(max_depth))
            for key, child in item.items():
                if isinstance(key, str):
                    _check_string(key)
                stack.append((child, depth + 1))
        elif isinstance(item, list | tuple):
            if depth >= max_depth:
                raise JSONInputError(too_deep(max_depth))
            stack.extend((child, depth + 1) for child in item)


def _check_string(text: str) -> None:
    if _SURROGATE.search(text):
        raise JSONInputError(surrogate_message())
    if "\x00" in text:
        # Valid JSON (``"\u0000"``), but no text seqcore stores may hold it: PostgreSQL's
        # text cannot, and SQLite's would end the string early for most tools.
        raise JSONInputError("Your request could not be parsed: a string in it holds a NUL "
                             "character (\\u0000), which no text may contain.")


def surrogate_message() -> str:
    return ("Your request could not be parsed: a string in it holds a lone UTF-16 surrogate "
            "(\\ud800-\\udfff), which is not a character.")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (one that no database can store)."""
    return _SURROGATE.search(text) is not None
