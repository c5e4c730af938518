"""IRIDA Next's ransack filters (``GroupFilter``, ``ProjectFilter``): ``<attribute>_<predicate>``
input fields, each a condition, all of them together (AND).

IRIDA Next generates every ransack predicate for ``name``, ``puid``, ``created_at`` and
``updated_at``; seqcore serves the ones that mean something for each attribute's type (text
or time) and lists the rest in ``docs/graphql.md``. Text comparisons are case-insensitive
where ransack's are on PostgreSQL (``cont``, ``start``, ``end``, ``i_cont``); ``eq`` and
``in`` compare exactly. ``name_or_puid_cont`` matches either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import ColumnElement, func, not_, or_

TEXT_PREDICATES = ("eq", "not_eq", "cont", "not_cont", "i_cont", "not_i_cont", "start",
                   "not_start", "end", "not_end", "in", "not_in", "lt", "lteq", "gt", "gteq",
                   "null", "not_null", "present", "blank")
TIME_PREDICATES = ("eq", "not_eq", "lt", "lteq", "gt", "gteq", "in", "not_in", "null",
                   "not_null", "present", "blank")
LIST_PREDICATES = {"in", "not_in"}
FLAG_PREDICATES = {"null", "not_null", "present", "blank"}


def _like(text: str, start: bool = True, end: bool = True) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"{'%' if start else ''}{escaped}{'%' if end else ''}"


def _flag(value: Any) -> bool:
    """Ransack reads ``"true"``/``"1"`` as yes; anything else as no."""
    return str(value).strip().lower() in ("true", "1", "t", "yes")


def _time(where: str, value: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise GraphQLError(f"{where}: '{value}' is not a date or time (ISO 8601)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def text_condition(column: Any, predicate: str, value: Any) -> ColumnElement[bool]:
    lowered = func.lower(column)
    if predicate in FLAG_PREDICATES:
        wanted = _flag(value)
        condition = {"null": column.is_(None), "not_null": column.is_not(None),
                     "present": (column.is_not(None)) & (column != ""),
                     "blank": or_(column.is_(None), column == "")}[predicate]
        return condition if wanted else not_(condition)
    if predicate in LIST_PREDICATES:
        values = [str(v) for v in value]
        return column.in_(values) if predicate == "in" else column.not_in(values)
    text = str(value)
    comparisons: dict[str, Callable[[], ColumnElement[bool]]] = {
        "eq": lambda: column == text,
        "not_eq": lambda: column != text,
        "cont": lambda: lowered.like(_like(text), escape="\\"),
        "i_cont": lambda: lowered.like(_like(text), escape="\\"),
        "not_cont": lambda: not_(lowered.like(_like(text), escape="\\")),
        "not_i_cont": lambda: not_(lowered.like(_like(text), escape="\\")),
        "start": lambda: lowered.like(_like(text, start=False), escape="\\"),
        "not_start": lambda: not_(lowered.like(_like(text, start=False), escape="\\")),
        "end": lambda: lowered.like(_like(text, end=False), escape="\\"),
        "not_end": lambda: not_(lowered.like(_like(text, end=False), escape="\\")),
        "lt": lambda: column < text, "lteq": lambda: column <= text,
        "gt": lambda: column > text, "gteq": lambda: column >= text,
    }
    return comparisons[predicate]()


def time_condition(where: str, column: Any, predicate: str, value: Any
                   ) -> ColumnElement[bool]:
    if predicate in FLAG_PREDICATES:
        wanted = _flag(value)
        condition = column.is_(None) if predicate in ("null", "blank") else column.is_not(None)
        return condition if wanted else not_(condition)
    if predicate in LIST_PREDICATES:
        moments = [_time(where, v) for v in value]
        return column.in_(moments) if predicate == "in" else column.not_in(moments)
    moment = _time(where, value)
    return {"eq": lambda: column == moment, "not_eq": lambda: column != moment,
            "lt": lambda: column < moment, "lteq": lambda: column <= moment,
            "gt": lambda: column > moment, "gteq": lambda: column >= moment}[predicate]()


def ransack_input(name: str, text: tuple[str, ...], times: tuple[str, ...],
                  extra: Mapping[str, Any] | None = None) -> type:
    """A graphene input type with ``<attribute>_<predicate>`` fields for each text and time
    attribute, plus ``name_or_puid_cont`` and ``extra``."""
    fields: dict[str, Any] = {
        "__doc__": f"Ransack filter of {name[:-len('Filter')].lower()}s, as IRIDA Next's.",
        "name_or_puid_cont": graphene.String(name="name_or_puid_cont",
                                             description="Name or PUID contains."),
    }
    for attribute, predicates in ((a, TEXT_PREDICATES) for a in text):
        _add(fields, attribute, predicates)
    for attribute, predicates in ((a, TIME_PREDICATES) for a in times):
        _add(fields, attribute, predicates)
    fields.update(extra or {})
    return type(name, (graphene.InputObjectType,), fields)


def _add(fields: dict[str, Any], attribute: str, predicates: tuple[str, ...]) -> None:
    for predicate in predicates:
        key = f"{attribute}_{predicate}"
        fields[key] = (graphene.List(graphene.NonNull(graphene.String), name=key)
                       if predicate in LIST_PREDICATES else graphene.String(name=key))


def ransack_conditions(filter_: Any, text: Mapping[str, Any], times: Mapping[str, Any],
                       name: Any, puid: Any) -> list[ColumnElement[bool]]:
    """The conditions of a ransack filter's fields that are set; ``text`` and ``times`` map
    each attribute to its column."""
    if not filter_:
        return []
    conditions: list[ColumnElement[bool]] = []
    for key, value in filter_.items():
        if value is None:
            continue
        if key == "name_or_puid_cont":
            pattern = _like(str(value))
            conditions.append(or_(func.lower(name).like(pattern, escape="\\"),
                                  func.lower(puid).like(pattern, escape="\\")))
            continue
        for attribute, column in text.items():
            if key.startswith(attribute + "_") and key[len(attribute) + 1:] in TEXT_PREDICATES:
                conditions.append(text_condition(column, key[len(attribute) + 1:], value))
                break
        else:
            for attribute, column in times.items():
                predicate = key[len(attribute) + 1:]
                if key.startswith(attribute + "_") and predicate in TIME_PREDICATES:
                    conditions.append(time_condition(f"filter.{key}", column, predicate,
                                                     value))
                    break
    return conditions
