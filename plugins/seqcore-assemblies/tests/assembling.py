"""A test analysis that 'assembles' by writing a FASTA, and saves it back to the sample."""

from dataclasses import replace

from seqcore.plugin import AnalysisType, OutputRel, hookimpl
from seqcore_assemblies.results import save_assembly

FAKE = AnalysisType(name="fake-assembly", label="Fake assembly", workflow_id="fake-1",
                    pipeline="assembling:assemble", inputs=("pairs",), writes_back=True)


def assemble(ctx):
    out = ctx.output_path("contigs.fasta")
    out.write_text(">contig1\nACGTACGTACGT\n")
    return {"contigs": out}


def write_back(ctx):
    for sample_id in ctx.samples():
        save_assembly(ctx, sample_id, "contigs")


@hookimpl
def register_analysis_types():
    return [replace(FAKE, write_back=write_back)]


@hookimpl
def register_output_rels():
    return [OutputRel("fake-assembly", "outputFile/contigs", "contigs", "contigs.fasta")]
