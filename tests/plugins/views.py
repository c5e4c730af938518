"""A plugin that shows the read counter's ``counts`` output as a bar chart on the analysis
page (``register_views``), with a template directory, a static file and a catalogue of its
own (``views_locale``, domain ``readcount_views``)."""

from pathlib import Path

from seqcore.plugin import OutputView, ViewAssets, ViewInput, bar_chart, hookimpl

HERE = Path(__file__).resolve().parent


def counts_context(view: ViewInput) -> dict:
    rows = [line.split("\t") for line in view.path.read_text().splitlines() if line]
    bars = [(name, float(count)) for name, count in rows]
    return {"rows": rows, "chart": bar_chart(
        f"counts-{view.item.id}", view.translate("Reads per file"),
        "The number of reads in each input file.",
        bars, x_label="File", y_label="Reads")}


@hookimpl
def register_views():
    return [
        ViewAssets("readcount-views", HERE / "views_templates", static=HERE / "views_static",
                   translations=HERE / "views_locale", domain="readcount_views"),
        OutputView("readcount", "outputFile/counts", "readcount/counts.mako",
                   context=counts_context),
    ]
