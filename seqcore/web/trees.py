"""A phylogenetic tree drawn on the server as an inline SVG rectangular cladogram, its tips
coloured by a category (a metadata value), with a legend.

The page shows the tree without JavaScript; the ``tree`` Stimulus controller
(``static/controllers.js``) adds zoom and a search that highlights matching tips. The
drawing takes a plain :class:`TreeNode` structure, so the core needs no tree library: a
plugin parses its own format (Newick with Bio.Phylo, ...) into it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field

from markupsafe import Markup

# Okabe and Ito's palette: told apart with every common colour-vision deficiency.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
NO_VALUE = "#999999"
ROW = 20
LABEL_ROOM = 220
LEFT = 16
LEGEND_WIDTH = 180
TOP = 16


@dataclass
class TreeNode:
    """A node: ``name`` (tips are named), the ``length`` of the branch above it, children."""

    name: str = ""
    length: float = 0.0
    children: list[TreeNode] = field(default_factory=list)

    def tips(self) -> list[TreeNode]:
        """The tips below this node, left to right."""
        if not self.children:
            return [self]
        return [tip for child in self.children for tip in child.tips()]


def _depth(node: TreeNode) -> int:
    return 0 if not node.children else 1 + max(_depth(child) for child in node.children)


def tree_svg(ident: str, title: str, description: str, root: TreeNode, *,
             categories: Mapping[str, str] | None = None, legend_title: str = "",
             missing: str = "-", width: int = 720) -> Markup:
    """The tree as a rectangular cladogram (tips aligned on the right, one row each).

    ``categories`` maps tip names to a value (a metadata field's); each distinct value gets
    a colour of :data:`PALETTE` (after the eighth, colours repeat), tips without one are
    grey and listed as ``missing`` in the legend. Each tip is a ``g.tip`` with
    ``data-name`` (and ``data-category``) for the search, and a ``<title>`` naming it.
    """
    tips = root.tips()
    height = TOP * 2 + max(len(tips), 1) * ROW
    levels = max(_depth(root), 1)
    step = (width - LEFT - LABEL_ROOM) / levels
    values = sorted({v for v in (categories or {}).values() if v})
    colour = {value: PALETTE[i % len(PALETTE)] for i, value in enumerate(values)}
    total_width = width
    if categories is not None:  # the legend goes right of the tip labels
        total_width += LEGEND_WIDTH
        height = max(height, TOP + 24 + (len(values) + 1) * 16)
    svg = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "class": "chart tree", "role": "img",
        "id": ident, "viewBox": f"0 0 {total_width} {height}",
        "aria-labelledby": f"{ident}-title {ident}-desc", "data-tree-target": "drawing"})
    ET.SubElement(svg, "title", {"id": f"{ident}-title"}).text = title
    ET.SubElement(svg, "desc", {"id": f"{ident}-desc"}).text = description
    branches = ET.SubElement(svg, "g", {"class": "branches", "aria-hidden": "true"})
    tip_group = ET.SubElement(svg, "g", {"class": "tips"})
    row = iter(range(len(tips)))
    tip_x = LEFT + levels * step

    def place(node: TreeNode, level: int) -> float:
        """Draw ``node``'s subtree; its y (tips: their row; inner nodes: the middle of their
        first and last child)."""
        x = LEFT + level * step
        if not node.children:
            y = TOP + next(row) * ROW + ROW / 2
            if x < tip_x:  # a cladogram aligns the tips
                ET.SubElement(branches, "line", {"class": "to-tip", "x1": str(x),
                                                 "x2": str(tip_x), "y1": str(y), "y2": str(y)})
            _tip(tip_group, node.name, tip_x, y, (categories or {}).get(node.name), colour,
                 missing)
            return y
        ys = [place(child, level + 1) for child in node.children]
        for child_y in ys:
            ET.SubElement(branches, "line", {"x1": str(x), "x2": str(round(x + step, 2)),
                                             "y1": str(child_y), "y2": str(child_y)})
        y = (ys[0] + ys[-1]) / 2
        ET.SubElement(branches, "line", {"x1": str(x), "x2": str(x), "y1": str(ys[0]),
                                         "y2": str(ys[-1])})
        return y

    place(root, 0)
    if categories is not None:
        _legend(svg, width, legend_title, values, colour, missing)
    return Markup(ET.tostring(svg, encoding="unicode"))


def _tip(group: ET.Element, name: str, x: float, y: float, value: str | None,
         colour: Mapping[str, str], missing: str) -> None:
    attributes = {"class": "tip", "data-name": name}
    if value:
        attributes["data-category"] = value
    tip = ET.SubElement(group, "g", attributes)
    ET.SubElement(tip, "title").text = f"{name}: {value or missing}"
    ET.SubElement(tip, "circle", {"cx": str(x + 6), "cy": str(y), "r": "5",
                                  "fill": colour.get(value or "", NO_VALUE)})
    ET.SubElement(tip, "text", {"x": str(x + 15), "y": str(y + 4)}).text = name


def _legend(svg: ET.Element, width: int, heading: str, values: list[str],
            colour: Mapping[str, str], missing: str) -> None:
    legend = ET.SubElement(svg, "g", {"class": "legend"})
    x = width + 10
    ET.SubElement(legend, "text", {"class": "axis-title", "x": str(x), "y": str(TOP)}
                  ).text = heading
    for index, value in enumerate([*values, missing]):
        y = TOP + 16 + index * 16
        item = ET.SubElement(legend, "g", {"class": "legend-item"})
        ET.SubElement(item, "circle", {"cx": str(x + 5), "cy": str(y - 4), "r": "5",
                                       "fill": colour.get(value, NO_VALUE)})
        ET.SubElement(item, "text", {"x": str(x + 14), "y": str(y)}).text = value


__all__ = ["PALETTE", "TreeNode", "tree_svg"]
