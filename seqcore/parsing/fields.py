"""Field types for request bodies, shared by every schema (REST's and the launch of
analyses, which REST and GraphQL share).

Each type refuses, with its own message, any JSON value of the wrong kind before a validator
or the database sees it: a list or object where text or a choice goes (a choice is looked
up in a set, and a list is not hashable), a boolean or float where a whole number goes, a
whole number beyond what its column stores, an id that is not one (see
:mod:`seqcore.parsing.identifiers`). A schema built from these types cannot forget a check, and a
field added later gets them for free.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from marshmallow import fields, validate

from seqcore.parsing.identifiers import MAX_ID, parse_id

INT32 = (-(2**31), 2**31 - 1)
"""The range of an ``Integer`` column (PostgreSQL's ``integer``)."""

INT64 = (-(2**63), 2**63 - 1)
"""The range of a ``BigInteger`` column."""


class Text(fields.String):
    """A JSON string (never a number, list or object): marshmallow's ``String``, named here
    so that every schema takes text through one type."""


class Choice(fields.String):
    """One of ``choices``, given as a string; anything else (including a list or object,
    which a membership test could not even hash) is ``error``."""

    def __init__(self, choices: Iterable[str], error: str | None = None,
                 **kwargs: Any) -> None:
        self.choices = tuple(choices)
        message = error or "Must be one of: {choices}."
        super().__init__(validate=validate.OneOf(self.choices, error=message), **kwargs)
        self.error_messages["invalid"] = message.format(choices=", ".join(self.choices))


class WholeNumber(fields.Integer):
    """A JSON integer (not a boolean, not a float, not a string) within ``bounds``: by
    default those of a 32-bit ``Integer`` column, so no value reaches the database that it
    cannot store."""

    default_error_messages = {"invalid": "Not a valid whole number.",
                              "range": "Must be between {low} and {high}."}

    def __init__(self, bounds: tuple[int, int] = INT32, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)
        self.bounds = bounds

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        number = super()._validated(value)
        low, high = self.bounds
        if not low <= number <= high:
            raise self.make_error("range", low=low, high=high)
        return number


class Id(fields.Field[int]):
    """The id of a row: a JSON integer or a string of ASCII digits, 0 to
    :data:`~seqcore.parsing.identifiers.MAX_ID`."""

    default_error_messages = {"invalid": f"Not an id: ids are whole numbers from 0 to {MAX_ID}."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        number = parse_id(value)
        if number is None:
            raise self.make_error("invalid")
        return number


class Flag(fields.Boolean):
    """``true`` or ``false`` only (not ``"yes"``, ``1`` or a list)."""

    default_error_messages = {"invalid": "Must be true or false."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value
