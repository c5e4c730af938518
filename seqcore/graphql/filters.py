"""Sample and project filters and orderings, as IRIDA Next spells them.

``SampleFilter`` keeps IRIDA Next's snake_case names (``name_or_puid_cont``,
``advanced_search``). ``advanced_search`` is a list of groups: a sample matches when every
condition of at least one group holds. Comparisons of text are case-insensitive.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import and_, exists, false, func, not_, or_, select, true
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement, FunctionElement
from sqlalchemy.types import Numeric

from seqcore.graphql.connections import Ordering
from seqcore.graphql.ransack import escape_like, namespace_filter
from seqcore.graphql.scalars import ValueScalar
from seqcore.models.attachment import Attachment
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.security.fieldaccess import Caller, readable_entry

OrderDirection = graphene.Enum("OrderDirection", [("asc", "asc"), ("desc", "desc")])
SampleOrderField = graphene.Enum("SampleOrderField", [
    ("created_at", "created_at"), ("name", "name"), ("updated_at", "updated_at")])
ProjectOrderField = graphene.Enum("ProjectOrderField", [
    ("created_at", "created_at"), ("name", "name"), ("updated_at", "updated_at")])
STANDARD_OPERATORS = ("EQUALS", "NOT_EQUALS", "LESS_THAN_EQUALS", "GREATER_THAN_EQUALS",
                      "CONTAINS", "NOT_CONTAINS", "EXISTS", "NOT_EXISTS", "IN", "NOT_IN")
# IRIDA Next's typed operators, for metadata fields only: the value is read as text, as a
# number or as a date whatever it looks like.
TEXT_OPERATORS = ("TEXT_EQUALS", "TEXT_NOT_EQUALS", "TEXT_CONTAINS", "TEXT_NOT_CONTAINS",
                  "TEXT_IN", "TEXT_NOT_IN")
NUMERIC_OPERATORS = ("NUMERIC_EQUALS", "NUMERIC_NOT_EQUALS", "NUMERIC_LESS_THAN_EQUALS",
                     "NUMERIC_GREATER_THAN_EQUALS", "NUMERIC_EXISTS", "NUMERIC_NOT_EXISTS")
DATE_OPERATORS = ("DATE_EQUALS", "DATE_NOT_EQUALS", "DATE_LESS_THAN_EQUALS",
                  "DATE_GREATER_THAN_EQUALS", "DATE_EXISTS", "DATE_NOT_EXISTS")
EXISTS_OPERATORS = frozenset({"EXISTS", "NOT_EXISTS", "NUMERIC_EXISTS", "NUMERIC_NOT_EXISTS",
                              "DATE_EXISTS", "DATE_NOT_EXISTS"})
# Pairs one group may hold on one field (a range); any other repeat of a field is an error.
RANGES = [frozenset(pair) for pair in (
    ("GREATER_THAN_EQUALS", "LESS_THAN_EQUALS"),
    ("NUMERIC_GREATER_THAN_EQUALS", "NUMERIC_LESS_THAN_EQUALS"),
    ("DATE_GREATER_THAN_EQUALS", "DATE_LESS_THAN_EQUALS"))]
SampleAdvancedSearchConditionOperator = graphene.Enum(
    "SampleAdvancedSearchConditionOperator",
    [(name, name) for name in
     (*STANDARD_OPERATORS, *TEXT_OPERATORS, *NUMERIC_OPERATORS, *DATE_OPERATORS)])


class SampleOrder(graphene.InputObjectType):
    field = SampleOrderField(required=True)
    direction = OrderDirection(default_value="asc")


class ProjectOrder(graphene.InputObjectType):
    field = ProjectOrderField(required=True)
    direction = OrderDirection(default_value="asc")


class SampleAdvancedSearchCondition(graphene.InputObjectType):
    field = graphene.String()
    operator = SampleAdvancedSearchConditionOperator()
    value = ValueScalar()


class SampleFilter(graphene.InputObjectType):
    name_or_puid_cont = graphene.String(name="name_or_puid_cont",
                                        description="Name or PUID contains "
                                                    "(case-insensitive).")
    name_cont = graphene.String(name="name_cont", description="Name contains.")
    advanced_search = graphene.List(
        graphene.NonNull(graphene.List(graphene.NonNull(SampleAdvancedSearchCondition))),
        name="advanced_search",
        description="Groups of conditions: any group whose conditions all hold matches.")


PROJECT_FILTER = namespace_filter("ProjectFilter", "projects")
ProjectFilter = PROJECT_FILTER.input_type()


def plain(value: Any) -> Any:
    """Enum members arrive as Python enums or their values, depending on the path."""
    return getattr(value, "value", value)


# -- ordering ---------------------------------------------------------------------------------


def sample_ordering(order_by: Any) -> tuple[Ordering, Any]:
    """The keyset ordering and the function giving an item's sort value."""
    field = plain(order_by.get("field")) if order_by else "created_at"
    descending = bool(order_by) and plain(order_by.get("direction")) == "desc"
    if field == "name":
        return Ordering(Sample.name, Sample.id, descending), lambda s: s.name
    if field == "updated_at":
        key = func.coalesce(Sample.modified, Sample.created)
        return (Ordering(key, Sample.id, descending, temporal=True),
                lambda s: s.modified or s.created)
    return Ordering(Sample.created, Sample.id, descending, temporal=True), lambda s: s.created


def project_ordering(order_by: Any) -> tuple[Ordering, Any]:
    field = plain(order_by.get("field")) if order_by else "created_at"
    descending = bool(order_by) and plain(order_by.get("direction")) == "desc"
    if field == "name":
        return Ordering(Project.name, Project.id, descending), lambda p: p.name
    if field == "updated_at":
        key = func.coalesce(Project.modified, Project.created)
        return (Ordering(key, Project.id, descending, temporal=True),
                lambda p: p.modified or p.created)
    return Ordering(Project.created, Project.id, descending, temporal=True), lambda p: p.created


# -- filtering --------------------------------------------------------------------------------


class numeric_or_null(FunctionElement):
    """A text value as a number when it looks like one, else NULL: portable across SQLite
    and PostgreSQL (a plain CAST fails or gives 0 on text)."""

    type = Numeric()
    inherit_cache = True


@compiles(numeric_or_null)
def _numeric_default(element: Any, compiler: Any, **kw: Any) -> str:
    value = compiler.process(next(iter(element.clauses)), **kw)
    return (f"CASE WHEN {value} <> '' AND {value} NOT GLOB '*[^0-9.-]*' "
            f"THEN CAST({value} AS REAL) END")


@compiles(numeric_or_null, "postgresql")
def _numeric_postgresql(element: Any, compiler: Any, **kw: Any) -> str:
    value = compiler.process(next(iter(element.clauses)), **kw)
    return f"CASE WHEN {value} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN CAST({value} AS NUMERIC) END"


class date_or_null(FunctionElement):
    """A metadata value as a ``YYYY-MM-DD`` text when it is a date (``YYYY``, ``YYYY-MM`` or
    ``YYYY-MM-DD``, the shorter ones meaning their first day, as IRIDA Next reads them),
    else NULL. ISO dates compare as text, so no database date type is needed."""

    inherit_cache = True


_Y, _M = "[0-9][0-9][0-9][0-9]", "[0-9][0-9]"


@compiles(date_or_null)
def _date_default(element: Any, compiler: Any, **kw: Any) -> str:
    value = compiler.process(next(iter(element.clauses)), **kw)
    return (f"CASE WHEN {value} GLOB '{_Y}' THEN {value} || '-01-01' "
            f"WHEN {value} GLOB '{_Y}-{_M}' THEN {value} || '-01' "
            f"WHEN {value} GLOB '{_Y}-{_M}-{_M}' THEN {value} END")


@compiles(date_or_null, "postgresql")
def _date_postgresql(element: Any, compiler: Any, **kw: Any) -> str:
    value = compiler.process(next(iter(element.clauses)), **kw)
    return (f"CASE WHEN {value} ~ '^[0-9]{{4}}$' THEN {value} || '-01-01' "
            f"WHEN {value} ~ '^[0-9]{{4}}-[0-9]{{2}}$' THEN {value} || '-01' "
            f"WHEN {value} ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$' THEN {value} END")


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
NUMBER = re.compile(r"-?\d+(\.\d+)?")
SAMPLE_FIELDS = {"name", "puid", "created_at", "updated_at", "attachments_updated_at"}
TEXT_FIELDS = {"name", "puid"}


def _like(text: str) -> str:
    return f"%{escape_like(text.lower())}%"


def sample_filter_conditions(filter_: Any, caller: Caller) -> list[ColumnElement]:
    """SQL conditions on ``Sample`` for a ``SampleFilter``; a bad condition is a GraphQL
    error whose message says where (``filter.advanced_search.<group>.<condition>``).

    A metadata condition sees only the values ``caller`` may read
    (:func:`seqcore.security.fieldaccess.readable_entry`): a restricted field is, to a caller below
    its level, a field no sample has, so filtering on it reveals nothing."""
    if not filter_:
        return []
    conditions = []
    text = filter_.get("name_or_puid_cont")
    if text:
        conditions.append(or_(func.lower(Sample.name).like(_like(text), escape="\\"),
                              func.lower(Sample.puid).like(_like(text), escape="\\")))
    text = filter_.get("name_cont")
    if text:
        conditions.append(func.lower(Sample.name).like(_like(text), escape="\\"))
    groups = filter_.get("advanced_search") or []
    if groups and not any(groups):
        raise GraphQLError("filter.advanced_search: every group is empty; give at least one "
                           "condition")
    alternatives = []
    for g, group in enumerate(groups):
        _check_group(f"filter.advanced_search.{g}", group)
        clauses = [_condition(f"filter.advanced_search.{g}.{c}", condition, caller)
                   for c, condition in enumerate(group)]
        if clauses:
            alternatives.append(and_(*clauses))
    if alternatives:
        conditions.append(or_(*alternatives))
    return conditions


def _check_group(where: str, group: list[Any]) -> None:
    """IRIDA Next's rules for one group: a field appears once, except for one range (a
    ``>=`` and a ``<=`` of one kind) on it."""
    operators_of: dict[str, list[str]] = {}
    for c, condition in enumerate(group):
        field = condition.get("field") or ""
        seen = operators_of.setdefault(field, [])
        seen.append(plain(condition.get("operator")) or "")
        if len(seen) > 1 and (len(seen) > 2 or frozenset(seen) not in RANGES):
            raise GraphQLError(f"{where}.{c}.field: '{field}' exists within another condition "
                               "in this group")


def _condition(where: str, condition: Any, caller: Caller) -> ColumnElement:
    field = condition.get("field") or ""
    operator = plain(condition.get("operator"))
    value = condition.get("value")
    if not field:
        raise GraphQLError(f"{where}.field: a field is required")
    if operator is None:
        raise GraphQLError(f"{where}.operator: an operator is required")
    if field.startswith("metadata."):
        key = field[len("metadata."):]
        if not key.strip():
            raise GraphQLError(f"{where}.field: '{field}' is an invalid metadata field")
        return _metadata_condition(where, key, operator, value, caller)
    if field not in SAMPLE_FIELDS:
        raise GraphQLError(f"{where}.field: '{field}' is an invalid field")
    if operator not in STANDARD_OPERATORS:
        raise GraphQLError(f"{where}.operator: '{operator}' is an invalid operator for "
                           "non-metadata fields")
    if field in TEXT_FIELDS:
        if operator in ("EXISTS", "NOT_EXISTS"):
            return true() if operator == "EXISTS" else false()
        return _text_condition(where, Sample.name if field == "name" else Sample.puid,
                               operator, value)
    if field == "attachments_updated_at":
        column: Any = (select(func.max(func.coalesce(Attachment.modified, Attachment.created)))
                       .where(Attachment.sample_id == Sample.id).scalar_subquery())
        if operator in ("EXISTS", "NOT_EXISTS"):
            return column.is_not(None) if operator == "EXISTS" else column.is_(None)
    elif field == "created_at":
        column = Sample.created
    else:
        column = func.coalesce(Sample.modified, Sample.created)
    return _date_condition(where, column, operator, value)


def _values(where: str, operator: str, value: Any) -> list[str]:
    if operator in ("IN", "NOT_IN"):
        if not isinstance(value, list) or not value:
            raise GraphQLError(f"{where}.value: {operator} takes a non-empty list of values")
        return value
    if not isinstance(value, str) or value == "":
        raise GraphQLError(f"{where}.value: {operator} takes one non-empty value")
    return [value]


def _text_condition(where: str, column: Any, operator: str, value: Any) -> ColumnElement:
    values = _values(where, operator, value)
    lowered = func.lower(column)
    if operator == "EQUALS":
        return lowered == values[0].lower()
    if operator == "NOT_EQUALS":
        return lowered != values[0].lower()
    if operator == "CONTAINS":
        return lowered.like(_like(values[0]), escape="\\")
    if operator == "NOT_CONTAINS":
        return not_(lowered.like(_like(values[0]), escape="\\"))
    if operator == "IN":
        return lowered.in_([v.lower() for v in values])
    if operator == "NOT_IN":
        return lowered.not_in([v.lower() for v in values])
    if DATE.fullmatch(values[0]):
        compared = column
    elif NUMBER.fullmatch(values[0]):
        compared, values = numeric_or_null(column), [float(values[0])]  # type: ignore[list-item]
    else:
        raise GraphQLError(f"{where}.value: '{values[0]}' is not a number or a date "
                           "(YYYY-MM-DD)")
    return compared <= values[0] if operator == "LESS_THAN_EQUALS" else compared >= values[0]


def _metadata_condition(where: str, key: str, operator: str, value: Any, caller: Caller
                        ) -> ColumnElement:
    def entry_where(*extra: Any) -> ColumnElement:
        return exists(select(MetadataEntry.id).where(
            # Keys are not case-sensitive in GraphQL (IRIDA Next lower-cases them).
            MetadataEntry.sample_id == Sample.id,
            func.lower(MetadataEntry.field) == key.lower(),
            readable_entry(caller), *extra))

    if operator in TEXT_OPERATORS:  # the standard operators on text, by their typed names
        operator = operator[len("TEXT_"):]
    if operator in NUMERIC_OPERATORS:
        return _typed_condition(where, entry_where, numeric_or_null(MetadataEntry.value),
                                operator[len("NUMERIC_"):], _number(where, operator, value))
    if operator in DATE_OPERATORS:
        return _typed_condition(where, entry_where, date_or_null(MetadataEntry.value),
                                operator[len("DATE_"):], _date(where, operator, value))
    if operator == "EXISTS":
        return entry_where()
    if operator == "NOT_EXISTS":
        return not_(entry_where())
    if operator in ("NOT_EQUALS", "NOT_CONTAINS", "NOT_IN"):
        # A sample without the field does not equal / contain the value either.
        positive = {"NOT_EQUALS": "EQUALS", "NOT_CONTAINS": "CONTAINS", "NOT_IN": "IN"}[operator]
        return not_(entry_where(_text_condition(where, MetadataEntry.value, positive, value)))
    return entry_where(_text_condition(where, MetadataEntry.value, operator, value))


def _number(where: str, operator: str, value: Any) -> float | None:
    if operator in EXISTS_OPERATORS:
        return None
    text = _values(where, operator, value)[0]
    if not NUMBER.fullmatch(text.strip()):
        raise GraphQLError(f"{where}.value: '{text}' is not a number")
    return float(text)


def _date(where: str, operator: str, value: Any) -> str | None:
    if operator in EXISTS_OPERATORS:
        return None
    text = _values(where, operator, value)[0]
    try:
        datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise GraphQLError(f"{where}.value: '{text}' must be formatted YYYY-MM-DD") from None
    return text


def _typed_condition(where: str, entry_where: Any, typed: Any, operator: str,
                     value: float | str | None) -> ColumnElement:
    """A numeric or date condition: only values of that type take part (``typed`` is NULL
    for the others); ``NOT_EQUALS`` and ``NOT_EXISTS`` also hold for samples without such a
    value, as in IRIDA Next."""
    if operator == "EXISTS":
        return entry_where(typed.is_not(None))
    if operator == "NOT_EXISTS":
        return not_(entry_where(typed.is_not(None)))
    if operator == "NOT_EQUALS":
        return not_(entry_where(typed == value))
    if operator == "EQUALS":
        return entry_where(typed == value)
    if operator == "LESS_THAN_EQUALS":
        return entry_where(typed <= value)
    return entry_where(typed >= value)


def _date_condition(where: str, column: Any, operator: str, value: Any) -> ColumnElement:
    if operator == "EXISTS":
        return true()
    if operator == "NOT_EXISTS":
        return false()
    if operator not in ("EQUALS", "LESS_THAN_EQUALS", "GREATER_THAN_EQUALS"):
        raise GraphQLError(f"{where}.operator: '{operator}' is an invalid operator for date "
                           "fields")
    values = _values(where, operator, value)
    try:
        day = datetime.strptime(values[0], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise GraphQLError(f"{where}.value: '{values[0]}' is not a date (YYYY-MM-DD)") from None
    following = day + timedelta(days=1)
    if operator == "EQUALS":
        return and_(column >= day, column < following)
    if operator == "LESS_THAN_EQUALS":
        return column < following
    return column >= day


def project_filter_conditions(filter_: Any) -> list[ColumnElement]:
    return PROJECT_FILTER.conditions(filter_, {
        "name_or_puid": (Project.name, Project.puid), "name": Project.name,
        "puid": Project.puid, "created_at": Project.created,
        "updated_at": func.coalesce(Project.modified, Project.created)}, where="filter.")
