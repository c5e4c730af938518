"""The assembly-and-annotation pipeline: FLASH → SPAdes or MEGAHIT → repeat filter →
statistics → annotation, for one sample (``run``) or several (``run_collection``).

It runs in the executor's process (or on a Celery worker), never touches the database, and
writes everything under the job's work directory, which the framework keeps after a failure
until ``seqcore.analysis.cleanup_days``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqcore.plugin import InputObject, PipelineContext, PipelineError
from seqcore_assembly.annotate import AnnotationOptions, annotate
from seqcore_assembly.contigs import (
    HEADER,
    READS,
    Contig,
    filter_contigs,
    filter_report,
    read_fasta,
    stats_report,
    write_fasta,
)
from seqcore_assembly.readdepth import with_read_depth
from seqcore_assembly.tools import ToolRunner

# Output key → file name, as IRIDA's AssemblyAnnotation 0.3 named them.
OUTPUTS: dict[str, str] = {
    "read-merge-log": "flash.log",
    "assembly-log": "spades.log",
    "filter-assembly-log": "filter-spades.txt",
    "contigs-all": "contigs-all.fasta",
    "contigs-with-repeats": "contigs-with-repeats.fasta",
    "contigs-without-repeats": "contigs-without-repeats.fasta",
    "assembly-stats-repeats": "assembly-stats-with-repeats.txt",
    "annotations-genbank": "genome.gbk",
    "annotations-stats": "prokka_stats.txt",
    "annotations-log": "prokka.log",
    "annotations-error": "prokka.err",
}
FASTA_KEYS = ("contigs-all", "contigs-with-repeats", "contigs-without-repeats")
# The deployment settings a job receives (AnalysisType.settings, read as ctx.settings).
MEMORY_SETTING = "seqcore.assembly.memory_gb"
PROKKA_SETTING = "seqcore.assembly.prokka_dbdir"
DEFAULT_MEMORY_GB = 8
KMER_LIST = re.compile(r"^\d+(,\d+)*$")


@dataclass(frozen=True)
class Resources:
    threads: int
    memory_gb: int
    prokka_dbdir: str


def resources(ctx: PipelineContext) -> Resources:
    """Threads, and the memory and Prokka database of the deployment's settings."""
    return Resources(threads=max(1, int(ctx.threads)),
                     memory_gb=max(1, int(ctx.settings.get(MEMORY_SETTING)
                                          or DEFAULT_MEMORY_GB)),
                     prokka_dbdir=str(ctx.settings.get(PROKKA_SETTING) or ""))


def check_kmers(text: str) -> list[int]:
    """SPAdes' k-mer sizes: odd, 11 to 127, ascending (a readable error otherwise)."""
    cleaned = text.replace(" ", "")
    values = [int(k) for k in cleaned.split(",")] if KMER_LIST.match(cleaned) else []
    if (not values or any(k % 2 == 0 or not 11 <= k <= 127 for k in values)
            or values != sorted(set(values))):
        raise PipelineError(f"spades_kmers must be ascending odd numbers from 11 to 127 "
                            f"separated by commas (like 21,33,55,77), not '{text}'")
    return values


def paired_files(inp: InputObject) -> tuple[Path, Path]:
    if inp.kind != "pairs" or len(inp.files) != 2:
        raise PipelineError(
            f"assembly needs paired-end reads; input {inp.object_id} of sample "
            f"'{inp.sample_name}' is {inp.kind} with {len(inp.files)} file(s)")
    for path in inp.files:
        if not path.is_file():
            raise PipelineError(f"input file {path.name} of sample '{inp.sample_name}' is "
                                "missing from storage")
    return inp.files[0], inp.files[1]


def _non_empty(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def merge_reads(forward: Path, reverse: Path, work: Path, params: dict[str, Any],
                res: Resources, runner: ToolRunner) -> tuple[Path, Path, Path, Path]:
    """FLASH: (merged, unmerged forward, unmerged reverse, log). The assembler gets both the
    merged and the unmerged reads, as in IRIDA's pipeline."""
    out = work / "flash"
    out.mkdir(parents=True, exist_ok=True)
    log = work / "flash.log"
    runner.run("FLASH", ["flash", "-m", params["read_merge_min_overlap"],
                         "-M", params["read_merge_max_overlap"], "-t", res.threads,
                         "-d", out, "-o", "flash", forward, reverse],
               cwd=work, stdout=log)
    merged = out / "flash.extendedFrags.fastq"
    first, second = out / "flash.notCombined_1.fastq", out / "flash.notCombined_2.fastq"
    if not (_non_empty(merged) or _non_empty(first)):
        raise PipelineError("FLASH found no reads in the input files")
    return merged, first, second, log


def assemble(merged: Path, first: Path, second: Path, work: Path, params: dict[str, Any],
             res: Resources, runner: ToolRunner) -> tuple[Path, Path]:
    """The chosen assembler: (contigs, its log with version and command line on top)."""
    stdout = work / "assembler-stdout.log"
    log = work / "assembly.log"
    if params["assembler"] == "megahit":
        out = work / "megahit"
        if out.exists():
            shutil.rmtree(out)  # MEGAHIT refuses an existing output directory
        argv: list[Any] = ["megahit", "-1", first, "-2", second, "-o", out,
                           "-t", res.threads, "-m", res.memory_gb * 1_000_000_000]
        if _non_empty(merged):
            argv[5:5] = ["-r", merged]
        own_log, contigs = out / "log", out / "final.contigs.fa"
        label = "MEGAHIT"
    else:
        kmers = check_kmers(str(params["spades_kmers"]))
        out = work / "spades"
        argv = ["spades.py", "-o", out, "-1", first, "-2", second,
                "-k", ",".join(map(str, kmers)), "-t", res.threads, "-m", res.memory_gb]
        if _non_empty(merged):
            argv[7:7] = ["--merged", merged]
        if params["spades_isolate"]:
            argv.append("--isolate")
        own_log, contigs = out / "spades.log", out / "contigs.fasta"
        label = "SPAdes"
    try:
        runner.run(label, argv, cwd=work, stdout=stdout, error_log=own_log)
    finally:
        _assembly_log(stdout, own_log, log)
    if not _non_empty(contigs):
        raise PipelineError(f"the reads assembled to nothing: {label} wrote no contigs")
    return contigs, log


def _assembly_log(stdout: Path, own_log: Path, log: Path) -> None:
    """The assembler's own log under the version and command line seqcore recorded."""
    head = [line for line in stdout.read_text(errors="replace").splitlines()[:2]
            if line.startswith("# ")] if stdout.is_file() else []
    body = (own_log.read_text(errors="replace") if own_log.is_file()
            else stdout.read_text(errors="replace") if stdout.is_file() else "")
    log.write_text("\n".join(head) + "\n" + body)


def assemble_and_filter(inp: InputObject, work: Path, params: dict[str, Any],
                        res: Resources, runner: ToolRunner,
                        progress: Callable[[float, str], None]) -> dict[str, Path]:
    """The assembly front end for one pair: FLASH, the assembler, the filter and the
    statistics (no annotation). Returns ``{output key: path}`` for every key of ``OUTPUTS``
    under ``work/outputs``; the annotation files are not written yet. Shared with the
    serotyper plugin, which runs SISTR on ``contigs-with-repeats`` as IRIDA's SISTR
    workflow did."""
    forward, reverse = paired_files(inp)
    work.mkdir(parents=True, exist_ok=True)
    outputs = work / "outputs"
    outputs.mkdir(exist_ok=True)
    paths = {key: outputs / name for key, name in OUTPUTS.items()}

    progress(0.0, "merging reads (FLASH)")
    merged, first, second, flash_log = merge_reads(forward, reverse, work, params, res, runner)
    shutil.copyfile(flash_log, paths["read-merge-log"])

    progress(0.1, f"assembling ({params['assembler']})")
    contigs_path, assembly_log = assemble(merged, first, second, work, params, res, runner)
    shutil.copyfile(assembly_log, paths["assembly-log"])
    contigs = list(read_fasta(contigs_path))
    write_fasta(paths["contigs-all"], contigs)
    if params.get("contig_coverage", HEADER) == READS:
        progress(0.75, "mapping the reads back to the contigs (minimap2)")
        contigs = with_read_depth(contigs, paths["contigs-all"], (forward, reverse), work,
                                  res.threads, runner)

    progress(0.8, "filtering repeats and short contigs")
    rules = {"min_length": params["min_contig_length"],
             "coverage_ratio": params["coverage_ratio"],
             "repeat_ratio": params["repeat_ratio"],
             "length_for_average": params["length_for_average"],
             # Submissions made before these options existed get IRIDA's rule.
             "mean": params.get("coverage_mean", "plain"),
             "copy_numbers": params.get("copy_numbers", "down")}
    result = filter_contigs(contigs, **rules)
    paths["filter-assembly-log"].write_text(filter_report(result, **rules))
    write_fasta(paths["contigs-with-repeats"], result.with_repeats)
    write_fasta(paths["contigs-without-repeats"], result.without_repeats)
    runner.log(f"filter: {len(contigs)} contigs, {len(result.with_repeats)} kept "
               f"({len(result.repeats)} repeats), {len(result.discarded)} discarded; "
               f"mean coverage {result.average:.2f}")
    if not result.with_repeats:
        longest = max((len(c) for c in contigs), default=0)
        raise PipelineError(
            f"the reads assembled to nothing usable: none of the {len(contigs)} contigs "
            f"passed the filter (longest {longest} bp, minimum length "
            f"{params['min_contig_length']}, coverage cutoff {result.coverage_cutoff:.2f})")
    paths["assembly-stats-repeats"].write_text(stats_report(result.with_repeats))
    return paths


def assemble_sample(inp: InputObject, work: Path, params: dict[str, Any], res: Resources,
                    runner: ToolRunner, progress: Callable[[float, str], None]
                    ) -> dict[str, Path]:
    """The whole pipeline for one pair; returns ``{output key: path}`` under ``work``."""
    paths = assemble_and_filter(inp, work, params, res, runner, progress)
    result_contigs = list(read_fasta(paths["contigs-with-repeats"]))

    progress(0.85, "annotating")
    options = AnnotationOptions(
        genus=params["genus"], species=params["species"], strain=params["strain"],
        locustag=params["locustag"], gcode=params["gcode"], evalue=params["evalue"],
        threads=res.threads, prokka_dbdir=res.prokka_dbdir)
    files = annotate(result_contigs, work / "annotation", options, runner)
    for key, path in (("annotations-genbank", files.genbank),
                      ("annotations-stats", files.stats), ("annotations-log", files.log),
                      ("annotations-error", files.err)):
        shutil.copyfile(path, paths[key])
    progress(1.0, "done")
    return paths


def check_text(params: dict[str, Any]) -> None:
    """Text parameters end up on command lines and in GenBank headers."""
    if not re.fullmatch(r"[A-Za-z0-9_]{1,20}", str(params["locustag"])):
        raise PipelineError("locustag must be 1 to 20 letters, digits or underscores")
    for name in ("genus", "species", "strain"):
        if not re.fullmatch(r"[A-Za-z0-9_.\-]{0,60}", str(params[name])):
            raise PipelineError(f"{name} may hold only letters, digits, '_', '.' and '-'")
    check_assembly_parameters(params)


def check_assembly_parameters(params: dict[str, Any]) -> None:
    """What the front end's parameters must satisfy beyond their declared types and ranges
    (also used by the serotyper, which shares the front end)."""
    if params["read_merge_min_overlap"] > params["read_merge_max_overlap"]:
        raise PipelineError("read_merge_min_overlap is larger than read_merge_max_overlap")
    if params["assembler"] == "spades":
        check_kmers(str(params["spades_kmers"]))


def run(ctx: PipelineContext) -> dict[str, Path]:
    """One sample's pair."""
    check_text(ctx.parameters)
    if len(ctx.inputs) != 1:
        raise PipelineError(f"assembly takes one paired-end input, got {len(ctx.inputs)}; "
                            "use assembly-collection for several samples")
    runner = ToolRunner(ctx.log)
    res = resources(ctx)
    ctx.log(f"threads {res.threads}, memory {res.memory_gb} GB, annotation "
            f"{'Prokka' if res.prokka_dbdir else 'pyrodigal'}")
    return assemble_sample(ctx.inputs[0], ctx.work_dir / "sample", ctx.parameters, res,
                           runner, ctx.progress)


def sample_label(inp: InputObject) -> str:
    return re.sub(r"\s+", "_", inp.sample_name)


def run_collection(ctx: PipelineContext) -> dict[str, Path]:
    """Several samples, one after the other (each with all the threads); each output is the
    samples' files combined: FASTA headers prefixed ``<sample>|``, text files one section per
    sample under ``==> <sample> <==``, GenBank records one after another. Each sample's
    filtered contigs are also kept as ``sample-<id>-contigs-with-repeats`` for write-back."""
    check_text(ctx.parameters)
    if not ctx.inputs:
        raise PipelineError("assembly-collection got no inputs")
    runner = ToolRunner(ctx.log)
    res = resources(ctx)
    per_sample: list[tuple[InputObject, dict[str, Path]]] = []
    for inp in ctx.inputs:
        paired_files(inp)  # refuse a bad input before hours of assembly
    count = len(ctx.inputs)
    for index, inp in enumerate(ctx.inputs):
        def progress(fraction: float, message: str, index: int = index,
                     inp: InputObject = inp) -> None:
            ctx.progress((index + fraction) / count, f"{inp.sample_name}: {message}")

        ctx.log(f"sample {inp.sample_name} ({index + 1} of {count})")
        try:
            paths = assemble_sample(inp, ctx.work_dir / "samples" / str(inp.object_id),
                                    ctx.parameters, res, runner, progress)
        except PipelineError as err:
            raise PipelineError(f"sample '{inp.sample_name}': {err}") from err
        per_sample.append((inp, paths))
    outputs: dict[str, Path] = {}
    for key, name in OUTPUTS.items():
        target = ctx.output_path(name)
        if key in FASTA_KEYS:
            write_fasta(target, (Contig(f"{sample_label(inp)}|{c.header}", c.sequence)
                                 for inp, paths in per_sample
                                 for c in read_fasta(paths[key])))
        else:
            with target.open("w") as out:
                for inp, paths in per_sample:
                    if key == "annotations-genbank":
                        out.write(paths[key].read_text())
                    else:
                        out.write(f"==> {inp.sample_name} <==\n{paths[key].read_text()}\n")
        outputs[key] = target
    for inp, paths in per_sample:
        outputs[f"sample-{inp.sample_id}-contigs-with-repeats"] = paths["contigs-with-repeats"]
    return outputs

