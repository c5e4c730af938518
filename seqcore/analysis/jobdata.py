"""What an analysis type's ``job_data`` callable receives when the worker writes a job.

A pipeline runs without a database, maybe on another machine; whatever it needs beyond its
inputs and parameters (a reference resolved at launch) is looked up here, in the worker's
transaction, and written into ``job.json``. The pipeline reads it as ``ctx.data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JobSource:
    """The submission being prepared, with what the worker holds: its database session, the
    file storage (``storage.path(stored.path)`` is where a stored file can be read) and the
    deployment's settings."""

    db: Any
    storage: Any
    settings: Mapping[str, Any]
    submission: Any
