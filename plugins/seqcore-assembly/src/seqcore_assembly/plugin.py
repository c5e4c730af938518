"""The assembly-and-annotation analysis types (``assembly``, ``assembly-collection``), their
eleven outputs, settings, and the pair's ``analysis/assembly`` link."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from seqcore import hookimpl
from seqcore.contrib import AnalysisType, LinkSpec, OutputRel, Parameter, Setting, Tool
from seqcore_assembly.pipeline import OUTPUTS, SETTINGS_FILE
from seqcore_sequencefiles.plugin import PairResource

MEMORY_SETTING = "seqcore.assembly.memory_gb"
PROKKA_SETTING = "seqcore.assembly.prokka_dbdir"

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
)

ASSEMBLY = AnalysisType(
    name="assembly", label="Assembly and annotation", workflow_id="assembly-annotation-0.3",
    version="0.3", pipeline="seqcore_assembly.pipeline:run", inputs=("pairs",),
    samples="one", parameters=PARAMETERS, writes_back=True, tools=TOOLS,
    description="FLASH read merging, SPAdes or MEGAHIT assembly, repeat and short-contig "
                "filter, assembly statistics, gene annotation (pyrodigal, or Prokka).")

COLLECTION = replace(
    ASSEMBLY, name="assembly-collection", label="Assembly and annotation collection",
    workflow_id="assembly-annotation-collection-0.3",
    pipeline="seqcore_assembly.pipeline:run_collection", samples="many",
    description="The assembly pipeline over several samples; outputs combined per file.")

# Settings read at configuration time, handed to jobs through SETTINGS_FILE (the framework
# gives pipelines only their thread count).
_settings: dict[str, Any] = {MEMORY_SETTING: 8, PROKKA_SETTING: ""}


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
def configure_app(config: Any) -> None:
    settings = config.get_settings()
    _settings[MEMORY_SETTING] = int(settings.get(MEMORY_SETTING) or 8)
    _settings[PROKKA_SETTING] = str(settings.get(PROKKA_SETTING) or "")


@hookimpl
def submission_state_changed(submission: Any, old_state: str, new_state: str,
                             request: Any) -> None:
    """When a job of ours is prepared (its work directory and job file written, not yet
    handed to the executor), leave it the settings it needs beside the job file."""
    if new_state != "PREPARED" or submission.analysis_type not in (ASSEMBLY.name,
                                                                    COLLECTION.name):
        return
    work_dir = Path(submission.work_dir or "")
    if submission.work_dir and work_dir.is_dir():
        (work_dir / SETTINGS_FILE).write_text(json.dumps({
            "memory_gb": _settings[MEMORY_SETTING],
            "prokka_dbdir": _settings[PROKKA_SETTING]}))


@hookimpl
def register_analysis_types() -> list[AnalysisType]:
    from seqcore_assembly.results import write_back

    return [replace(ASSEMBLY, write_back=write_back),
            replace(COLLECTION, write_back=write_back)]


@hookimpl
def register_output_rels() -> list[OutputRel]:
    rels = []
    for analysis_type in (ASSEMBLY.name, COLLECTION.name):
        for key, file_name in OUTPUTS.items():
            media = "text/plain"
            rels.append(OutputRel(analysis_type, f"outputFile/{key}", key, file_name, media))
    return rels


def _latest_assembly(request: Any, context: PairResource) -> str | None:
    """The pair's latest ``assembly`` submission (IRIDA's automated assembly link)."""
    from sqlalchemy import select

    from seqcore.models.analysis import AnalysisSubmission, SubmissionInput

    submission_id = context.db.scalar(
        select(AnalysisSubmission.id)
        .join(SubmissionInput, SubmissionInput.submission_id == AnalysisSubmission.id)
        .where(SubmissionInput.object_id == context.obj.id,
               AnalysisSubmission.analysis_type == ASSEMBLY.name)
        .order_by(AnalysisSubmission.id.desc()).limit(1))
    if submission_id is None:
        return None
    return f"{request.application_url}/api/analysisSubmissions/{submission_id}"


@hookimpl
def register_links() -> list[LinkSpec]:
    return [LinkSpec(PairResource, "analysis/assembly", _latest_assembly)]
