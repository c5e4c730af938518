"""Depth and complexity limits, checked before anything runs.

Costs follow IRIDA Next's (graphql-ruby's) rule: every field costs 1, and a connection
costs 1 plus its page size times what each of its ``nodes``/``edges`` costs, plus the rest of
its selection; the page size is ``first``/``last`` (clamped to 100) or 25. So
``samples(first: 100) { nodes { name metadata project { fullPath } } }`` costs 402, and at
most about five fields per node fit in one page of 100 under the default limit of 550.

Costs count what the answer holds, so that no small query asks for a large answer:

- a field answering a list for a list argument (``nodes(ids: [...])``) costs 1 plus its
  selection once per item of the argument;
- introspection (``__schema``, ``__type``, ``__typename``) is free under its own name, so
  GraphiQL always works: a selection set holds one answer per name. Under an alias it can be
  repeated, so an aliased introspection field costs what it returns: each list in it
  (``types``, ``fields``, ``args``, ...) counts as long as the longest such list of the
  schema.

The size of the answer is bounded as well (``seqcore.graphql.max_response_bytes``, in
:mod:`seqcore.graphql.view`), for what costs cannot foresee (long metadata values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLObjectType,
    InlineFragmentNode,
    OperationDefinitionNode,
    ValidationRule,
    get_named_type,
    get_nullable_type,
    value_from_ast_untyped,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef

from seqcore.graphql.connections import DEFAULT_PAGE, MAX_PAGE


class NoNulInStrings(ValidationRule):
    """A string literal may not hold a NUL (``"\\u0000"``): no text seqcore stores may
    (PostgreSQL's cannot), and refused here it is a validation error rather than an internal
    one when the database sees it. Variables are checked where they are decoded
    (:mod:`seqcore.parsing.jsontext`)."""

    def enter_string_value(self, node: Any, *_: Any) -> None:
        if "\x00" in node.value:
            self.report_error(GraphQLError(
                "A string holds a NUL character (\\u0000), which no text may contain.",
                node))


def limit_rule(max_depth: int, max_complexity: int, variables: Mapping[str, Any] | None
               ) -> type[ValidationRule]:
    """A validation rule for one request (it needs the request's variables)."""

    class Limits(ValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            schema = self.context.schema
            root = schema.get_root_type(node.operation)
            if root is None:
                return
            fragments = {f.name.value: f for f in self.context.document.definitions
                         if isinstance(f, FragmentDefinitionNode)}
            walker = _Walker(schema, fragments, variables or {})
            depth = walker.depth(node.selection_set, 0, frozenset())
            if depth > max_depth:
                self.report_error(GraphQLError(
                    f"Query has depth of {depth}, which exceeds max depth of {max_depth}",
                    node, extensions={"code": "max_depth_exceeded"}))
                return
            cost = walker.cost(node.selection_set, root, frozenset())
            if cost > max_complexity:
                self.report_error(GraphQLError(
                    f"Query has complexity of {cost}, which exceeds max complexity of "
                    f"{max_complexity}", node, extensions={"code": "max_complexity_exceeded"}))

    return Limits


# The introspection lists of a type and what each holds.
_INTROSPECTION_LISTS = {
    ("__Type", "fields"): lambda t: len(getattr(t, "fields", None) or {}),
    ("__Type", "inputFields"): lambda t: len(getattr(t, "fields", None) or {}),
    ("__Type", "enumValues"): lambda t: len(getattr(t, "values", None) or {}),
    ("__Type", "interfaces"): lambda t: len(getattr(t, "interfaces", None) or ()),
    ("__Type", "possibleTypes"): lambda t: len(getattr(t, "types", None) or ()),
}


def _introspection_sizes(schema: Any) -> dict[tuple[str, str], int]:
    """The longest list each introspection field can answer in this schema."""
    types = list(schema.type_map.values())
    sizes = {key: max((size(t) for t in types), default=0)
             for key, size in _INTROSPECTION_LISTS.items()}
    field_args = [len(getattr(f, "args", None) or {}) for t in types
                  for f in (getattr(t, "fields", None) or {}).values()]
    sizes[("__Schema", "types")] = len(types)
    sizes[("__Schema", "directives")] = len(schema.directives)
    sizes[("__Field", "args")] = max(field_args, default=0)
    sizes[("__Directive", "args")] = max((len(d.args) for d in schema.directives), default=0)
    sizes[("__Directive", "locations")] = max((len(d.locations) for d in schema.directives),
                                             default=0)
    return sizes


class _Walker:
    def __init__(self, schema: Any, fragments: dict[str, Any], variables: Mapping[str, Any]
                 ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = dict(variables)  # graphql-core reads variables from a dict
        self._sizes: dict[tuple[str, str], int] | None = None

    def _list_length(self, owner: Any, definition: Any, field: FieldNode) -> int:
        """How many items a list field answers, where its arguments or the schema say;
        1 where nothing does (the field's own limits apply, as connections' pages do)."""
        if not isinstance(get_nullable_type(definition.type), GraphQLList):
            return 1
        name = getattr(owner, "name", "")
        if name.startswith("__"):
            if self._sizes is None:
                self._sizes = _introspection_sizes(self.schema)
            return self._sizes.get((name, field.name.value), 1)
        lengths = []
        for argument in field.arguments:
            value = value_from_ast_untyped(argument.value, self.variables)
            if isinstance(value, list):
                lengths.append(len(value))
        return max(lengths) if lengths else 1

    def _selections(self, selection_set: Any, seen: frozenset[str]
                    ) -> list[tuple[Any, str | None, frozenset[str]]]:
        """Fields of a selection set with fragments inlined (``(field, type condition)``)."""
        out: list[tuple[Any, str | None, frozenset[str]]] = []
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                out.append((selection, None, seen))
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition.name.value if selection.type_condition \
                    else None
                out.extend((f, c or condition, s) for f, c, s in
                           self._selections(selection.selection_set, seen))
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = self.fragments.get(name)
                if fragment is None or name in seen:
                    continue
                condition = fragment.type_condition.name.value
                out.extend((f, c or condition, s) for f, c, s in
                           self._selections(fragment.selection_set, seen | {name}))
        return out

    def depth(self, selection_set: Any, level: int, seen: frozenset[str]) -> int:
        deepest = level
        for field, _, inner_seen in self._selections(selection_set, seen):
            if field.name.value.startswith("__"):
                continue
            deepest = max(deepest, self.depth(field.selection_set, level + 1, inner_seen))
        return deepest

    def cost(self, selection_set: Any, parent: Any, seen: frozenset[str]) -> int:
        total = 0
        for field, condition, inner_seen in self._selections(selection_set, seen):
            name = field.name.value
            if name.startswith("__") and field.alias is None:
                continue  # one answer per selection set, however often it is asked
            owner = self.schema.get_type(condition) if condition else parent
            definition = _META_FIELDS.get(name) or (
                getattr(owner, "fields", {}).get(name) if owner is not None else None)
            if definition is None:
                total += 1
                continue
            child_type = get_named_type(definition.type)
            if field.selection_set is None:
                total += 1
            elif _is_connection(child_type):
                total += 1 + self._connection_cost(field, child_type, inner_seen)
            else:
                total += 1 + self._list_length(owner, definition, field) * self.cost(
                    field.selection_set, child_type, inner_seen)
        return total

    def _connection_cost(self, field: FieldNode, connection: Any, seen: frozenset[str]
                         ) -> int:
        page = self._page_size(field)
        total = 0
        for child, _, inner_seen in self._selections(field.selection_set, seen):
            name = child.name.value
            definition = connection.fields.get(name)
            if definition is None:
                total += 1
                continue
            child_type = get_named_type(definition.type)
            if child.selection_set is None:
                total += 1
            elif name in ("nodes", "edges"):  # the list once, its items once per page row
                total += 1 + page * self.cost(child.selection_set, child_type, inner_seen)
            else:
                total += 1 + self.cost(child.selection_set, child_type, inner_seen)
        return total

    def _page_size(self, field: FieldNode) -> int:
        sizes = []
        for argument in field.arguments:
            if argument.name.value in ("first", "last"):
                value = value_from_ast_untyped(argument.value, self.variables)
                if isinstance(value, int) and not isinstance(value, bool):
                    sizes.append(max(0, min(MAX_PAGE, value)))
        return max(sizes) if sizes else DEFAULT_PAGE


_META_FIELDS = {"__schema": SchemaMetaFieldDef, "__type": TypeMetaFieldDef}


def _is_connection(named: Any) -> bool:
    return (isinstance(named, GraphQLObjectType) and named.name.endswith("Connection")
            and "pageInfo" in named.fields)
