"""Robinson-Foulds distance between unrooted trees, from their newick text (no dependency:
the plugin's suite runs wherever seqcore's does)."""

from __future__ import annotations

import re


def _leaf_sets(newick: str) -> tuple[set[frozenset[str]], frozenset[str]]:
    """Every clade's leaf set (as written, rooted anywhere) and all leaves."""
    text = re.sub(r"\)[^(),;]*", ")", newick.strip().rstrip(";"))  # support labels, lengths
    text = re.sub(r":[^(),;]*", "", text)
    stack: list[set[str]] = [set()]
    clades: list[frozenset[str]] = []
    for token in re.findall(r"[(),]|[^(),]+", text):
        if token == "(":
            stack.append(set())
        elif token == ")":
            clade = stack.pop()
            clades.append(frozenset(clade))
            stack[-1] |= clade
        elif token != ",":
            stack[-1].add(token.strip())
    leaves = frozenset(stack[0])
    return set(clades), leaves


def splits(newick: str) -> tuple[set[frozenset[str]], frozenset[str]]:
    """Non-trivial bipartitions, each named by the side without the first leaf."""
    clades, leaves = _leaf_sets(newick)
    anchor = min(leaves)
    out = set()
    for clade in clades:
        side = clade if anchor not in clade else leaves - clade
        if 1 < len(side) < len(leaves) - 1:
            out.add(frozenset(side))
    return out, leaves


def robinson_foulds(a: str, b: str) -> int:
    splits_a, leaves_a = splits(a)
    splits_b, leaves_b = splits(b)
    assert leaves_a == leaves_b, (leaves_a, leaves_b)
    return len(splits_a ^ splits_b)
