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
        self._depths: dict[str, int] = {}
        self._active: set[str] = set()
        self._costs: dict[tuple[str, str | None], int] = {}
        self._active_costs: set[tuple[str, str | None]] = set()
        self._connection_costs: dict[tuple[str, str, int], int] = {}

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

    # Fragments are costed once per parent type and measured once (memoised), so a walk is
    # linear in the document however often a fragment is spread; a fragment spread while
    # it is being walked (a cycle, which validation reports) counts as nothing.

    def _parts(self, selection_set: Any, parent: Any
               ) -> list[tuple[str, Any, Any]]:
        """The selection set's fields and its fragments, each with the type it applies to:
        ``("field", node, owner)``, ``("inline", node, owner)``, ``("spread", name, owner)``."""
        out: list[tuple[str, Any, Any]] = []
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                out.append(("field", selection, parent))
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                owner = self.schema.get_type(condition.name.value) if condition else parent
                out.append(("inline", selection.selection_set, owner))
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments.get(selection.name.value)
                if fragment is not None:
                    owner = self.schema.get_type(fragment.type_condition.name.value)
                    out.append(("spread", selection.name.value, owner))
        return out

    def depth(self, selection_set: Any, level: int, seen: frozenset[str]) -> int:
        return level + self._depth(selection_set)

    def _depth(self, selection_set: Any) -> int:
        """How many levels of fields lie below ``selection_set`` (itself excluded)."""
        deepest = 0
        for kind, item, _owner in self._parts(selection_set, None):
            if kind == "field":
                if not item.name.value.startswith("__"):
                    deepest = max(deepest, 1 + self._depth(item.selection_set))
            elif kind == "inline":
                deepest = max(deepest, self._depth(item))
            else:
                deepest = max(deepest, self._fragment_depth(item))
        return deepest

    def _fragment_depth(self, name: str) -> int:
        if name not in self._depths:
            if name in self._active:
                return 0
            self._active.add(name)
            self._depths[name] = self._depth(self.fragments[name].selection_set)
            self._active.discard(name)
        return self._depths[name]

    def cost(self, selection_set: Any, parent: Any, seen: frozenset[str]) -> int:
        total = 0
        for kind, item, owner in self._parts(selection_set, parent):
            if kind == "inline":
                total += self.cost(item, owner, seen)
            elif kind == "spread":
                total += self._fragment_cost(item, owner)
            else:
                total += self._field_cost(item, owner)
        return total

    def _fragment_cost(self, name: str, owner: Any) -> int:
        key = (name, getattr(owner, "name", None))
        if key not in self._costs:
            if key in self._active_costs:
                return 0
            self._active_costs.add(key)
            self._costs[key] = self.cost(self.fragments[name].selection_set, owner,
                                         frozenset())
            self._active_costs.discard(key)
        return self._costs[key]

    def _field_cost(self, field: FieldNode, owner: Any) -> int:
        name = field.name.value
        if name.startswith("__") and field.alias is None:
            return 0  # one answer per selection set, however often it is asked
        definition = _META_FIELDS.get(name) or (
            getattr(owner, "fields", {}).get(name) if owner is not None else None)
        if definition is None:
            return 1
        child_type = get_named_type(definition.type)
        if field.selection_set is None:
            return 1
        if _is_connection(child_type):
            return 1 + self._connection_cost(field.selection_set, child_type,
                                             self._page_size(field))
        return 1 + self._list_length(owner, definition, field) * self.cost(
            field.selection_set, child_type, frozenset())

    def _connection_cost(self, selection_set: Any, connection: Any, page: int) -> int:
        total = 0
        for kind, item, _owner in self._parts(selection_set, connection):
            if kind == "inline":
                total += self._connection_cost(item, connection, page)
                continue
            if kind == "spread":
                key = (item, connection.name, page)
                if key not in self._connection_costs:
                    self._connection_costs[key] = 0  # a cycle counts as nothing
                    self._connection_costs[key] = self._connection_cost(
                        self.fragments[item].selection_set, connection, page)
                total += self._connection_costs[key]
                continue
            name = item.name.value
            definition = connection.fields.get(name)
            if definition is None:
                total += 1
                continue
            child_type = get_named_type(definition.type)
            if item.selection_set is None:
                total += 1
            elif name in ("nodes", "edges"):  # the list once, its items once per page row
                total += 1 + page * self.cost(item.selection_set, child_type, frozenset())
            else:
                total += 1 + self.cost(item.selection_set, child_type, frozenset())
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
