"""A third file kind, declared as a third party would, and an analysis type that takes it by
default: the core and the test kit treat it exactly as the first-party kinds."""

from seqcore import hookimpl
from seqcore.analysis.pipeline import PipelineError
from seqcore.files.contentchecks import FastqCheck
from seqcore.framework.contrib import AnalysisType, FileKind, OutputRel


def long_fastq() -> list[tuple[str, bytes]]:
    from seqcore.testing.uploads import fastq

    return [("long.fastq", fastq(reads=5, length=500, seed=9))]


LONGREADS = FileKind(
    name="longreads", path_segment="longreads", collection_rel="sample/sequenceFiles/longreads",
    files=1, content_check=lambda settings: FastqCheck(verify_gzip=False),
    label="long reads", default_input=True, input_rel="input/longreads",
    sample_files=long_fastq)

LENGTHS = AnalysisType(  # no inputs declared: the default input kinds
    name="lengths", label="Read lengths", workflow_id="lengths-1",
    pipeline="tests.plugins.longreads:measure")


def measure(ctx):
    """Each input file's read lengths, one per line."""
    out = ctx.output_path("lengths.txt")
    lines = []
    for item in ctx.inputs:
        for path in item.files:
            with open(path) as fh:
                lines += [str(len(line.rstrip("\n"))) for n, line in enumerate(fh) if n % 4 == 1]
    out.write_text("\n".join(lines) + "\n")
    return {"lengths": out}


def measure_nothing(ctx):
    """A pipeline that completes without any output."""
    return {}


def fail(ctx):
    raise PipelineError("no lengths today")


@hookimpl
def register_file_kinds():
    return [LONGREADS]


@hookimpl
def register_analysis_types():
    return [LENGTHS]


@hookimpl
def register_output_rels():
    return [OutputRel("lengths", "outputFile/lengths", "lengths", "lengths.txt")]
