"""The assembly-and-annotation analysis types (``assembly``, ``assembly-collection``), their
eleven outputs, settings, and the pair's ``analysis/assembly`` link."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from seqcore.plugin import (
    AnalysisType,
    LinkSpec,
    OutputRel,
    Parameter,
    Setting,
    Tool,
    hookimpl,
    latest_submission_href,
)
from seqcore_assembly.pipeline import MEMORY_SETTING, OUTPUTS, PROKKA_SETTING
from seqcore_sequencefiles.plugin import PairResource

PARAMETERS = (
    Parameter("assembler", "choice", "spades",
              "SPAdes (IRIDA's assembler) or MEGAHIT (several times faster, for large "
              "batches).", choices=("spades", "megahit")),
    Parameter("read_merge_min_overlap", "int", 20, "FLASH: minimum overlap of a pair (-m).",
              minimum=1, maximum=1000),
    Parameter("read_merge_max_overlap", "int", 300, "FLASH: maximum overlap of a pair (-M).",
              minimum=1, maximum=1000),
    Parameter("spades_kmers", "str", "21,33,55,77,99,127",
              "SPAdes: k-mer sizes, ascending odd numbers up to 127 (-k)."),
    Parameter("spades_isolate", "bool", False,
              "SPAdes: --isolate mode (skips read error correction in 3.15; about half the "
              "time)."),
    Parameter("min_contig_length", "int", 1000, "Filter: contigs shorter than this are "
              "discarded.", minimum=0),
    Parameter("coverage_ratio", "float", 0.33, "Filter: contigs below this fraction of the "
              "mean coverage are discarded.", minimum=0, maximum=10),
    Parameter("repeat_ratio", "float", 1.75, "Filter: contigs at or above this multiple of "
              "the mean coverage are repeats.", minimum=1, maximum=1000),
    Parameter("length_for_average", "int", 5000, "Filter: only contigs at least this long "
              "set the mean coverage.", minimum=0),
    Parameter("coverage_mean", "choice", "plain",
              "Filter: the coverage of those long contigs the ratios refer to: their plain "
              "mean (IRIDA's), their mean weighted by length, or their median (with "
              "copy_numbers=nearest, the true copies of a repeat that has a contig of its "
              "own; with MEGAHIT only when contig_coverage=reads).",
              choices=("plain", "weighted", "median")),
    Parameter("copy_numbers", "choice", "down",
              "Filter: a repeat's copies, coverage over the mean rounded down (IRIDA's) or "
              "to the nearest integer.", choices=("down", "nearest")),
    Parameter("contig_coverage", "choice", "header",
              "Filter: a contig's coverage as the assembler wrote it in the header (SPAdes' "
              "_cov_, MEGAHIT's multi=; IRIDA's) or the median depth of the reads mapped "
              "back with minimap2 (the same measure for both assemblers).",
              choices=("header", "reads")),
    Parameter("genus", "str", "Genus", "Annotation: genus name."),
    Parameter("species", "str", "species", "Annotation: species name."),
    Parameter("strain", "str", "strain", "Annotation: strain name."),
    Parameter("locustag", "str", "PROKKA", "Annotation: locus tag prefix."),
    Parameter("gcode", "int", 11, "Annotation: genetic code (translation table).",
              minimum=1, maximum=33),
    Parameter("evalue", "float", 1e-6, "Annotation (Prokka): similarity e-value cut-off.",
              minimum=0, maximum=1),
)

TOOLS = (
    Tool("FLASH", "flash", ("--version",), install="apt-get install flash"),
    Tool("SPAdes", "spades.py", ("--version",), install="apt-get install spades"),
    Tool("MEGAHIT", "megahit", ("--version",), install="apt-get install megahit"),
    Tool("minimap2", "minimap2", ("--version",), optional=True,
         install="apt-get install minimap2 (needed for contig_coverage=reads)"),
    Tool("Prokka", "prokka", ("--version",), optional=True,
         install="apt-get install prokka, and set seqcore.assembly.prokka_dbdir; without it "
                 "pyrodigal annotates"),
)

ASSEMBLY = AnalysisType(
    name="assembly", label="Assembly and annotation", workflow_id="assembly-annotation-0.3",
    version="0.3", pipeline="seqcore_assembly.pipeline:run", inputs=("pairs",),
    samples="one", parameters=PARAMETERS, writes_back=True, tools=TOOLS,
    settings=(MEMORY_SETTING, PROKKA_SETTING),
    description="FLASH read merging, SPAdes or MEGAHIT assembly, repeat and short-contig "
                "filter, assembly statistics, gene annotation (pyrodigal, or Prokka).")

COLLECTION = replace(
    ASSEMBLY, name="assembly-collection", label="Assembly and annotation collection",
    workflow_id="assembly-annotation-collection-0.3",
    pipeline="seqcore_assembly.pipeline:run_collection", samples="many",
    description="The assembly pipeline over several samples; outputs combined per file.")


@hookimpl
def register_settings() -> list[Setting]:
    return [
        Setting(MEMORY_SETTING, 8, "Memory (GB) an assembler may use per job (SPAdes -m, "
                "MEGAHIT -m); keep seqcore.analysis.max_running x this within the machine's "
                "memory.", int),
        Setting(PROKKA_SETTING, "", "Prokka's database directory; when set (and prokka is "
                "installed) Prokka annotates instead of pyrodigal.", str),
    ]


@hookimpl
def register_analysis_types() -> list[AnalysisType]:
    from seqcore_assembly.results import write_back

    return [replace(ASSEMBLY, write_back=write_back),
            replace(COLLECTION, write_back=write_back)]


@hookimpl
def register_views() -> list[Any]:
    from seqcore_assembly.views import register

    return register()


@hookimpl
def register_output_rels() -> list[OutputRel]:
    rels = []
    for analysis_type in (ASSEMBLY.name, COLLECTION.name):
        for key, file_name in OUTPUTS.items():
            media = "text/plain"
            rels.append(OutputRel(analysis_type, f"outputFile/{key}", key, file_name, media))
    return rels


@hookimpl
def register_links() -> list[LinkSpec]:
    # IRIDA's automated assembly link: the pair's latest ``assembly`` submission.
    return [LinkSpec(PairResource, "analysis/assembly", latest_submission_href(ASSEMBLY.name))]
