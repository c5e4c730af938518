"""Running the external programs of the pipeline, so that every failure reads well.

Each run writes the tool's version and exact command line at the top of its log, so a log
served as an output says what produced it. A tool that exits non-zero, is killed (out of
memory, a cancelled job) or cannot be found raises :class:`PipelineError` with the tool's
name, how it ended and the last lines it wrote; the work directory is left as it is for
inspection.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from seqcore.plugin import PipelineError


def tool_environment() -> dict[str, str]:
    """The environment for external tools: without ``PYTHONPATH``/``PYTHONHOME``.

    The local executor puts the worker's whole ``sys.path`` (its own interpreter's standard
    library included) into ``PYTHONPATH`` so the job can import seqcore; Python tools such as
    ``spades.py`` run under the system interpreter and break on that foreign standard
    library (SPAdes fails compressing its corrected reads)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@functools.lru_cache(maxsize=32)
def tool_version(command: str, *args: str) -> str:
    """The first line a tool prints for its version (``"unknown"`` when it prints none)."""
    path = shutil.which(command)
    if path is None:
        return "not installed"
    try:
        done = subprocess.run([path, *(args or ("--version",))], capture_output=True,
                              text=True, timeout=60, check=False, env=tool_environment())
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else "unknown"


def tail(path: Path | None, lines: int = 4, limit: int = 600) -> str:
    """The last non-empty lines of a log: what a user needs to see why a tool failed."""
    if path is None or not path.is_file():
        return ""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - 16_384))
        text = handle.read().decode("utf-8", "replace")
    every = [line.strip() for line in text.splitlines() if line.strip()]
    # SPAdes and MEGAHIT end with boilerplate; their ERROR lines say what went wrong.
    errors = [line for line in every if " ERROR " in line or line.startswith(
        ("== Error", "ERROR", "Error", "[ERROR"))]
    kept = (errors or every)[-lines:]
    return " | ".join(kept)[-limit:]


def describe_exit(code: int) -> str:
    """``exit code 2`` or ``killed by signal SIGKILL`` (the usual sign of running out of
    memory)."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"was killed by signal {name}{hint}"
    if code > 128 and code - 128 in {s.value for s in signal.Signals}:
        return f"was killed by signal {signal.Signals(code - 128).name} (exit code {code})"
    return f"failed with exit code {code}"


@dataclass
class ToolRunner:
    """Runs tools in a work directory, logging each command to the job's log."""

    log: Callable[[str], None]

    def run(self, label: str, argv: Sequence[str | float | Path], *, cwd: Path, stdout: Path,
            stderr: Path | None = None, version_args: Sequence[str] = ("--version",),
            error_log: Path | None = None) -> float:
        """Run ``argv``; stdout (and stderr, unless given its own file) go to ``stdout``,
        which starts with the tool's version and command line. Returns the wall time.

        ``error_log`` is where the tool writes its own log (SPAdes, MEGAHIT), quoted in the
        error when it fails."""
        command = str(argv[0])
        if shutil.which(command) is None:
            raise PipelineError(f"{label} ({command}) is not installed on the worker")
        version = tool_version(command, *version_args)
        line = shlex.join(str(a) for a in argv)
        self.log(f"{label}: {version}: {line}")
        started = time.monotonic()
        with stdout.open("w") as out:
            out.write(f"# {label}: {version}\n# command: {line}\n")
            out.flush()
            err = stderr.open("w") if stderr is not None else None
            try:
                done = subprocess.run([str(a) for a in argv], cwd=cwd, stdout=out,
                                      stderr=err if err is not None else subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, check=False,
                                      env=tool_environment())
            except OSError as error:
                raise PipelineError(f"{label} ({command}) could not start: {error}") from error
            finally:
                if err is not None:
                    err.close()
        elapsed = time.monotonic() - started
        self.log(f"{label}: exit code {done.returncode} after {elapsed:.1f} s")
        if done.returncode != 0:
            said = tail(error_log) or tail(stderr) or tail(stdout)
            raise PipelineError(f"{label} {describe_exit(done.returncode)}"
                                + (f": {said}" if said else ""))
        return elapsed
