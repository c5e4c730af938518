"""JSON text of single values, exactly as the REST renderer writes them.

Large collections are written from pre-encoded parts (the links of one entry rendered once,
each entry's fields spliced in). Encoding each entry's fields as a dictionary
(``json.JSONEncoder().encode``) builds a dictionary and an encoder per entry, and was most of
the time a collection of a thousand projects took. :func:`scalar` writes a single value's
JSON text directly, the same text the renderer (``json.dumps`` with its defaults: ASCII
escapes, ``", "`` and ``": "``) writes for it.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

_ENCODE = json.JSONEncoder().encode


def scalar(value: Any) -> str:
    """``json.dumps(value)`` for ``None``, booleans, integers and strings, written directly;
    anything else through the encoder."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if kind is int:
        return int.__repr__(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    return _ENCODE(value)
