"""The serotyper pipeline: the assembly plugin's front end (FLASH → SPAdes or MEGAHIT →
filter with minimum contig length 500 → statistics), then SISTR with its QC, as IRIDA's
SISTRTyping 0.3 workflow.

Runs in the executor's process, never touches the database; everything lands under the
job's work directory. A genome SISTR cannot type (not Salmonella) still completes: SISTR
answers with QC status ``FAIL`` and its reasons, which the predictions, the log and the
sample's metadata carry. A tool that fails is an ``ERROR`` with its last words.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

from seqcore.plugin import (
    PipelineContext,
    PipelineError,
    ToolEnvironmentError,
    ensure_tool_environment,
)
from seqcore_assembly.pipeline import (
    assemble_and_filter,
    check_assembly_parameters,
    resources,
)
from seqcore_assembly.tools import ToolRunner, tail
from seqcore_serotyper.database import database_problem
from seqcore_serotyper.environment import RUNNER, SISTR_ENVIRONMENT, sistr_root

# Output key → file name (IRIDA's SISTRTyping names; keys are the spec's).
OUTPUTS: dict[str, str] = {
    "serotyper-predictions": "sistr-predictions.json",
    "serotyper-cgmlst": "sistr-cgmlst-profiles.csv",
    "serotyper-alleles": "sistr-alleles-out.json",
    "serotyper-novel-alleles": "sistr-novel-alleles.fasta",
    "assembly": "contigs-with-repeats.fasta",
    "assembly-stats": "assembly-stats-with-repeats.txt",
    "serotyper-log": "sistr.log",
}
# The front end's output each of ours is (keys of seqcore_assembly.pipeline.OUTPUTS).
FROM_FRONT_END = {"assembly": "contigs-with-repeats",
                  "assembly-stats": "assembly-stats-repeats"}
TIMINGS_FILE = "timings.json"
# Progress messages of the front end → the step they start (for the timings).
STEPS = (("merging", "merge"), ("assembling", "assembly"), ("filtering", "filter"))


def genome_name(sample_name: str) -> str:
    """The name SISTR files the genome under (``genome`` in the predictions, the first cell
    of the cgMLST row): the sample's name, made safe as one command-line word."""
    cleaned = re.sub(r"[^\w.\-]+", "_", sample_name).lstrip("-")
    return cleaned or "genome"


class StepClock:
    """Times the front end's steps from its progress reports (it reports each step as it
    starts), so a run records where its time went (``timings.json``, the job log, the
    bench)."""

    def __init__(self, ctx: PipelineContext, share: float) -> None:
        self.ctx, self.share = ctx, share
        self.times: dict[str, float] = {}
        self.current: tuple[str, float] | None = None

    def start(self, step: str) -> None:
        self.stop()
        self.current = (step, time.monotonic())

    def stop(self) -> None:
        if self.current is not None:
            step, started = self.current
            self.times[step] = round(self.times.get(step, 0.0) + time.monotonic() - started, 3)
            self.current = None

    def progress(self, fraction: float, message: str) -> None:
        for prefix, step in STEPS:
            if message.startswith(prefix):
                self.start(step)
        self.ctx.progress(fraction * self.share, message)


def sistr_command(python: Path, contigs: Path, name: str, paths: dict[str, Path], tmp: Path,
                  threads: int, full_db: bool, mash: bool) -> list[Any]:
    """SISTR through the offline wrapper, with the interpreter of SISTR's environment."""
    argv: list[Any] = [str(python), "-s", RUNNER, "--qc",
                       "-i", contigs, name, "-f", "json",
                       "-o", paths["serotyper-predictions"],
                       "-p", paths["serotyper-cgmlst"],
                       "-a", paths["serotyper-alleles"],
                       "-n", paths["serotyper-novel-alleles"],
                       "-T", tmp, "-t", threads]
    if full_db:
        argv.append("--use-full-cgmlst-db")
    if mash:
        argv.append("--run-mash")
    return argv


PYTHON_ERROR = re.compile(r"^([\w.]*(?:Error|Exception)): (.+)$")


def python_error(log: Path) -> str | None:
    """The message of the last Python exception in SISTR's log: SISTR fails by raising
    (a BLAST error, a bad FASTA), and the traceback's last line is what a user needs."""
    if not log.is_file():
        return None
    found = None
    for line in log.read_text(errors="replace").splitlines():
        match = PYTHON_ERROR.match(line.strip())
        if match:
            kind, message = match.groups()
            found = message if kind == "Exception" else f"{kind}: {message}"
    return found[-600:] if found else None


def read_predictions(path: Path, log: Path) -> dict[str, Any]:
    """SISTR's one prediction, or an error naming what it wrote instead."""
    try:
        predictions = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        said = tail(log)
        raise PipelineError(f"SISTR wrote no readable predictions ({err})"
                            + (f": {said}" if said else "")) from err
    if not isinstance(predictions, list) or len(predictions) != 1:
        raise PipelineError("SISTR's predictions are not a list of one genome")
    return predictions[0]


def summary(prediction: dict[str, Any]) -> str:
    return (f"SISTR QC status {prediction.get('qc_status')}: serovar "
            f"{prediction.get('serovar')}, serogroup {prediction.get('serogroup')}, "
            f"antigenic formula {prediction.get('antigenic_formula')}, cgMLST ST "
            f"{prediction.get('cgmlst_ST')} ({prediction.get('cgmlst_found_loci')} of 330 "
            f"loci found)")


def run(ctx: PipelineContext) -> dict[str, Path]:
    params = ctx.parameters
    check_assembly_parameters(params)
    if len(ctx.inputs) != 1:
        raise PipelineError(f"serotyper takes one paired-end input, got {len(ctx.inputs)}")
    try:  # first use: create SISTR's environment (seqcore tools install does it ahead)
        python = ensure_tool_environment(SISTR_ENVIRONMENT, ctx.settings, log=ctx.log)
    except ToolEnvironmentError as err:
        raise PipelineError(str(err)) from err
    problem = database_problem(sistr_root(ctx.settings))
    if problem is not None:  # before hours of assembly, and before SISTR could download
        raise PipelineError(problem)
    inp = ctx.inputs[0]
    runner = ToolRunner(ctx.log)
    res = resources(ctx)
    ctx.log(f"threads {res.threads}, memory {res.memory_gb} GB, cgMLST database "
            f"{'full' if params['use_full_cgmlst_db'] else 'centroid'}")
    clock = StepClock(ctx, share=0.7)
    work = ctx.work_dir / "sample"
    front = assemble_and_filter(inp, work, params, res, runner, clock.progress)
    clock.stop()

    paths = {key: ctx.output_path(name) for key, name in OUTPUTS.items()}
    for key, source in FROM_FRONT_END.items():
        shutil.copyfile(front[source], paths[key])
    clock.start("sistr")
    ctx.progress(0.7, "typing (SISTR)")
    tmp = work / "sistr-tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    argv = sistr_command(python, paths["assembly"], genome_name(inp.sample_name), paths, tmp,
                         res.threads, bool(params["use_full_cgmlst_db"]),
                         bool(params["run_mash"]))
    try:
        runner.run("SISTR", argv, cwd=work, stdout=paths["serotyper-log"],
                   version_args=("-s", str(RUNNER), "--version"))
    except PipelineError as err:
        reason = python_error(paths["serotyper-log"])
        if reason is None:  # killed, or a message the runner already quotes well
            raise
        raise PipelineError(f"{str(err).split(':', 1)[0]}: {reason}") from err
    missing = [OUTPUTS[key] for key in paths if not paths[key].is_file()]
    if missing:
        raise PipelineError(f"SISTR finished without writing {', '.join(missing)}: "
                            f"{tail(paths['serotyper-log'])}")
    prediction = read_predictions(paths["serotyper-predictions"], paths["serotyper-log"])
    clock.stop()
    said = summary(prediction)
    messages = str(prediction.get("qc_messages") or "")
    with paths["serotyper-log"].open("a") as log:
        log.write(f"\n{said}\n" + "".join(f"  {m.strip()}\n" for m in messages.split("|")
                                           if m.strip()))
        if prediction.get("qc_status") == "FAIL":
            log.write("SISTR could not type this assembly reliably (QC FAIL); it may not be "
                      "Salmonella enterica. The analysis completed with these results.\n")
    ctx.log(said)
    if messages:
        ctx.log(f"SISTR QC messages: {messages}")
    (ctx.work_dir / TIMINGS_FILE).write_text(json.dumps(clock.times))
    ctx.log("step times (s): " + ", ".join(f"{k} {v:.1f}" for k, v in clock.times.items()))
    ctx.progress(1.0, said)
    return paths
