"""The analysis page's view of the ``histograms`` output: a table of the samples (reads, mean
read length), sortable and paged by the core's table, and each sample's read-length
histogram as the core's bar chart, with a stylesheet of the plugin's own and its messages in
English and French (``locale/``, domain ``readstats``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from seqcore.plugin import (
    Cell,
    Column,
    OutputView,
    Row,
    Table,
    TablePage,
    ViewAssets,
    ViewInput,
    bar_chart,
)

HERE = Path(__file__).resolve().parent
SORT_KEYS = {"sample": lambda item: int(item[0]), "reads": lambda item: item[1]["reads"],
             "mean": lambda item: item[1]["mean_length"]}


def histograms_context(view: ViewInput) -> dict[str, Any]:
    """The table's page of samples (in the order the query string asks) and their charts."""
    translate = view.translate
    results = json.loads(view.path.read_text())
    table = Table("readstats", (
        Column("sample", translate("Sample"), sortable=True),
        Column("reads", translate("Reads"), sortable=True, numeric=True),
        Column("mean", translate("Mean read length"), sortable=True, numeric=True)),
        default_sort="sample", page_sizes=(10, 50), caption=translate("Reads by sample"))
    state = table.state(view.request.GET)  # a bad value: 400, as on every table
    samples = sorted(results["samples"].items(), key=SORT_KEYS[state.sort or "sample"],
                     reverse=state.descending)
    shown = samples[state.offset:state.offset + state.per_page]
    rows = [Row(sample_id, (
        Cell(translate("Sample ${id}", id=sample_id), f"#readstats-{view.item.id}-{sample_id}"),
        Cell(f"{found['reads']:,}"), Cell(f"{found['mean_length']:.1f}"))) for
        sample_id, found in shown]
    charts = [(sample_id, bar_chart(
        f"readstats-{view.item.id}-{sample_id}",
        translate("Read lengths of sample ${id}", id=sample_id),
        translate("Reads by length, in bins of ${width} bases.", width=results["bin_width"]),
        [(str(length), float(count)) for length, count in found["histogram"]],
        x_label=translate("Read length (bases)"), y_label=translate("Reads")))
        for sample_id, found in shown]
    return {"table": TablePage(table, state, rows, len(samples)), "charts": charts,
            "bin_width": results["bin_width"],
            "reads": sum(found["reads"] for _id, found in samples)}


def register() -> list[Any]:
    return [
        ViewAssets("readstats", HERE / "templates", static=HERE / "static",
                   translations=HERE / "locale"),
        OutputView("readstats", "outputFile/histograms", "readstats/histograms.mako",
                   context=histograms_context),
    ]
