"""The plugin module (entry point ``readstats`` in the ``seqcore`` group): an analysis type,
its output, the write-back to sample metadata, a GraphQL query field and the analysis
page's view of the output."""

from __future__ import annotations

import json
from typing import Any

from seqcore.plugin import AnalysisType, OutputRel, Parameter, WriteBack, hookimpl
from seqcore_readstats import views
from seqcore_readstats.graphql import FIELD, ReadStatsQuery
from seqcore_readstats.pipeline import OUTPUT


def write_back(ctx: WriteBack) -> None:
    """Each analysed sample gets its read count, mean read length and histogram (the bins as
    ``[[length, count], ...]``), recorded as written by the submission."""
    results = json.loads(ctx.output_path("histograms").read_text())["samples"]
    for sample_id in ctx.samples():
        found = results.get(str(sample_id))
        if found is not None:
            ctx.metadata(sample_id, {"read count": str(found["reads"]),
                                     "mean read length": str(found["mean_length"]),
                                     FIELD: json.dumps(found["histogram"])})


READSTATS = AnalysisType(
    name="readstats", label="Read-length histograms", workflow_id="readstats-1",
    pipeline="seqcore_readstats.pipeline:run", inputs=("unpaired", "pairs"), samples="many",
    parameters=(Parameter("bin_width", "int", 10, "Width of a histogram bin, in bases.",
                          minimum=1, maximum=100_000),),
    writes_back=True, write_back=write_back,
    description="Counts the reads of each sample by length.")


@hookimpl
def register_analysis_types() -> list[AnalysisType]:
    return [READSTATS]


@hookimpl
def register_output_rels() -> list[OutputRel]:
    return [OutputRel("readstats", "outputFile/histograms", "histograms", OUTPUT,
                      "application/json")]


@hookimpl
def register_graphql_query_fields() -> list[type]:
    return [ReadStatsQuery]


@hookimpl
def register_views() -> list[Any]:
    return views.register()
