"""What an analysis type's ``job_data`` callable receives when the worker writes a job.

A pipeline runs without a database, maybe on another machine; whatever it needs beyond its
inputs and parameters (a reference resolved at launch) is looked up here, in the worker's
transaction, and written into ``job.json``. The pipeline reads it as ``ctx.data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class JobSource:
    """The submission being prepared, with what the worker holds: its database session, the
    file storage, the deployment's settings and the job's work directory. A stored file the
    pipeline reads is handed over as ``storage.stage(stored.path, work_dir / "inputs")``: the
    file itself in a local directory, a copy in the job's directory from an object store (the
    job may run where no storage directory is)."""

    db: Any
    storage: Any
    settings: Mapping[str, Any]
    submission: Any
    #: The job's work directory (``job.json`` is written there).
    work_dir: Path | None = None
