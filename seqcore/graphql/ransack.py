"""IRIDA Next's ransack filter inputs: one argument ``<attribute>_<predicate>`` per attribute
and predicate, in snake_case (``name_cont``, ``byte_size_gteq``, ``created_at_lt``), all of
the given ones together (AND).

A filter is declared once, as a :class:`RansackFilter`, and gives both its GraphQL input type
(:meth:`RansackFilter.input_type`) and the SQL conditions of a given value of it
(:meth:`RansackFilter.conditions`). What differs between seqcore's filters is declared there,
never left to the code path a filter happens to take:

- **Attributes and their kind.** Each :class:`Attribute` is ``text``, ``integer`` or
  ``datetime``, and values arrive as strings (as in IRIDA Next) to be read as that kind; a
  value that is not one is a GraphQL error naming the argument (``byte_size_gt: 'many' is not
  an integer.``; an integer beyond 64 bits is "out of range", as the database binds no
  larger). ``datetime`` values are ISO 8601, in UTC when they name no offset. An attribute
  lists the predicates it offers; an attribute of several names (``name_or_puid``) holds when
  any of its columns does, as ransack's ``_or_``.
- **Case** (``case_sensitive``). A filter that ignores case compares ``lower()`` of both
  sides in ``cont``, ``start``, ``end``, ``matches`` and their negations, on every database:
  ``ProjectFilter`` and ``GroupFilter`` (``name_cont: "listeria"`` finds "Listeria"), as
  IRIDA Next's ransack fields on PostgreSQL. A case-sensitive filter compares with the
  database's plain ``LIKE``: case as given on PostgreSQL (``AttachmentFilter``'s
  ``filename_cont: "FASTQ"`` does not find "a.fastq", as IRIDA Next's), while SQLite's
  ``LIKE`` folds ASCII letters. ``i_cont`` ignores case in every filter; ``eq``, ``in`` and
  ``lt``, ``gt``... compare exactly in every filter.
- **Lists** (``any_all``). A filter may also offer ``<argument>_any`` and ``<argument>_all``
  forms taking lists, true when one or every value holds (``AttachmentFilter`` does);
  ``in_any`` and ``in_all`` are ``in`` over their list.
- **Flags** (``unrecognised_flag``). ``null``, ``not_null``, ``present`` and ``blank`` take a
  yes or no: ``true``, ``t``, ``1``, ``yes`` are yes, ``false``, ``f``, ``0`` and the empty
  string no (any case, surrounding blanks ignored); what any other value means is the
  filter's ``unrecognised_flag``: a no in ``ProjectFilter`` and ``GroupFilter``, a yes in
  ``AttachmentFilter``. Only text can be ``blank`` while not null (the empty string).
  ``true``/``false`` (and ``not_``) apply to boolean attributes, which seqcore's filters
  have none of: given on another, they are an error.

``LIKE`` patterns are escaped (``%``, ``_`` and ``\\`` are literal) except ``matches``'s,
which is a pattern. :func:`namespace_filter` declares ``ProjectFilter`` and ``GroupFilter``;
``seqcore.graphql.attachments.ATTACHMENT_FILTER`` declares ``AttachmentFilter``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Literal

import graphene
from graphql import GraphQLError
from sqlalchemy import String, and_, cast, false, func, not_, or_, true
from sqlalchemy.sql.expression import ColumnElement

Kind = Literal["text", "integer", "datetime"]

LIKE_PREDICATES = {"cont", "not_cont", "i_cont", "not_i_cont", "start", "not_start", "end",
                   "not_end", "matches", "does_not_match"}
"""Predicates comparing text whatever the attribute's kind (a number or a time as text)."""
ORDER_PREDICATES = {"eq", "not_eq", "lt", "lteq", "gt", "gteq"}
LIST_PREDICATES = {"in", "not_in"}
FLAG_PREDICATES = {"null", "not_null", "present", "blank"}
BOOLEAN_PREDICATES = {"true", "not_true", "false", "not_false"}

EVERY_PREDICATE = tuple(sorted(LIKE_PREDICATES | ORDER_PREDICATES | LIST_PREDICATES
                               | FLAG_PREDICATES | BOOLEAN_PREDICATES))
"""Every predicate Ransack generates for an attribute, alphabetically."""

NEGATED = {"not_cont": "cont", "not_i_cont": "i_cont", "not_start": "start",
           "not_end": "end", "does_not_match": "matches"}
ANY_ALL = ("_all", "_any")
TRUE_FLAGS = {"true", "t", "1", "yes"}
FALSE_FLAGS = {"false", "f", "0", ""}

INTEGER_LIMIT = 2**63
"""Integer filters compare with columns of at most 64 bits."""


@dataclass(frozen=True)
class Attribute:
    """One filtered attribute: its name, the kind its values are read as, the predicates it
    offers (in the order of the input's fields) and a description of each of its fields."""

    name: str
    kind: Kind
    predicates: tuple[str, ...]
    description: str | None = None


@dataclass(frozen=True)
class Argument:
    """What one input field asks: a predicate of an attribute, plain or ``_any``/``_all``."""

    attribute: Attribute
    predicate: str
    mode: str = ""


@dataclass(frozen=True)
class RansackFilter:
    """A ransack filter input: its GraphQL name and description, its attributes, and the
    properties the module docstring describes. ``extra`` fields (the caller's to read) come
    first in the input, then each attribute's fields."""

    name: str
    description: str
    attributes: tuple[Attribute, ...]
    case_sensitive: bool
    any_all: bool = False
    unrecognised_flag: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def arguments(self) -> dict[str, Argument]:
        """Every generated field by name, in the input's order."""
        found: dict[str, Argument] = {}
        for attribute in self.attributes:
            for predicate in attribute.predicates:
                found[f"{attribute.name}_{predicate}"] = Argument(attribute, predicate)
                if self.any_all and predicate not in FLAG_PREDICATES | BOOLEAN_PREDICATES:
                    for mode in ANY_ALL:
                        found[f"{attribute.name}_{predicate}{mode}"] = Argument(
                            attribute, predicate, mode)
        return found

    def input_type(self) -> type:
        """The graphene ``InputObjectType``: a list of strings for ``in``/``not_in`` and the
        ``_any``/``_all`` forms, a string otherwise."""
        fields: dict[str, Any] = {"__doc__": self.description}
        for name, extra in self.extra.items():
            extra.reset_counter()  # graphene orders fields by creation: extras first
            fields[name] = extra
        for name, argument in self.arguments.items():
            many = argument.predicate in LIST_PREDICATES or bool(argument.mode)
            kind = (graphene.List(graphene.NonNull(graphene.String), name=name,
                                  description=argument.attribute.description) if many
                    else graphene.String(name=name, description=argument.attribute.description))
            fields[name] = kind
        return type(self.name, (graphene.InputObjectType,), fields)

    def conditions(self, given: Mapping[str, Any] | None, columns: Mapping[str, Any],
                   where: str = "") -> list[ColumnElement[bool]]:
        """The SQL conditions of ``given``'s set fields, in its order; ``columns`` maps each
        attribute to its column expression (a tuple for an attribute of several names).
        ``where`` prefixes the argument in error messages (``"filter."``). Fields that are
        not ransack arguments (``extra``) are the caller's to read."""
        found: list[ColumnElement[bool]] = []
        for name, value in (given or {}).items():
            argument = self.arguments.get(name)
            if value is None or argument is None:
                continue
            column = columns[argument.attribute.name]
            targets = column if isinstance(column, tuple) else (column,)
            parts = [self._condition(f"{where}{name}", target, argument, value)
                     for target in targets]
            found.append(parts[0] if len(parts) == 1 else or_(*parts))
        return found

    def _condition(self, arg: str, column: Any, argument: Argument,
                   value: Any) -> ColumnElement[bool]:
        kind, predicate = argument.attribute.kind, argument.predicate
        if predicate in BOOLEAN_PREDICATES:
            raise GraphQLError(f"{arg}: {predicate} applies to boolean attributes only.")
        if predicate in FLAG_PREDICATES:
            condition = flag_condition(column, kind, predicate)
            return condition if self._flag(value) else not_(condition)
        values = value if isinstance(value, list) else [value]
        if predicate in LIST_PREDICATES:  # its _any and _all forms too: one list each way
            read = [parse(arg, kind, v) for v in values]
            if not read:
                return false() if predicate == "in" else true()
            return column.in_(read) if predicate == "in" else column.not_in(read)
        if predicate in LIKE_PREDICATES:
            parts = [like_condition(column, kind, predicate, str(v), self.case_sensitive)
                     for v in values]
        else:
            parts = [ORDER[predicate](column, parse(arg, kind, v)) for v in values]
        if not argument.mode:
            return parts[0]
        return and_(*parts) if argument.mode == "_all" else or_(*parts)

    def _flag(self, value: Any) -> bool:
        said = str(value).strip().lower()
        if said in TRUE_FLAGS:
            return True
        if said in FALSE_FLAGS:
            return False
        return self.unrecognised_flag


ORDER: dict[str, Callable[[Any, Any], ColumnElement[bool]]] = {
    "eq": lambda c, v: c == v, "not_eq": lambda c, v: c != v,
    "lt": lambda c, v: c < v, "lteq": lambda c, v: c <= v,
    "gt": lambda c, v: c > v, "gteq": lambda c, v: c >= v,
}


def escape_like(text: str) -> str:
    """``text`` as a ``LIKE`` pattern matching itself (escape character ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_condition(column: Any, kind: Kind, predicate: str, text: str,
                   case_sensitive: bool) -> ColumnElement[bool]:
    """``cont``/``start``/``end``/``matches`` (``i_cont`` ignoring case whatever
    ``case_sensitive``) and their negations; a number or a time is compared as text."""
    negated = predicate in NEGATED
    base = NEGATED.get(predicate, predicate)
    compared = column if kind == "text" else cast(column, String)
    if base == "i_cont" or not case_sensitive:
        compared, text = func.lower(compared), text.lower()
    if base == "matches":
        condition = compared.like(text)
    else:
        pattern = escape_like(text)
        pattern = {"start": f"{pattern}%", "end": f"%{pattern}"}.get(base, f"%{pattern}%")
        condition = compared.like(pattern, escape="\\")
    return not_(condition) if negated else condition


def flag_condition(column: Any, kind: Kind, predicate: str) -> ColumnElement[bool]:
    """``null``/``not_null``/``present``/``blank``, as asked for (yes): only text can be
    empty."""
    if predicate in ("null", "not_null"):
        return column.is_(None) if predicate == "null" else column.is_not(None)
    if kind != "text":
        return column.is_not(None) if predicate == "present" else column.is_(None)
    if predicate == "present":
        return and_(column.is_not(None), column != "")
    return or_(column.is_(None), column == "")


def parse(arg: str, kind: Kind, value: Any) -> Any:
    """``value`` read as ``kind``; a GraphQL error naming ``arg`` when it is not one."""
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
            moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise GraphQLError(f"{arg}: '{value}' is not a date or time (ISO 8601).") from None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return str(value)


def namespace_filter(name: str, plural: str) -> RansackFilter:
    """IRIDA Next's ``ProjectFilter`` or ``GroupFilter`` (``name``) of ``plural``: every
    ransack predicate for ``name``, ``puid`` (text) and ``created_at``, ``updated_at``
    (times), each with its ``_any``/``_all`` lists (``name_eq_any``, ``name_matches_all``),
    and ``name_or_puid_cont``, all ignoring case where IRIDA Next's do (on PostgreSQL); a
    flag that is not a yes or a no is a no."""
    return RansackFilter(
        name=name, description=f"Ransack filter of {plural}, as IRIDA Next's.",
        attributes=(Attribute("name_or_puid", "text", ("cont",), "Name or PUID contains."),
                    Attribute("name", "text", EVERY_PREDICATE),
                    Attribute("puid", "text", EVERY_PREDICATE),
                    Attribute("created_at", "datetime", EVERY_PREDICATE),
                    Attribute("updated_at", "datetime", EVERY_PREDICATE)),
        case_sensitive=False, any_all=True, unrecognised_flag=False)
