"""Reading a page's form through the same marshmallow schemas the APIs validate with, so a
form refuses what REST would refuse, with the same messages, field by field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError


def load_form(schema: Schema, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The loaded values and no problems, or no values and a problem per field. Empty
    fields count as absent (a form sends every field, filled or not)."""
    present = {key: value for key, value in data.items() if value not in ("", None)}
    try:
        return schema.load(present), {}
    except ValidationError as error:
        problems = {key: " ".join(_flatten(messages))
                    for key, messages in error.normalized_messages().items()}
        return {}, problems


def _flatten(messages: Any) -> list[str]:
    if isinstance(messages, str):
        return [messages]
    if isinstance(messages, Mapping):
        return [m for value in messages.values() for m in _flatten(value)]
    return [m for value in messages for m in _flatten(value)]
