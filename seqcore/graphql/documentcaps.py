"""What a GraphQL document may hold, counted in one pass before anything walks it.

Validation walks a document many times (graphql-core's rules, the depth and complexity
limits of :mod:`seqcore.graphql.limits`); a walk that follows fragment spreads sees a
fragment once per spread, so fragments that each spread the previous one twice make a
sub-kilobyte document expand to millions of fields. Before any walk, :func:`check_document`
therefore counts, in one linear pass over the parsed document: operations, fragment
definitions, fragment spreads, fields, aliases and directives, and, from the fragments'
own counts (each fragment counted once, in dependency order), how many fields the
document holds once every spread is expanded. Each has a cap (settings
``seqcore.graphql.max_*``), sized far above what GraphiQL's introspection query and IRIDA
Next's clients send. The parser itself stops at ``seqcore.graphql.max_tokens`` tokens and
``seqcore.graphql.max_document_bytes`` characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DirectiveNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    OperationDefinitionNode,
)

CAPS = {
    "operations": ("seqcore.graphql.max_operations", "operations"),
    "fragments": ("seqcore.graphql.max_fragments", "fragment definitions"),
    "spreads": ("seqcore.graphql.max_spreads", "fragment spreads"),
    "fields": ("seqcore.graphql.max_fields", "fields"),
    "aliases": ("seqcore.graphql.max_aliases", "aliases"),
    "directives": ("seqcore.graphql.max_directives", "directives"),
    "expanded": ("seqcore.graphql.max_expanded_fields", "fields once its fragments are "
                 "expanded"),
}


@dataclass
class _Counts:
    fields: int = 0
    aliases: int = 0
    spreads: int = 0
    directives: int = 0
    # The fragments this part spreads (by name, how often).
    spread_names: dict[str, int] = field(default_factory=dict)


def _count(node: Any, counts: _Counts) -> None:
    """Count what the selections under ``node`` hold, without following spreads (an
    explicit stack: a deeply nested document must not exhaust Python's recursion)."""
    stack = [node]
    while stack:
        current = stack.pop()
        for directive in getattr(current, "directives", None) or ():
            if isinstance(directive, DirectiveNode):
                counts.directives += 1
        if isinstance(current, FieldNode):
            counts.fields += 1
            if current.alias is not None:
                counts.aliases += 1
        elif isinstance(current, FragmentSpreadNode):
            counts.spreads += 1
            name = current.name.value
            counts.spread_names[name] = counts.spread_names.get(name, 0) + 1
        selection_set = getattr(current, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)


def _expanded(parts: Mapping[str, _Counts], roots: list[_Counts], limit: int) -> int:
    """Fields once every spread is expanded, each fragment's size computed once; stops
    counting past ``limit`` (a cycle, which validation reports, counts as past it)."""
    sizes: dict[str, int] = {}
    visiting: set[str] = set()

    def size(name: str) -> int:
        if name in sizes:
            return sizes[name]
        part = parts.get(name)
        if part is None:
            return 0
        if name in visiting:
            return limit + 1
        visiting.add(name)
        total = part.fields
        for inner, times in part.spread_names.items():
            total += times * size(inner)
            if total > limit:
                break
        visiting.discard(name)
        sizes[name] = min(total, limit + 1)
        return sizes[name]

    total = 0
    for root in roots:
        total += root.fields + sum(times * size(name)
                                       for name, times in root.spread_names.items())
        if total > limit:
            return limit + 1
    return total


def check_document(document: DocumentNode, settings: Mapping[str, Any]) -> GraphQLError | None:
    """The first cap ``document`` exceeds, as the error to answer; ``None`` when it fits."""
    totals = _Counts()
    operations = 0
    fragments: dict[str, _Counts] = {}
    roots: list[_Counts] = []
    for definition in document.definitions:
        counts = _Counts()
        _count(definition, counts)
        if isinstance(definition, OperationDefinitionNode):
            operations += 1
            roots.append(counts)
        elif isinstance(definition, FragmentDefinitionNode):
            fragments.setdefault(definition.name.value, counts)
        totals.fields += counts.fields
        totals.aliases += counts.aliases
        totals.spreads += counts.spreads
        totals.directives += counts.directives
    found = {"operations": operations, "fragments": len(fragments), "spreads": totals.spreads,
             "fields": totals.fields, "aliases": totals.aliases,
             "directives": totals.directives}
    for key, value in found.items():
        error = _over(key, value, settings)
        if error is not None:
            return error
    limit = int(settings[CAPS["expanded"][0]])
    return _over("expanded", _expanded(fragments, roots, limit), settings)


def _over(key: str, value: int, settings: Mapping[str, Any]) -> GraphQLError | None:
    name, what = CAPS[key]
    limit = int(settings[name])
    if value <= limit:
        return None
    shown = f"more than {limit}" if key == "expanded" else str(value)
    return GraphQLError(f"The document has {shown} {what}; at most {limit} are accepted "
                        f"({name}).", extensions={"code": "document_too_large"})


__all__ = ["CAPS", "check_document"]
