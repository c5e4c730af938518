"""A phylogenetic tree drawn on the server as an inline SVG rectangular cladogram, its tips
coloured by a category (a metadata value), with a legend.

The page shows the whole tree without JavaScript; the ``tree`` Stimulus controller
(``static/controllers.js``) adds zoom, a search that highlights matching tips, and clades
that collapse into a wedge and expand again when their node is clicked (or focused and
activated with Enter or Space). The
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
             missing: str = "-", width: int = 720,
             clade_title: str = "${count} tips") -> Markup:
    """The tree as a rectangular cladogram (tips aligned on the right, one row each).

    ``categories`` maps tip names to a value (a metadata field's); each distinct value gets
    a colour of :data:`PALETTE` (after the eighth, colours repeat), tips without one are
    grey and listed as ``missing`` in the legend. Each tip is a ``g.tip`` with
    ``data-name`` (and ``data-category``) for the search, and a ``<title>`` naming it.

    Each inner node is a ``g.clade`` holding its branches, its children and a ``g.node``
    handle (``data-tips``: how many tips below; ``<title>``: ``clade_title`` with
    ``${count}``), with a hidden ``g.collapsed`` wedge the ``tree`` controller shows instead
    of the children when the clade is collapsed. Without JavaScript the drawing is the whole
    tree.
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
    row = iter(range(len(tips)))
    tip_x = LEFT + levels * step

    def line(parent: ET.Element, css: str, x1: float, x2: float, y1: float, y2: float) -> None:
        ET.SubElement(parent, "line", {"class": css, "x1": _n(x1), "x2": _n(x2),
                                       "y1": _n(y1), "y2": _n(y2)})

    def place(parent: ET.Element, node: TreeNode, level: int,
              parent_x: float) -> tuple[float, int]:
        """Draw ``node``'s subtree into ``parent``; its y (tips: their row; inner nodes: the
        middle of their first and last child) and how many tips it holds."""
        x = LEFT + level * step
        if not node.children:
            y = TOP + next(row) * ROW + ROW / 2
            tip = _tip(parent, node.name, tip_x, y, (categories or {}).get(node.name), colour,
                       missing)
            if level > 0:
                line(tip, "branch", parent_x, x, y, y)
            if x < tip_x:  # a cladogram aligns the tips
                line(tip, "branch to-tip", x, tip_x, y, y)
            return y, 1
        clade = ET.SubElement(parent, "g", {"class": "clade"})
        placed = [place(clade, child, level + 1, x) for child in node.children]
        ys = [child_y for child_y, _count in placed]
        count = sum(child_count for _y, child_count in placed)
        y = (ys[0] + ys[-1]) / 2
        # The clade's own branches go before its children, so they are drawn under them.
        branches = [ET.Element("line", {"class": "branch span", "x1": _n(x), "x2": _n(x),
                                        "y1": _n(ys[0]), "y2": _n(ys[-1])})]
        if level > 0:
            branches.insert(0, ET.Element("line", {"class": "branch stem", "x1": _n(parent_x),
                                                   "x2": _n(x), "y1": _n(y), "y2": _n(y)}))
        for index, element in enumerate(branches):
            clade.insert(index, element)
        wedge = ET.SubElement(clade, "g", {"class": "collapsed", "display": "none"})
        ET.SubElement(wedge, "polygon", {
            "points": f"{_n(x)},{_n(y)} {_n(tip_x)},{_n(ys[0])} {_n(tip_x)},{_n(ys[-1])}"})
        ET.SubElement(wedge, "text", {"x": _n(tip_x + 15), "y": _n(y + 4)}).text = \
            clade_title.replace("${count}", str(count))
        handle = ET.SubElement(clade, "g", {
            "class": "node", "data-tips": str(count),
            "data-action": "click->tree#toggle keydown->tree#key"})
        ET.SubElement(handle, "title").text = clade_title.replace("${count}", str(count))
        ET.SubElement(handle, "circle", {"cx": _n(x), "cy": _n(y), "r": "4"})
        return y, count

    place(svg, root, 0, LEFT)
    if categories is not None:
        _legend(svg, width, legend_title, values, colour, missing)
    return Markup(ET.tostring(svg, encoding="unicode"))


def _n(value: float) -> str:
    """A coordinate, short."""
    return str(round(value, 2))


def _tip(group: ET.Element, name: str, x: float, y: float, value: str | None,
         colour: Mapping[str, str], missing: str) -> ET.Element:
    attributes = {"class": "tip", "data-name": name}
    if value:
        attributes["data-category"] = value
    tip = ET.SubElement(group, "g", attributes)
    ET.SubElement(tip, "title").text = f"{name}: {value or missing}"
    ET.SubElement(tip, "circle", {"cx": str(x + 6), "cy": str(y), "r": "5",
                                  "fill": colour.get(value or "", NO_VALUE)})
    ET.SubElement(tip, "text", {"x": str(x + 15), "y": str(y + 4)}).text = name
    return tip


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
