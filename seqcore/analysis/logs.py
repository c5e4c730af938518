"""The end of a submission's log, as the analysis page shows it while the job runs and after.

Every executor leaves the job's log in the job directory as ``pipeline.log``
(:data:`seqcore.analysis.pipeline.LOG`): the local and Celery executors through
:func:`~seqcore.analysis.pipeline.run_job`'s handler, written as the pipeline goes; an
executor whose job runs elsewhere (a WES server) copies the remote log there when it asks
after the run. Only the last lines are read, from the end of the file, so a log of
gigabytes costs one small read. The directory goes with the submission's clean-up; then
there is no log to show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqcore.analysis.pipeline import LOG

#: Lines shown by default.
TAIL_LINES = 40
#: Bytes read from the end of the log at most: a few very long lines cannot make the page
#: read the whole file.
TAIL_BYTES = 64 * 1024
# Terminal colours (engines colour their logs) and other control characters but tab.
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class LogTail:
    """The last ``lines`` of a log, and whether earlier lines were left out."""

    lines: tuple[str, ...]
    truncated: bool


def log_path(submission: Any) -> Path | None:
    """Where ``submission``'s log is, if it has a job directory."""
    return Path(submission.work_dir) / LOG if submission.work_dir else None


def log_tail(submission: Any, lines: int = TAIL_LINES) -> LogTail | None:
    """The last ``lines`` lines of ``submission``'s log (control characters removed), or
    ``None`` when there is no log (not started yet, or cleaned up)."""
    path = log_path(submission)
    if path is None:
        return None
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            start = max(0, size - TAIL_BYTES)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace")
    found = text.splitlines()
    if start > 0 and found:
        found = found[1:]  # the first line read is cut
    found = [_CONTROL.sub("", line) for line in found]
    return LogTail(tuple(found[-lines:]), start > 0 or len(found) > lines)


__all__ = ["TAIL_LINES", "LogTail", "log_path", "log_tail"]
