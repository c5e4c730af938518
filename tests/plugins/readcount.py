"""A small real analysis for the framework's tests: counts reads and bases per sample."""

from seqcore import hookimpl
from seqcore.framework.contrib import AnalysisType, OutputRel, Parameter, Setting, Tool

HEADER_SETTING = "seqcore.readcount.sample_header"

READCOUNT = AnalysisType(
    name="readcount", label="Read count", workflow_id="readcount-1", version="1.0",
    pipeline="tests.plugins.readcount_pipeline:count_reads", inputs=("pairs", "unpaired"),
    samples="many", writes_back=True, aliases=("countreads",), settings=(HEADER_SETTING,),
    tools=(Tool("Turbo counter", "turbocount-not-installed", optional=True,
                install="used when present"),),
    parameters=(
        Parameter("min_length", "int", 0, "Only count reads at least this long.", minimum=0),
        Parameter("fail", "bool", False, "Fail on purpose (tests)."),
        Parameter("sleep", "float", 0.0, "Seconds to wait first (tests).", minimum=0,
                  maximum=600),
    ),
)

NEEDS_TOOL = AnalysisType(
    name="needs-tool", label="Needs a missing tool", workflow_id="needs-tool-1",
    pipeline="tests.plugins.readcount_pipeline:count_reads",
    tools=(Tool("Frobnicator", "frobnicate-not-installed",
                install="apt-get install frobnicator"),
           Tool("Python", "python3", ("--version",)),
           Tool("Count database", check=lambda: "no database at /nowhere/counts.db",
                install="seqcore-fetch-counts")),
)


def write_counts(ctx):
    """Each sample's read and base counts become its metadata, with provenance."""
    import json

    summary = json.loads(ctx.output_path("summary").read_text())
    for sample_id, counts in summary["samples"].items():
        ctx.metadata(int(sample_id), {"read count": str(counts["reads"]),
                                      "base count": str(counts["bases"])})


@hookimpl
def register_settings():
    return [Setting(HEADER_SETTING, "sample", "First column's title in counts.tsv.", str)]


@hookimpl
def register_analysis_types():
    from dataclasses import replace

    return [replace(READCOUNT, write_back=write_counts), NEEDS_TOOL]


@hookimpl
def register_output_rels():
    return [
        OutputRel("readcount", "outputFile/counts", "counts", "counts.tsv",
                  "text/tab-separated-values"),
        OutputRel("readcount", "outputFile/summary", "summary", "summary.json",
                  "application/json"),
    ]
