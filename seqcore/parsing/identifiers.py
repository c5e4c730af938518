"""Numeric ids as clients send them: in URL segments, query parameters, JSON bodies and
GraphQL global ids.

Every id column is an ``Integer`` (PostgreSQL's 32-bit ``integer``; SQLite's would hold
more, but one rule for both databases), so an id is a run of ASCII digits (``0``-``9``
only: ``str.isdigit`` also accepts ``²`` and other scripts' digits, which ``int`` refuses or
reads as another number) whose value fits in 31 bits. Anything else names nothing: the
caller answers 404 (a path) or 400 (a parameter or field), and no database is ever asked
about a number it cannot store (PostgreSQL answers ``integer out of range``, SQLite
``OverflowError`` beyond 64 bits). REST traversal, REST bodies, paging parameters and
GraphQL ids and cursors all go through :func:`parse_natural`, so a new endpoint gets the
same rule.
"""

from __future__ import annotations

import re

MAX_ID = 2**31 - 1
"""The largest id an ``Integer`` id column holds."""

_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def parse_natural(value: object, maximum: int) -> int | None:
    """The whole number ``value`` stands for, between 0 and ``maximum``, or ``None``.

    Accepts a JSON integer (not a boolean) or a string of ASCII digits; leading zeros are
    allowed (``007`` is 7), as they always were.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= maximum else None
    if not isinstance(value, str) or not _DIGITS.fullmatch(value):
        return None
    digits = value.lstrip("0") or "0"
    if len(digits) > len(str(maximum)):  # also keeps int() far from its 4,300-digit limit
        return None
    number = int(digits)
    return number if number <= maximum else None


def parse_id(value: object) -> int | None:
    """The id ``value`` names (0 to :data:`MAX_ID`), or ``None`` when it names none."""
    return parse_natural(value, MAX_ID)
