"""Numeric ids as clients send them: in URL segments, query parameters, JSON bodies and
GraphQL global ids.

Every id column is a signed 64-bit integer, so an id is a run of ASCII digits (``0``-``9``
only: ``str.isdigit`` also accepts ``²`` and other scripts' digits, which ``int`` refuses or
reads as another number) whose value fits in 63 bits. Anything else names nothing: the
caller answers 404 (a path) or 400 (a parameter or field), and no database is ever asked
about a number it cannot store. REST traversal, REST bodies, paging parameters and GraphQL
ids and cursors all go through :func:`parse_id`, so a new endpoint gets the same rule.
"""

from __future__ import annotations

import re

MAX_ID = 2**63 - 1
"""The largest id a 64-bit signed integer column holds."""

MAX_DIGITS = 19
"""Digits of :data:`MAX_ID`; longer texts (leading zeros aside) are out of range."""

_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def parse_id(value: object) -> int | None:
    """The id ``value`` stands for, or ``None`` when it is not one.

    Accepts a JSON integer (not a boolean) or a string of ASCII digits, between 0 and
    :data:`MAX_ID`. Leading zeros are allowed (``007`` is 7), as they always were.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_ID else None
    if not isinstance(value, str) or not _DIGITS.fullmatch(value):
        return None
    digits = value.lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:  # also keeps int() far from its 4,300-digit limit
        return None
    number = int(digits)
    return number if number <= MAX_ID else None

