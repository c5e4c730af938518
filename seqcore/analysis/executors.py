"""Executors run pipelines; the embedded default starts each job as a local process.

An executor's contract is small: :meth:`submit` starts a job (its directory holds
``job.json``) and returns an id, or raises :class:`SubmitLater` when its server does not
answer yet; :meth:`poll` says whether it is queued, running, finished or lost; :meth:`cancel`
stops it. An executor whose jobs may wait in a queue of its own says so (``queues = True``):
the worker then keeps the submission ``SUBMITTING`` until ``poll`` says ``running``.
Results always come back through the job directory, so a worker that restarts can pick up
a job another worker started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from seqcore import hookimpl
from seqcore.analysis.pipeline import read_result
from seqcore.framework.contrib import Executor


@dataclass(frozen=True)
class JobStatus:
    """``state``: ``queued`` (accepted, waiting for the executor's resources: only from
    executors with ``queues = True``), ``running``, ``done`` (``result`` holds result.json)
    or ``lost`` (the executor no longer knows the job and it left no result)."""

    state: str
    result: dict[str, Any] | None = None
    detail: str = ""


class SubmitLater(Exception):
    """Raised by ``submit`` when the executor cannot take the job now but may soon (its
    server does not answer). The worker keeps the submission ``PREPARED`` and hands it over
    again on its next rounds; the executor decides how long it keeps saying so, and then
    raises any other error, which ends the submission in ``ERROR``."""


class JobExecutor(Protocol):
    name: str
    # True: accepted jobs may wait (``poll`` answers ``queued``) before they run.
    queues: bool

    def submit(self, work_dir: Path) -> str: ...

    def poll(self, remote_id: str, work_dir: Path) -> JobStatus: ...

    def cancel(self, remote_id: str) -> None: ...


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a reaped pid may be reused: make sure it is still one of our jobs
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"seqcore.analysis.run" not in cmdline:
            return False
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
        return state != "Z"
    except OSError:
        return True


class LocalExecutor:
    """Each job is a child process (``python -m seqcore.analysis.run <dir>``); the
    worker's capacity setting bounds how many run at once. A job survives the worker that
    started it: a restarted worker finds its result in the job directory."""

    name = "local"
    queues = False

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    def submit(self, work_dir: Path) -> str:
        log = open(work_dir / "executor.log", "ab")  # noqa: SIM115
        # The job imports the same code the worker does (plugins included).
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
               "SEQCORE_ORIGINAL_PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        process = subprocess.Popen(
            [sys.executable, "-m", "seqcore.analysis.run", str(work_dir)],
            stdout=log, stderr=subprocess.STDOUT, cwd=work_dir, start_new_session=True,
            env=env)
        log.close()
        self._children[process.pid] = process
        return f"local:{process.pid}"

    def poll(self, remote_id: str, work_dir: Path) -> JobStatus:
        result = read_result(work_dir)
        pid = int(remote_id.rsplit(":", 1)[1])
        child = self._children.get(pid)
        if child is not None and child.poll() is not None:
            self._children.pop(pid, None)  # reap it
            result = result or read_result(work_dir)
        if result is not None:
            return JobStatus("done", result)
        if child is not None and child.returncode is None:
            return JobStatus("running")
        if _alive(pid):
            return JobStatus("running")
        return JobStatus("lost", detail=f"process {pid} ended without a result")

    def cancel(self, remote_id: str) -> None:
        pid = int(remote_id.rsplit(":", 1)[1])
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGTERM)


@hookimpl
def register_executors() -> list[Executor]:
    return [Executor("local", LocalExecutor)]
