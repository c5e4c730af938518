"""A pipeline that does nothing but write one output: what the framework costs by itself."""

from seqcore import hookimpl
from seqcore.framework.contrib import AnalysisType, OutputRel


def noop(ctx):
    out = ctx.output_path("done.txt")
    out.write_text("done\n")
    return {"done": out}


NOOP = AnalysisType(name="noop", label="Nothing", workflow_id="noop-1",
                    pipeline="bench.noop_pipeline:noop", inputs=("pairs",), samples="many")


@hookimpl
def register_analysis_types():
    return [NOOP]


@hookimpl
def register_output_rels():
    return [OutputRel("noop", "outputFile/done", "done", "done.txt")]
