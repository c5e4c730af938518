"""What a pipeline sees, and how any executor runs one.

A job is a directory: ``job.json`` (what to run, parameters, input files), and after the run
``result.json`` (the output files by key, or the error), ``pipeline.log`` and
``progress.json``. Executors only start :func:`run_job` somewhere that sees the directory (a
local process, a Celery worker on a shared file system); the worker reads the result back.
The same pipeline code runs the same way under every executor.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seqcore.observability import requestid, tracing

JOB = "job.json"
RESULT = "result.json"
LOG = "pipeline.log"
PROGRESS = "progress.json"


class PipelineError(Exception):
    """Raise from a pipeline to fail with a message meant for the user."""


@dataclass(frozen=True)
class InputObject:
    """One input sequencing object: its sample and its files (forward first for pairs)."""

    #: The sequencing object's id.
    object_id: int
    #: Its `FileKind.name` (`pairs`, `unpaired`).
    kind: str
    #: The id of the sample it belongs to.
    sample_id: int
    #: The sample's name, for reports and output file names.
    sample_name: str
    #: Its files on disk, readable by the pipeline, in the kind's order (a pair's forward
    #: file first).
    files: tuple[Path, ...]


@dataclass
class PipelineContext:
    """Everything a pipeline gets: inputs, parameters (typed), a private work directory, and
    ``data``: what the analysis type's ``job_data`` returned when the job was written (a
    reference resolved at launch), empty for types that declare none."""

    #: The job's private directory; write outputs with `output_path(name)`.
    work_dir: Path
    #: The launch parameters, typed by the type's `Parameter`s (defaults filled in).
    parameters: dict[str, Any]
    #: One `InputObject` per input sequencing object.
    inputs: list[InputObject]
    #: The submission's id (for logs and names; the pipeline never touches the database).
    submission_id: int
    #: The `AnalysisType.name` being run.
    analysis_type: str
    #: How many threads the job may use (`seqcore.analysis.threads`).
    threads: int = 1
    #: The values of the settings the type names in `AnalysisType.settings`.
    settings: dict[str, Any] = field(default_factory=dict)
    #: What the type's `job_data` returned when the job was written; empty otherwise.
    data: dict[str, Any] = field(default_factory=dict)
    #: The job's logger; `log(message)` writes to it.
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("seqcore.job"))

    def log(self, message: str) -> None:
        """A line in the job's log (kept with the work directory)."""
        self.logger.info(message)

    def progress(self, fraction: float, message: str = "") -> None:
        """Report how far along the job is (0 to 1)."""
        (self.work_dir / PROGRESS).write_text(json.dumps(
            {"fraction": max(0.0, min(1.0, fraction)), "message": message,
             "time": time.time()}))

    def output_path(self, name: str) -> Path:
        """Where to write an output file."""
        out = self.work_dir / "outputs"
        out.mkdir(exist_ok=True)
        return out / name


def write_job(work_dir: Path, spec: dict[str, Any]) -> None:
    work_dir.mkdir(parents=True, exist_ok=True)
    (work_dir / JOB).write_text(json.dumps(spec, indent=2))


def read_result(work_dir: Path) -> dict[str, Any] | None:
    """The job's result, or ``None`` while it has not finished."""
    path = work_dir / RESULT
    if not path.exists():
        return None
    try:
        result: dict[str, Any] = json.loads(path.read_text())
        return result
    except json.JSONDecodeError:
        return None  # being written


def _finish(work_dir: Path, result: dict[str, Any]) -> None:
    tmp = work_dir / (RESULT + ".tmp")
    tmp.write_text(json.dumps(result))
    os.replace(tmp, work_dir / RESULT)  # readers never see half a result


def load_pipeline(path: str) -> Any:
    """The function named by ``"package.module:function"``.

    Raises ``ValueError`` for a malformed path or a missing function, and whatever the import
    raises: start-up turns both into a configuration error naming the analysis type, a job
    into its failure reason.
    """
    module_name, _, function_name = path.partition(":")
    if not module_name or not function_name:
        raise ValueError(f"pipeline {path!r} is not of the form 'module:function'")
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not callable(function):
        raise ValueError(f"pipeline {path!r}: module {module_name!r} has no function "
                         f"{function_name!r}")
    return function


def run_job(work_dir: str | Path) -> dict[str, Any]:
    """Run the job in ``work_dir`` and write ``result.json``; never raises.

    The id of the request that launched the submission (``job.json``'s ``request_id``) is
    current while the job runs, so its log lines (``pipeline.log``, and the executor's own
    log, a Celery worker's included) carry it, and its span continues the launch's trace."""
    work_dir = Path(work_dir)
    spec = json.loads((work_dir / JOB).read_text())
    # The job is a span of the launch's trace (``traceparent``), exported where the worker
    # that wrote job.json exports, unless this process traces already.
    tracing.setup_job(spec.get("traces"))
    try:
        with requestid.bound(spec.get("request_id")), tracing.continued(
                spec.get("traceparent"), "analysis.job", {
                    "seqcore.analysis_submission.id": spec.get("submission_id"),
                    "seqcore.analysis.type": spec.get("analysis_type"),
                    "seqcore.pipeline": spec.get("pipeline")}):
            return _run_job(work_dir, spec)
    finally:
        tracing.flush()


def _run_job(work_dir: Path, spec: dict[str, Any]) -> dict[str, Any]:
    logger = logging.getLogger(f"seqcore.job.{spec['submission_id']}")
    logger.setLevel(logging.INFO)
    handler = logging.FileHandler(work_dir / LOG)
    handler.setFormatter(logging.Formatter("%(asctime)s [%(request_id)s] %(message)s"))
    logger.addHandler(handler)
    try:
        pipeline = load_pipeline(spec["pipeline"])
        inputs = [InputObject(i["object_id"], i["kind"], i["sample_id"], i["sample_name"],
                              tuple(Path(p) for p in i["files"])) for i in spec["inputs"]]
        context = PipelineContext(work_dir=work_dir, parameters=spec["parameters"],
                                  inputs=inputs, submission_id=spec["submission_id"],
                                  analysis_type=spec["analysis_type"],
                                  threads=int(spec.get("threads", 1)),
                                  settings=dict(spec.get("settings", {})),
                                  data=dict(spec.get("data", {})), logger=logger)
        logger.info("starting %s for submission %s request_id=%s", spec["pipeline"],
                    spec["submission_id"], spec.get("request_id") or "-")
        outputs = pipeline(context) or {}
        missing = {k: str(p) for k, p in outputs.items() if not Path(p).is_file()}
        if missing:
            raise PipelineError(f"the pipeline named output files that do not exist: {missing}")
        result = {"status": "ok", "outputs": {k: str(Path(p).resolve())
                                               for k, p in outputs.items()}}
        logger.info("finished submission %s with outputs %s request_id=%s",
                    spec["submission_id"], sorted(outputs), spec.get("request_id") or "-")
    except PipelineError as err:
        logger.error("failed: %s", err)
        result = {"status": "error", "error": str(err)}
    except Exception as err:  # any failure of the pipeline becomes the submission's reason
        logger.error("failed: %s", traceback.format_exc())
        result = {"status": "error", "error": f"{type(err).__name__}: {err}"}
    finally:
        logger.removeHandler(handler)
        handler.close()
    _finish(work_dir, result)
    return result

