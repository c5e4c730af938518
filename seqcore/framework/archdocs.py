"""The package graph of ``docs/architecture.md``, generated from the code.

``python -m seqcore.framework.archdocs`` prints the Mermaid block that the page embeds
between its ``<!-- package graph -->`` markers: one node per package of ``seqcore`` (a group of
packages that import each other in a circle is one node), and an edge for each import that no
longer path already implies. ``tests/meta/test_architecture_documented.py`` fails while the
page's block differs from this output or the page leaves a package unnamed.

It reads the imports with grimp and reduces the graph with networkx, both tools of the test
extra, imported only here.
"""

from __future__ import annotations

import pkgutil
import sys
from typing import Any

import seqcore

#: Modules left out of the picture: the package's own ``__init__`` (markers and the version)
#: and the test kit, which stands beside the application rather than in it.
LEFT_OUT = {"seqcore", "seqcore.testing"}

#: Packages whose modules sit in different layers (pyproject.toml's layers contract names
#: them module by module): each of their modules is a node of its own.
SPLIT = {"seqcore.observability", "seqcore.oauth"}


def packages() -> list[str]:
    """Every top-level module and package of ``seqcore``, as ``ls seqcore`` shows them."""
    return sorted(f"seqcore.{info.name}" for info in pkgutil.iter_modules(seqcore.__path__))


def package_graph() -> Any:
    """The graph of direct imports between the top-level packages (a ``networkx.DiGraph``)."""
    import grimp
    import networkx

    graph = grimp.build_graph("seqcore", cache_dir=None)
    tops = [name for name in packages() if name not in LEFT_OUT | SPLIT]
    tops += sorted(module for module in graph.modules
                   if ".".join(module.split(".")[:2]) in SPLIT and module.count(".") == 2)
    result: networkx.DiGraph[str] = networkx.DiGraph()
    result.add_nodes_from(tops)

    def top(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:3] if ".".join(parts[:2]) in SPLIT else parts[:2])

    for module in graph.modules:
        source = top(module)
        if source not in result:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = top(imported)
            if target != source and target in result:
                result.add_edge(source, target)
    return result


def mermaid() -> str:
    """The Mermaid flowchart of the condensed, transitively reduced package graph."""
    import networkx

    graph = package_graph()
    condensed = networkx.condensation(graph)
    reduced = networkx.transitive_reduction(condensed)
    names = {}
    for node, data in condensed.nodes(data=True):
        members = sorted(name.removeprefix("seqcore.") for name in data["members"])
        names[node] = members
    # Node ids come from the members' names, so the output is the same on every run.
    ids = {node: members[0].replace(".", "_") for node, members in names.items()}
    lines = ["```mermaid", "flowchart TD"]
    for node in sorted(names, key=lambda n: names[n]):
        label = "<br/>".join(names[node])
        lines.append(f'    {ids[node]}["{label}"]')
    for source, target in sorted(reduced.edges, key=lambda e: (names[e[0]], names[e[1]])):
        lines.append(f"    {ids[source]} --> {ids[target]}")
    lines.append("```")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(mermaid())
