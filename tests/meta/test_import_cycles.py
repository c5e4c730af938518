"""No module of seqcore imports itself through others: the import graph has no circles.

A circle ties its modules into one unit that can only be understood, tested and changed
together, and hides which of them is the lower layer. grimp reads every ``import`` statement,
those inside functions too, so moving an import into a function does not hide a circle.
"""

from __future__ import annotations

import sys

import grimp
import pytest

pytestmark = pytest.mark.database_independent


def circles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0

    def visit(module: str) -> None:
        nonlocal counter
        index[module] = low[module] = counter
        counter += 1
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(group)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("seqcore", cache_dir=None)


def test_no_import_circles(graph):
    assert [sorted(group) for group in circles(graph)] == []


def test_circles_are_found():
    """The check itself: an edge back from a module to one that imports it is a circle."""
    graph = grimp.build_graph("seqcore", cache_dir=None)
    graph.add_import(importer="seqcore.errors.domain", imported="seqcore.parsing.schemas")
    assert {"seqcore.errors.domain", "seqcore.parsing.schemas"} in circles(graph)
