"""Small charts drawn on the server as inline SVG: a line chart, a box plot per position, a
bar chart, a scatter plot and a heat map, each with axes, tick labels and axis titles.

Pages that show numbers as plots stay readable without JavaScript and without a plotting
library in the browser, and screen readers get each chart's ``<title>`` and ``<desc>`` (the
``<svg>`` is ``role="img"`` labelled by them), so the description should say what the chart
shows in words. The SVG is built with :mod:`xml.etree.ElementTree`, which escapes every
text, and returned as :class:`markupsafe.Markup` so templates insert it as it is.
Colours come from CSS classes (``site.css``: ``.chart``, ``.series-N``, ``.band-pass`` ...).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field

from markupsafe import Markup

WIDTH = 720
HEIGHT = 320
MARGIN_LEFT = 56
MARGIN_RIGHT = 28  # half of a middle-anchored tick label ("100,000") at the last tick
MARGIN_TOP = 16
MARGIN_BOTTOM = 56


@dataclass(frozen=True)
class Series:
    """One line of a line chart: ``points`` are (x, y); ``dashed`` draws a reference curve."""

    name: str
    points: Sequence[tuple[float, float]]
    dashed: bool = False


@dataclass(frozen=True)
class Box:
    """One position of a box plot: whiskers at ``low`` and ``high`` (e.g. the 10th and 90th
    percentiles), the box from ``lower`` to ``upper`` quartile, a line at the ``median`` and a
    point at the ``mean``. A position without percentiles has only its mean."""

    label: str
    mean: float
    low: float | None = None
    lower: float | None = None
    median: float | None = None
    upper: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Band:
    """A horizontal background band from ``low`` to ``high`` (y values) with a CSS class, such
    as FastQC's green, orange and red quality zones."""

    low: float
    high: float
    css: str


@dataclass
class Frame:
    """The plotting area and the mapping from data to SVG coordinates."""

    x_min: float
    x_max: float
    y_min: float
    y_max: float
    width: int = WIDTH
    height: int = HEIGHT
    inner: tuple[float, float, float, float] = field(init=False)

    def __post_init__(self) -> None:
        if self.x_max <= self.x_min:
            self.x_max = self.x_min + 1
        if self.y_max <= self.y_min:
            self.y_max = self.y_min + 1
        self.inner = (MARGIN_LEFT, MARGIN_TOP, self.width - MARGIN_RIGHT,
                      self.height - MARGIN_BOTTOM)

    def x(self, value: float) -> float:
        left, _top, right, _bottom = self.inner
        return round(left + (value - self.x_min) / (self.x_max - self.x_min) * (right - left), 2)

    def y(self, value: float) -> float:
        _left, top, _right, bottom = self.inner
        return round(bottom - (value - self.y_min) / (self.y_max - self.y_min) * (bottom - top), 2)


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """About ``count`` round tick values (1, 2 or 5 times a power of ten apart) covering
    ``low`` to ``high``."""
    if high <= low:
        return [low]
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _label(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _svg(ident: str, title: str, description: str, frame: Frame) -> ET.Element:
    svg = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "class": "chart", "role": "img",
        "viewBox": f"0 0 {frame.width} {frame.height}", "id": ident,
        "aria-labelledby": f"{ident}-title {ident}-desc"})
    ET.SubElement(svg, "title", {"id": f"{ident}-title"}).text = title
    ET.SubElement(svg, "desc", {"id": f"{ident}-desc"}).text = description
    return svg


def _axes(svg: ET.Element, frame: Frame, x_label: str, y_label: str,
          x_ticks: Sequence[tuple[float, str]], y_ticks: Sequence[float]) -> None:
    left, top, right, bottom = frame.inner
    axes = ET.SubElement(svg, "g", {"class": "axes", "aria-hidden": "true"})
    for value in y_ticks:
        y = frame.y(value)
        ET.SubElement(axes, "line", {"class": "grid", "x1": str(left), "x2": str(right),
                                     "y1": str(y), "y2": str(y)})
        ET.SubElement(axes, "text", {"x": str(left - 6), "y": str(y + 4),
                                     "text-anchor": "end"}).text = _label(value)
    for x, text in x_ticks:
        ET.SubElement(axes, "line", {"x1": str(x), "x2": str(x), "y1": str(bottom),
                                     "y2": str(bottom + 4)})
        ET.SubElement(axes, "text", {"x": str(x), "y": str(bottom + 18),
                                     "text-anchor": "middle"}).text = text
    ET.SubElement(axes, "line", {"x1": str(left), "x2": str(right), "y1": str(bottom),
                                 "y2": str(bottom)})
    ET.SubElement(axes, "line", {"x1": str(left), "x2": str(left), "y1": str(top),
                                 "y2": str(bottom)})
    ET.SubElement(axes, "text", {"class": "axis-title", "x": str((left + right) / 2),
                                 "y": str(frame.height - 10),
                                 "text-anchor": "middle"}).text = x_label
    ET.SubElement(axes, "text", {
        "class": "axis-title", "x": str(-(top + bottom) / 2), "y": "14",
        "transform": "rotate(-90)", "text-anchor": "middle"}).text = y_label


def _thin(labels: Sequence[str], limit: int = 20) -> set[int]:
    """Indexes of the category labels to print (at most about ``limit``)."""
    step = max(1, math.ceil(len(labels) / limit))
    return set(range(0, len(labels), step))


def thinned(labels: Sequence[str], limit: int = 20) -> set[int]:
    """Indexes of the category labels a chart prints (at most about ``limit``), for
    callers that pass their own ticks."""
    return _thin(labels, limit)


def _markup(svg: ET.Element) -> Markup:
    return Markup(ET.tostring(svg, encoding="unicode", short_empty_elements=True))


def _bands(svg: ET.Element, frame: Frame, bands: Sequence[Band]) -> None:
    left, _top, right, _bottom = frame.inner
    group = ET.SubElement(svg, "g", {"class": "bands", "aria-hidden": "true"})
    for band in bands:
        high = min(band.high, frame.y_max)
        low = max(band.low, frame.y_min)
        if high <= low:
            continue
        ET.SubElement(group, "rect", {
            "class": band.css, "x": str(left), "width": str(right - left),
            "y": str(frame.y(high)), "height": str(round(frame.y(low) - frame.y(high), 2))})


def line_chart(ident: str, title: str, description: str, series: Sequence[Series], *,
               x_label: str, y_label: str, y_range: tuple[float, float] | None = None,
               x_range: tuple[float, float] | None = None,
               x_ticks: Sequence[tuple[float, str]] | None = None,
               rules: Sequence[tuple[float, str]] = ()) -> Markup:
    """Lines through each series' points, with a legend when there is more than one.

    ``x_ticks`` (x, label) replaces the numeric x ticks, for categories such as FastQC's
    duplication levels; ``rules`` draws dashed horizontal lines (y, label)."""
    xs = [x for line in series for x, _y in line.points]
    ys = [y for line in series for _x, y in line.points]
    x_min, x_max = x_range or (min(xs, default=0), max(xs, default=1))
    y_min, y_max = y_range or (0, max(ys, default=1) * 1.05 or 1)
    frame = Frame(x_min, x_max, y_min, y_max)
    svg = _svg(ident, title, description, frame)
    ticks = ([(frame.x(x), text) for x, text in x_ticks] if x_ticks is not None else
             [(frame.x(t), _label(t)) for t in nice_ticks(frame.x_min, frame.x_max, 10)])
    _axes(svg, frame, x_label, y_label, ticks, nice_ticks(frame.y_min, frame.y_max))
    _rules(svg, frame, rules)
    for index, line in enumerate(series):
        css = f"series series-{index}" + (" dashed" if line.dashed else "")
        group = ET.SubElement(svg, "g", {"class": css})
        ET.SubElement(group, "title").text = line.name
        points = " ".join(f"{frame.x(x)},{frame.y(y)}" for x, y in line.points)
        ET.SubElement(group, "polyline", {"points": points, "fill": "none"})
    if len(series) > 1:
        _legend(svg, frame, [line.name for line in series],
                [line.dashed for line in series])
    return _markup(svg)


def _rules(svg: ET.Element, frame: Frame, rules: Sequence[tuple[float, str]]) -> None:
    """Dashed horizontal lines (class ``rule``) at the given y values, labelled."""
    left, _top, right, _bottom = frame.inner
    for value, text in rules:
        if not frame.y_min <= value <= frame.y_max:
            continue
        y = frame.y(value)
        group = ET.SubElement(svg, "g", {"class": "rule"})
        ET.SubElement(group, "line", {"x1": str(left), "x2": str(right),
                                      "y1": str(y), "y2": str(y)})
        ET.SubElement(group, "text", {"x": str(left + 4), "y": str(y - 4)}).text = text


def _legend(svg: ET.Element, frame: Frame, names: Sequence[str],
            dashed: Sequence[bool]) -> None:
    _left, top, right, _bottom = frame.inner
    legend = ET.SubElement(svg, "g", {"class": "legend", "aria-hidden": "true"})
    # Room for the longest name (about 6 units a character at the charts' font size).
    start = right - max(150, 30 + 6 * max((len(name) for name in names), default=0))
    for index, name in enumerate(names):
        y = top + 8 + index * 16
        css = f"series series-{index}" + (" dashed" if dashed[index] else "")
        group = ET.SubElement(legend, "g", {"class": css})
        ET.SubElement(group, "line", {"x1": str(start), "x2": str(start + 20),
                                      "y1": str(y), "y2": str(y)})
        ET.SubElement(legend, "text", {"x": str(start + 26), "y": str(y + 4)}).text = name


def box_plot(ident: str, title: str, description: str, boxes: Sequence[Box], *,
             x_label: str, y_label: str, y_range: tuple[float, float] | None = None,
             bands: Sequence[Band] = ()) -> Markup:
    """One box (class ``box``) per position, in order, over optional background bands."""
    values = [v for b in boxes for v in (b.low, b.high, b.mean) if v is not None]
    y_min, y_max = y_range or (0, max(values, default=1) * 1.05 or 1)
    frame = Frame(0, max(len(boxes), 1), y_min, y_max)
    svg = _svg(ident, title, description, frame)
    _bands(svg, frame, bands)
    labels = [b.label for b in boxes]
    shown = _thin(labels)
    _axes(svg, frame, x_label, y_label,
          [(frame.x(i + 0.5), label) for i, label in enumerate(labels) if i in shown],
          nice_ticks(frame.y_min, frame.y_max))
    slot = frame.x(1) - frame.x(0)
    half = max(slot * 0.35, 0.5)
    group = ET.SubElement(svg, "g", {"class": "boxes"})
    means = []
    for index, box in enumerate(boxes):
        centre = frame.x(index + 0.5)
        item = ET.SubElement(group, "g", {"class": "box"})
        ET.SubElement(item, "title").text = _box_words(box)
        if None not in (box.low, box.high):
            ET.SubElement(item, "line", {"class": "whisker", "x1": str(centre),
                                         "x2": str(centre), "y1": str(frame.y(box.low or 0)),
                                         "y2": str(frame.y(box.high or 0))})
        if None not in (box.lower, box.upper):
            top = frame.y(box.upper or 0)
            ET.SubElement(item, "rect", {
                "x": str(round(centre - half, 2)), "width": str(round(2 * half, 2)),
                "y": str(top), "height": str(round(frame.y(box.lower or 0) - top, 2))})
        if box.median is not None:
            y = frame.y(box.median)
            ET.SubElement(item, "line", {"class": "median", "x1": str(round(centre - half, 2)),
                                         "x2": str(round(centre + half, 2)),
                                         "y1": str(y), "y2": str(y)})
        means.append(f"{centre},{frame.y(box.mean)}")
    ET.SubElement(svg, "polyline", {"class": "mean", "points": " ".join(means),
                                    "fill": "none"})
    return _markup(svg)


def _box_words(box: Box) -> str:
    """The box's numbers without words (the chart's description says what they are):
    ``label: low / lower / median / upper / high (mean)``."""
    numbers = [box.low, box.lower, box.median, box.upper, box.high]
    if all(n is None for n in numbers):
        return f"{box.label}: ({box.mean:.1f})"
    return f"{box.label}: " + " / ".join("-" if n is None else f"{n:g}" for n in numbers) \
        + f" ({box.mean:.1f})"


def bar_chart(ident: str, title: str, description: str, bars: Sequence[tuple[str, float]], *,
              x_label: str, y_label: str, y_range: tuple[float, float] | None = None) -> Markup:
    """One bar (class ``bar``) per (label, value), in order."""
    y_min, y_max = y_range or (0, max((v for _l, v in bars), default=1) * 1.05 or 1)
    frame = Frame(0, max(len(bars), 1), y_min, y_max)
    svg = _svg(ident, title, description, frame)
    labels = [label for label, _v in bars]
    shown = _thin(labels)
    _axes(svg, frame, x_label, y_label,
          [(frame.x(i + 0.5), label) for i, label in enumerate(labels) if i in shown],
          nice_ticks(frame.y_min, frame.y_max))
    slot = frame.x(1) - frame.x(0)
    group = ET.SubElement(svg, "g", {"class": "bars"})
    for index, (label, value) in enumerate(bars):
        top = frame.y(min(value, frame.y_max))
        rect = ET.SubElement(group, "rect", {
            "class": "bar", "x": str(round(frame.x(index) + slot * 0.1, 2)),
            "width": str(round(slot * 0.8, 2)), "y": str(top),
            "height": str(round(frame.y(frame.y_min) - top, 2))})
        ET.SubElement(rect, "title").text = f"{label}: {_label(value)}"
    return _markup(svg)


def heatmap(ident: str, title: str, description: str,
            rows: Sequence[tuple[str, Sequence[float]]], columns: Sequence[str], *,
            x_label: str, y_label: str, limit: float, step: float = 1.0) -> Markup:
    """A grid of cells (class ``cell``), one row per (label, values) from the top and one
    column per ``columns`` label, coloured by value (:func:`heat_colour`: 0 blue,
    ``-limit`` and below red, yellow between; positive values fade to white).

    Values are coloured in ``step``-sized bands, and neighbouring cells of a row with the
    same colour are drawn as one rectangle, so a flow cell of hundreds of tiles stays a page
    of reasonable size. Each rectangle's ``<title>`` holds its row, columns and values; the
    chart's description should say in words what stands out, since a screen reader does
    not walk the cells."""
    frame = Frame(0, max(len(columns), 1), 0, max(len(rows), 1))
    svg = _svg(ident, title, description, frame)
    shown = _thin(columns)
    _axes(svg, frame, x_label, y_label,
          [(frame.x(i + 0.5), label) for i, label in enumerate(columns) if i in shown], [])
    left, _top, _right, _bottom = frame.inner
    labels = ET.SubElement(svg, "g", {"class": "axes", "aria-hidden": "true"})
    row_shown = _thin([label for label, _values in rows], 24)
    height = round(frame.y(0) - frame.y(1), 2)
    cells = ET.SubElement(svg, "g", {"class": "cells"})
    for index, (label, values) in enumerate(rows):
        top = frame.y(len(rows) - index)
        if index in row_shown:
            ET.SubElement(labels, "text", {"x": str(left - 6),
                                           "y": str(round(top + height / 2 + 4, 2)),
                                           "text-anchor": "end"}).text = label
        colours = [heat_colour(round(value / step) * step, limit) for value in values]
        start = 0
        while start < len(values):
            colour = colours[start]
            end = start + 1
            while end < len(values) and colours[end] == colour:
                end += 1
            cell = ET.SubElement(cells, "rect", {
                "class": "cell", "x": str(frame.x(start)), "y": str(top),
                "width": str(round(frame.x(end) - frame.x(start), 2)), "height": str(height),
                "fill": colour})
            run = values[start:end]
            where = columns[start] if end - start == 1 else f"{columns[start]} - {columns[end - 1]}"
            numbers = (f"{run[0]:.2f}" if len(run) == 1
                       else f"{min(run):.2f} .. {max(run):.2f}")
            ET.SubElement(cell, "title").text = f"{label}, {where}: {numbers}"
            start = end
    return _markup(svg)


def heat_colour(value: float, limit: float) -> str:
    """The heat map's colour of ``value``: blue at 0 and above (paler the higher), through
    yellow at ``-limit / 2`` to red at ``-limit`` and below."""
    if value >= 0:
        share = min(value / limit, 1.0) if limit > 0 else 0.0
        start, end = (46, 109, 164), (214, 228, 240)
    else:
        share = min(-value / limit, 1.0) if limit > 0 else 1.0
        if share <= 0.5:
            start, end, share = (46, 109, 164), (240, 196, 25), share * 2
        else:
            start, end, share = (240, 196, 25), (192, 57, 43), share * 2 - 1
    red, green, blue = (round(a + (b - a) * share) for a, b in zip(start, end, strict=True))
    return f"#{red:02x}{green:02x}{blue:02x}"


def scatter_chart(ident: str, title: str, description: str,
                  points: Sequence[tuple[float, float, str]], *, x_label: str, y_label: str,
                  log_x: bool = False, rules: Sequence[tuple[float, str]] = (),
                  x_range: tuple[float, float] | None = None,
                  x_ticks: Sequence[tuple[float, str]] | None = None) -> Markup:
    """One point (class ``point``, its ``<title>`` the label and values) per (x, y, label);
    ``log_x`` spaces x by powers of ten (contig lengths from hundreds to millions);
    ``rules`` draws dashed horizontal lines (y, label), e.g. limits; ``x_range`` and
    ``x_ticks`` (x, label) replace the computed ones (categories such as samples)."""
    def place_x(value: float) -> float:
        return math.log10(max(value, 1.0)) if log_x else value

    xs = [place_x(x) for x, _y, _l in points]
    ys = [y for _x, y, _l in points]
    low, high = (min(xs, default=0), max(xs, default=1))
    if log_x:
        low, high = math.floor(low), math.ceil(high)
    if x_range is not None:
        low, high = x_range
    frame = Frame(low, high, 0, max([*ys, *(y for y, _t in rules)], default=1) * 1.05 or 1)
    svg = _svg(ident, title, description, frame)
    _rules(svg, frame, rules)
    if x_ticks is not None:
        x_ticks = [(frame.x(x), text) for x, text in x_ticks]
    elif log_x:
        x_ticks = [(frame.x(p), f"{10 ** p:,.0f}") for p in range(int(frame.x_min),
                                                                 int(frame.x_max) + 1)]
    else:
        x_ticks = [(frame.x(t), _label(t)) for t in nice_ticks(frame.x_min, frame.x_max, 10)]
    _axes(svg, frame, x_label, y_label, x_ticks, nice_ticks(frame.y_min, frame.y_max))
    group = ET.SubElement(svg, "g", {"class": "points"})
    for (x, y, label), placed in zip(points, xs, strict=True):
        point = ET.SubElement(group, "circle", {"class": "point", "cx": str(frame.x(placed)),
                                                "cy": str(frame.y(y)), "r": "3.5"})
        ET.SubElement(point, "title").text = f"{label}: {_label(x)}, {_label(round(y, 2))}"
    return _markup(svg)


__all__ = ["Band", "Box", "Frame", "Series", "bar_chart", "box_plot", "heat_colour", "heatmap",
           "line_chart", "nice_ticks", "scatter_chart", "thinned"]
