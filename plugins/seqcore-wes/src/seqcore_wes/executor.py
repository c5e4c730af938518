"""The ``wes`` executor: a submission's job runs as a run on a GA4GH WES server.

``submit`` writes the samplesheet into the job directory, then ``POST /runs`` with the
parameters, the samplesheet as ``input``, an output directory as ``outdir`` and, when the
descriptor names a local workflow file, that file attached (WES 1.1). The run id is the
submission's ``remoteWorkflowId``. With the local storage directory the WES server reads the
samplesheet and the inputs by path and writes into the job directory (``work_path`` on a file
system both see). With an object store it shares no directory with seqcore: the input files
and the samplesheet (copied to the store under ``runs/<job>/``) are signed URLs of the store,
valid ``seqcore.analysis.input_url_hours`` (the run's expected length), ``outdir`` is the
store's URI of ``runs/<job>/output`` (a Nextflow engine writes there with its own
credentials), and the outputs are read from the URLs the run log names (the store's, or a
server's own ``http(s)://``), or from ``runs/<job>/output`` when it names none; the run's
objects go once the outputs are collected.

``poll`` follows ``GET /runs/{id}/status``: ``QUEUED`` and ``INITIALIZING`` are ``queued``
(the executor ``queues``: the submission stays ``SUBMITTING`` with its run id), ``RUNNING``,
``PAUSED`` and the other unfinished states keep it running; ``COMPLETE`` collects the
outputs into the job directory (the core then stores them); ``EXECUTOR_ERROR``,
``SYSTEM_ERROR`` and ``CANCELED`` end it in ``ERROR`` with the run log's message. A server
that does not answer is asked again on the next round; after
``seqcore.wes.unreachable_seconds`` without an answer the submission fails. The same holds
before the run is submitted: while ``POST /runs`` finds no server the executor answers
:class:`SubmitLater`, the submission stays ``PREPARED`` and is handed over again on the
worker's next rounds (``ERROR`` after the same time). Everything the executor knows is in
the job directory and the run id, so a restarted worker carries on following the runs
already submitted.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seqcore.plugin import JOB_LOG, JobStatus, SubmitLater, read_result, storage_from_settings
from seqcore_wes import outputs, samplesheet
from seqcore_wes.client import WesClient, WesError, WesUnavailable

UNREACHABLE = "seqcore.wes.unreachable_seconds"
QUEUED = ("QUEUED", "INITIALIZING")
WAITING = ("RUNNING", "PAUSED", "UNKNOWN", "CANCELING", "PREEMPTED")
FAILED = ("EXECUTOR_ERROR", "SYSTEM_ERROR", "CANCELED")
MARKER = "wes-unreachable-since"
INPUT_URL_HOURS = "seqcore.analysis.input_url_hours"
# The URI schemes of the object stores' own locations (``Storage.location``).
STORE_SCHEMES = ("s3", "az")
STATE = "wes-state.json"
logger = logging.getLogger(__name__)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # engines colour their logs (cwltool does)


def run_params(job: Mapping[str, Any], sheet: str, outdir: str) -> dict[str, Any]:
    """The run's parameters: the launch's values, then the samplesheet (a path, or a signed
    URL of the object store) and the output directory (a path, or the store's URI of the
    run's ``output`` directory, where the engine writes with its own credentials). CWL takes
    files as ``File`` objects and collects its outputs itself (no ``outdir``)."""
    params = {k: v for k, v in job["parameters"].items() if v is not None}
    if job["data"]["engine"].upper() == "CWL":
        location = sheet if "://" in sheet else Path(sheet).resolve().as_uri()
        params["input"] = {"class": "File", "location": location}
    else:
        params["input"] = sheet
        params["outdir"] = outdir
    return params


def engine_options(data: Mapping[str, Any]) -> dict[str, Any]:
    """What IRIDA Next sends for Nextflow: the engine's name and the release to run
    (``-r <version>``, the pipeline's ``url`` being its repository)."""
    if data["engine"].upper() == "NFL":
        return {"workflow_engine": "nextflow", "engine_parameters": {"-r": data["version"]}}
    return {}


def job_status(state: str) -> JobStatus | None:
    """A WES run state the submission waits in, as the worker's status; ``None`` for the
    states that end the run (their log is read)."""
    if state in QUEUED:
        return JobStatus("queued", detail=state)
    if state in WAITING:
        return JobStatus("running", detail=state)
    return None


class WesExecutor:
    name = "wes"
    queues = True  # QUEUED and INITIALIZING runs keep their submission SUBMITTING
    # With an object-store backend, inputs come as signed URLs of the store, not paths.
    reads_urls = True
    #: The object store (``None``: the local directory, shared with the WES server).
    store: Any = None
    #: How long the run's signed URLs live (``seqcore.analysis.input_url_hours``).
    url_seconds = 48 * 3600

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.client = WesClient.from_settings(settings)
        self.unreachable = float(settings.get(UNREACHABLE) or 600)
        # With an object store the WES server shares no directory with seqcore: the
        # samplesheet goes into the store, handed over as a signed URL that lives as long as
        # the inputs' (the run's expected length), and outputs are read back from URLs.
        if str(settings.get("seqcore.storage.backend") or "local") != "local":
            self.store = storage_from_settings(settings)
        self.url_seconds = int(float(settings.get(INPUT_URL_HOURS) or 48) * 3600)

    def submit(self, work_dir: Path) -> str:
        job = json.loads((work_dir / "job.json").read_text())
        data = job["data"]
        header, body = samplesheet.rows(data["samplesheet_schema"], job["inputs"],
                                        data["metadata"], data.get("puids") or {})
        sheet = samplesheet.write(work_dir / "samplesheet.csv", header, body)
        if self.store is None:  # a directory the WES server shares
            outdir = work_dir / "output"
            outdir.mkdir(exist_ok=True)
            sheet_location, out_location = str(sheet), str(outdir.resolve())
        else:
            key = self.store.put_run_file(work_dir.name, sheet.name, sheet)
            sheet_location = str(self.store.signed_url(key, "GET", self.url_seconds))
            out_location = self.store.location(key.rsplit("/", 1)[0] + "/output")
        attachments = [Path(data["workflow_file"])] if data.get("workflow_file") else []
        workflow_url = attachments[0].name if attachments else data["workflow_url"]
        marker = work_dir / MARKER
        try:
            run_id = self.client.submit(
                workflow_url, data["engine"], data["engine_version"],
                run_params(job, sheet_location, out_location), attachments,
                tags={"seqcore_submission": str(job["submission_id"]),
                      "pipeline": data["pipeline_id"], "version": data["version"]},
                **engine_options(data))
        except WesUnavailable as err:  # the worker hands the job over again next round
            waited = self._unanswered(marker)
            if waited > self.unreachable:
                raise WesUnavailable(f"The WES server did not answer for {waited:.0f} s; the "
                                     f"run was not submitted: {err}") from err
            raise SubmitLater(str(err)) from err
        marker.unlink(missing_ok=True)
        return run_id

    @staticmethod
    def _unanswered(marker: Path) -> float:
        """Seconds since the server first did not answer (the marker in the job directory
        remembers it across rounds and workers)."""
        now = time.time()
        if not marker.exists():
            marker.write_text(str(now))
        return now - float(marker.read_text() or now)

    def _remember(self, work_dir: Path, state: str) -> None:
        (work_dir / STATE).write_text(json.dumps({"state": state, "at": time.time()}))

    @staticmethod
    def _last_state(work_dir: Path) -> str | None:
        """The run's state the server last answered (``None``: not asked yet), so a server
        that stops answering leaves a queued submission queued and a running one running."""
        try:
            return json.loads((work_dir / STATE).read_text())["state"]
        except (OSError, ValueError, KeyError):
            return None

    def poll(self, remote_id: str, work_dir: Path) -> JobStatus:
        done = read_result(work_dir)
        if done is not None:  # collected on an earlier round
            return JobStatus("done", done)
        marker = work_dir / MARKER
        try:
            status = self._follow(remote_id, work_dir)
        except WesUnavailable as err:  # status, log or outputs: ask again next round
            waited = self._unanswered(marker)
            if waited > self.unreachable:
                return self._finish(work_dir, {"status": "error", "error": (
                    f"The WES server did not answer for {waited:.0f} s while following run "
                    f"{remote_id}: {err}")})
            return JobStatus("queued" if self._last_state(work_dir) in (None, *QUEUED)
                             else "running", detail=str(err))
        except WesError as err:
            if err.status == 404:
                return JobStatus("lost", detail=f"the WES server does not know run "
                                                f"{remote_id}")
            raise
        marker.unlink(missing_ok=True)
        return status

    def _follow(self, remote_id: str, work_dir: Path) -> JobStatus:
        state = self.client.status(remote_id)
        self._remember(work_dir, state)
        waiting = job_status(state)
        if waiting is not None:
            if state not in QUEUED:  # the page's log tail follows the run while it runs
                self._copy_running_log(remote_id, work_dir)
            return waiting
        log = self.client.run_log(remote_id)
        copy_log(work_dir, log)
        if state == "COMPLETE":
            try:
                collected = outputs.collect(self._run_outputs(log, work_dir), work_dir,
                                            self._download)
            except (OSError, ValueError) as err:
                return self._finish(work_dir, {"status": "error", "error": (
                    f"WES run {remote_id} completed, but its outputs could not be "
                    f"collected: {err}")})
            collected[outputs.SAMPLESHEET_KEY] = str(work_dir / "samplesheet.csv")
            return self._finish(work_dir, {"status": "ok", "outputs": collected})
        return self._finish(work_dir, {"status": "error",
                                       "error": failure_message(remote_id, state, log)})

    def _run_outputs(self, log: Mapping[str, Any], work_dir: Path) -> Any:
        """The run log's outputs; with an object store and a run log that names none (a
        Nextflow run writes into ``outdir``), the objects of the run's ``output``."""
        found = log.get("outputs") or {}
        if self.store is not None and not any(outputs.locations(found)):
            return [{"class": "File", "location": self.store.location(key)}
                    for key in self.store.run_keys(work_dir.name, "output")]
        return found

    def _download(self, location: str, target: Path) -> None:
        """An output named by URL: the store's own (``s3://``, ``az://``) read from the store,
        any other fetched over HTTP."""
        if self.store is not None and location.split("://", 1)[0] in STORE_SCHEMES:
            prefix = self.store.location("")
            if not location.startswith(prefix):
                raise ValueError(f"the output {location} is not in {prefix}")
            self.store.backend.download(location[len(prefix):], target)
            return
        self.client.download(location, target)

    def _copy_running_log(self, remote_id: str, work_dir: Path) -> None:
        """The run log of a running run, copied for the page; a log that cannot be read now
        changes nothing (the state was answered; the next round copies it)."""
        try:
            copy_log(work_dir, self.client.run_log(remote_id))
        except (WesError, WesUnavailable, OSError) as err:
            logger.info("the log of WES run %s was not copied this round: %s", remote_id, err)

    def _finish(self, work_dir: Path, result: dict[str, Any]) -> JobStatus:
        tmp = work_dir / "result.json.tmp"
        tmp.write_text(json.dumps(result))
        tmp.replace(work_dir / "result.json")
        if self.store is not None:  # the samplesheet, and outputs now in the job directory
            self.store.remove_run(work_dir.name)
        return JobStatus("done", result)

    def cancel(self, remote_id: str) -> None:
        self.client.cancel(remote_id)


def copy_log(work_dir: Path, log: Mapping[str, Any]) -> None:
    """The run log's standard output and error (and the failed tasks' error) written as the
    job's log (``JOB_LOG``), where the analysis page reads its last lines: the WES server
    keeps the run's log, seqcore keeps the latest copy of it."""
    run_log = log.get("run_log") or {}
    parts = [str(run_log.get(stream) or "") for stream in ("stdout", "stderr")]
    for task in log.get("task_logs") or []:
        if task.get("exit_code") not in (0, None):
            parts.append(f"task {task.get('name') or '?'}: {task.get('stderr') or ''}")
    text = "\n".join(ANSI.sub("", part).rstrip("\n") for part in parts if part.strip())
    tmp = work_dir / f"{JOB_LOG}.tmp"
    tmp.write_text(text + "\n" if text else "")
    tmp.replace(work_dir / JOB_LOG)


def failure_message(run_id: str, state: str, log: Mapping[str, Any]) -> str:
    """The run log's own words: the end of its stderr, else of the failed tasks'."""
    run_log = log.get("run_log") or {}
    texts = [str(run_log.get("stderr") or "")]
    for task in log.get("task_logs") or []:
        if task.get("exit_code") not in (0, None):
            texts.append(str(task.get("stderr") or ""))
    lines = [line for text in texts for line in ANSI.sub("", text).strip().splitlines()
             if line.strip()]
    tail = "\n".join(lines[-20:])
    exit_code = run_log.get("exit_code")
    head = f"WES run {run_id} ended {state}" + (f" (exit code {exit_code})"
                                                 if exit_code not in (None, "") else "")
    return f"{head}: {tail}" if tail else f"{head}."
