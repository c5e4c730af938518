"""Ransack-style filter inputs, as IRIDA Next generates them for its connections: one argument
``<attribute>_<predicate>`` per attribute and predicate, in snake_case (``filename_cont``,
``byte_size_gteq``, ``created_at_lt``, ``puid_in``...), with ``_any``/``_all`` forms taking
lists. All given arguments must hold.

Values arrive as strings (as in IRIDA Next); an attribute is ``text``, ``integer`` or
``datetime`` and its values are read as such (a value that is not is a GraphQL error naming
the argument). Text comparisons ``cont``/``start``/``end`` are case-sensitive like Ransack's
on PostgreSQL (``i_cont`` is not); ``matches`` takes a SQL ``LIKE`` pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import String, and_, cast, false, func, not_, or_, true
from sqlalchemy.sql.expression import ColumnElement

# predicate -> (takes a list, SQL of (column, value))
Compare = Callable[[Any, Any], ColumnElement[bool]]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _like(column: Any, pattern: str) -> ColumnElement[bool]:
    return cast(column, String).like(pattern, escape="\\")


SCALAR: dict[str, Compare] = {
    "eq": lambda c, v: c == v,
    "not_eq": lambda c, v: c != v,
    "lt": lambda c, v: c < v,
    "lteq": lambda c, v: c <= v,
    "gt": lambda c, v: c > v,
    "gteq": lambda c, v: c >= v,
    "cont": lambda c, v: _like(c, f"%{_escape(str(v))}%"),
    "not_cont": lambda c, v: not_(_like(c, f"%{_escape(str(v))}%")),
    "i_cont": lambda c, v: func.lower(cast(c, String)).like(
        f"%{_escape(str(v).lower())}%", escape="\\"),
    "not_i_cont": lambda c, v: not_(func.lower(cast(c, String)).like(
        f"%{_escape(str(v).lower())}%", escape="\\")),
    "start": lambda c, v: _like(c, f"{_escape(str(v))}%"),
    "not_start": lambda c, v: not_(_like(c, f"{_escape(str(v))}%")),
    "end": lambda c, v: _like(c, f"%{_escape(str(v))}"),
    "not_end": lambda c, v: not_(_like(c, f"%{_escape(str(v))}")),
    "matches": lambda c, v: cast(c, String).like(str(v)),
    "does_not_match": lambda c, v: not_(cast(c, String).like(str(v))),
}
LISTS = {"in": lambda c, vs: c.in_(vs), "not_in": lambda c, vs: c.not_in(vs)}
FLAGS = {
    "null": lambda c: c.is_(None), "not_null": lambda c: c.is_not(None),
    "present": lambda c: and_(c.is_not(None), cast(c, String) != ""),
    "blank": lambda c: or_(c.is_(None), cast(c, String) == ""),
    "true": None, "not_true": None, "false": None, "not_false": None,
}
TEXT_ONLY = {"cont", "not_cont", "i_cont", "not_i_cont", "start", "not_start", "end",
             "not_end", "matches", "does_not_match"}


def argument_names(attribute: str) -> dict[str, bool]:
    """Every argument of one attribute and whether it takes a list, as IRIDA Next's SDL."""
    names: dict[str, bool] = {}
    for predicate in SCALAR:
        names[f"{attribute}_{predicate}"] = False
        names[f"{attribute}_{predicate}_all"] = True
        names[f"{attribute}_{predicate}_any"] = True
    for predicate in LISTS:
        for suffix in ("", "_all", "_any"):
            names[f"{attribute}_{predicate}{suffix}"] = True
    for predicate in FLAGS:
        names[f"{attribute}_{predicate}"] = False
    return dict(sorted(names.items()))


def filter_input(name: str, attributes: Mapping[str, str],
                 extra: Mapping[str, Any] | None = None) -> type:
    """An ``InputObjectType`` with every Ransack argument of ``attributes`` (``{attribute:
    kind}``) and ``extra`` fields."""
    fields: dict[str, Any] = {}
    for attribute in attributes:
        for arg, many in argument_names(attribute).items():
            fields[arg] = (graphene.List(graphene.NonNull(graphene.String), name=arg) if many
                           else graphene.String(name=arg))
    for arg, value in (extra or {}).items():
        fields[arg] = value
    return type(name, (graphene.InputObjectType,), {
        "__doc__": "Ransack filter: every argument given must hold.", **fields})


INTEGER_LIMIT = 2**63
"""Integer filters compare with columns of at most 64 bits."""


def _typed(arg: str, kind: str, value: Any) -> Any:
    if kind == "integer":
        try:
            number = int(str(value).strip())
        except ValueError:
            raise GraphQLError(f"{arg}: '{value}' is not an integer.") from None
        if not -INTEGER_LIMIT <= number < INTEGER_LIMIT:
            # The database binds 64-bit integers only: a larger one is refused, not sent.
            raise GraphQLError(f"{arg}: '{value}' is out of range.")
        return number
    if kind == "datetime":
        try:
            return datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise GraphQLError(f"{arg}: '{value}' is not a date or time (ISO 8601).") from None
    return str(value)


def conditions(given: Mapping[str, Any] | None,
               columns: Mapping[str, tuple[Any, str]]) -> list[ColumnElement[bool]]:
    """SQL conditions for a filter's given arguments; ``columns`` maps each attribute to
    ``(column expression, kind)``."""
    found: list[ColumnElement[bool]] = []
    for arg, value in (given or {}).items():
        if value is None:
            continue
        attribute = next((a for a in sorted(columns, key=len, reverse=True)
                          if arg.startswith(f"{a}_")), None)
        if attribute is None:
            continue  # an extra field, the caller's business
        column, kind = columns[attribute]
        predicate = arg[len(attribute) + 1:]
        found.append(_condition(arg, column, kind, predicate, value))
    return found


def _condition(arg: str, column: Any, kind: str, predicate: str,
               value: Any) -> ColumnElement[bool]:
    if predicate in FLAGS:
        wanted = str(value).strip().lower() not in ("false", "0", "f", "")
        test = FLAGS[predicate]
        if test is None:
            raise GraphQLError(f"{arg}: {predicate} applies to boolean attributes only.")
        return test(column) if wanted else not_(test(column))
    base, _, mode = predicate.rpartition("_")
    if mode not in ("all", "any") or (base not in SCALAR and base not in LISTS):
        base, mode = predicate, ""
    values = value if isinstance(value, list) else [value]
    if base in LISTS:
        typed = [_typed(arg, kind, v) for v in values]
        return LISTS[base](column, typed) if typed else (
            false() if base == "in" else true())
    if base in TEXT_ONLY:
        kind = "text"
    compare = SCALAR[base]
    parts = [compare(column, _typed(arg, kind, v)) for v in values]
    if not mode:
        return parts[0]
    return and_(*parts) if mode == "all" else or_(*parts)
