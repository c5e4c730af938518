"""The serotyper analysis type (IRIDA's ``sistr``): Salmonella serovar and cgMLST with SISTR
on the assembly plugin's front end; its outputs, the pair's links, and start-up checks."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from seqcore.plugin import (
    AnalysisType,
    LinkSpec,
    OutputRel,
    Parameter,
    Tool,
    ToolEnvironment,
    hookimpl,
    tool_environment_python,
)
from seqcore_assembly.pipeline import MEMORY_SETTING
from seqcore_assembly.plugin import PARAMETERS as ASSEMBLY_PARAMETERS
from seqcore_assembly.plugin import TOOLS as ASSEMBLY_TOOLS
from seqcore_sequencefiles.plugin import PairResource
from seqcore_serotyper.database import INSTALL, database_problem
from seqcore_serotyper.environment import DATABASE, SISTR_ENVIRONMENT
from seqcore_serotyper.environment import sistr_root as environment_sistr_root
from seqcore_serotyper.pipeline import OUTPUTS

log = logging.getLogger(__name__)

NAME = "serotyper"
ALIASES = ("sistr",)
# IRIDA's SISTRTyping 0.3 (irida-sistr-results knows 0.1, 0.2 and 0.3 by these ids and fails
# on any other).
WORKFLOW_ID = "92ecf046-ee09-4271-b849-7a82625d6b60"
FRONT_END = ("assembler", "read_merge_min_overlap", "read_merge_max_overlap", "spades_kmers",
             "spades_isolate", "min_contig_length", "coverage_ratio", "repeat_ratio",
             "length_for_average")
MEDIA_TYPES = {"serotyper-cgmlst": "text/csv", "serotyper-novel-alleles": "application/fasta",
               "assembly": "application/fasta"}


def _parameters() -> tuple[Parameter, ...]:
    """The assembly front end's parameters (IRIDA's SISTR workflow keeps contigs from 500 bp)
    and SISTR's database choice."""
    front = []
    for parameter in ASSEMBLY_PARAMETERS:
        if parameter.name in FRONT_END:
            if parameter.name == "min_contig_length":
                parameter = replace(parameter, default=500)
            front.append(parameter)
    return (*front, Parameter(
        "use_full_cgmlst_db", "bool", True,
        "SISTR: type against the full cgMLST allele database (IRIDA's default; about 4x "
        "slower) instead of the centroid alleles (--use-full-cgmlst-db)."), Parameter(
        "run_mash", "bool", True,
        "SISTR: also find the closest reference genome with Mash (--run-mash; the mash_* "
        "fields, which IRIDA's irida-sistr-results reads)."))


def _sistr_tool(sistr_root: Path | None = None) -> Tool:
    """SISTR in its environment, with its bundled database (checked each time readiness is
    asked: an incomplete database makes the type not ready, with the reason, before SISTR
    could try to download it). An environment not created yet is no obstacle: the first job
    creates it (``seqcore tools install`` does it ahead); readiness then shows no version."""
    root = sistr_root or environment_sistr_root()
    python = tool_environment_python(SISTR_ENVIRONMENT)
    if root is None or not python.exists():
        return Tool("SISTR", "", install=INSTALL)
    return Tool("SISTR", str(python), (str(DATABASE),), install=INSTALL,
                check=partial(database_problem, root))


def _tools(sistr_root: Path | None = None) -> tuple[Tool, ...]:
    """Readiness: the assembly tools, BLAST+, MAFFT and Mash (SISTR calls them), and SISTR
    (:func:`_sistr_tool`)."""
    sistr = _sistr_tool(sistr_root)
    front_end = tuple(tool for tool in ASSEMBLY_TOOLS if not tool.optional)  # no Prokka
    return (*front_end,
            Tool("BLAST+", "blastn", ("-version",), install="apt-get install ncbi-blast+"),
            Tool("MAFFT", "mafft", ("--version",), install="apt-get install mafft"),
            Tool("Mash", "mash", ("--version",), install="apt-get install mash"),
            sistr)


def serotyper_type(sistr_root: Path | None = None) -> AnalysisType:
    """The type; ``sistr_root`` is where readiness looks for SISTR's database (default: the
    sistr package of SISTR's environment under ``SEQCORE_TOOLS_PATH``)."""
    return AnalysisType(
        name=NAME, label="Serotyping (SISTR)", workflow_id=WORKFLOW_ID, version="0.3",
        pipeline="seqcore_serotyper.pipeline:run", inputs=("pairs",), samples="one",
        parameters=_parameters(), writes_back=True, tools=_tools(sistr_root),
        aliases=ALIASES, settings=(MEMORY_SETTING,),  # the assembly plugin's, for the assembler
        description="Salmonella serovar, serogroup, antigens and cgMLST with SISTR "
                    "(sistr_cmd 1.1.3, QC on), on contigs from FLASH, SPAdes or MEGAHIT and "
                    "the repeat and short-contig filter.")


@hookimpl
def register_analysis_types() -> list[AnalysisType]:
    """Checked at start-up too: an incomplete SISTR database is logged at once (readiness
    reports it with every request for the type)."""
    from seqcore_serotyper.results import write_back

    root = environment_sistr_root()
    if root is None:
        log.info("SISTR's environment is not created yet: the first serotyper job creates "
                 "it (or run `seqcore tools install`)")
    else:
        problem = database_problem(root)
        if problem is not None:
            log.warning("the serotyper is not ready: %s", problem)
    return [replace(serotyper_type(), write_back=write_back)]


@hookimpl
def register_tool_environments() -> list[ToolEnvironment]:
    return [SISTR_ENVIRONMENT]


@hookimpl
def register_views() -> list[Any]:
    from seqcore_serotyper.views import register

    return register()


@hookimpl
def register_output_rels() -> list[OutputRel]:
    """``outputFile/<key>`` for each output, and ``outputFile/sistr-*`` onto the same files
    (IRIDA's names, which its clients look for)."""
    rels = []
    for key, file_name in OUTPUTS.items():
        media = MEDIA_TYPES.get(key, "text/plain")
        rels.append(OutputRel(NAME, f"outputFile/{key}", key, file_name, media))
        if key.startswith("serotyper-"):
            irida = "sistr-" + key[len("serotyper-"):]
            rels.append(OutputRel(NAME, f"outputFile/{irida}", key, file_name, media))
    return rels


@hookimpl
def register_links() -> list[LinkSpec]:
    """The pair's latest serotyper submission, whatever its state (irida-sistr-results
    follows it and keeps the completed ones), and on a completed serotyper submission its
    analysis, under the spec's and IRIDA's names."""
    from seqcore.plugin import SubmissionResource, child_href, latest_submission_href

    def completed_serotyper(request: Any, resource: Any) -> bool:
        return resource.completed and resource.submission.analysis_type == NAME

    links = []
    for name in (NAME, *ALIASES):
        links.append(LinkSpec(PairResource, f"analysis/{name}", latest_submission_href(NAME)))
        links.append(LinkSpec(SubmissionResource, f"analysis/{name}", child_href("analysis"),
                              when=completed_serotyper))
    return links
