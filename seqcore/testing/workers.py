"""The core's background workers, for a plugin's tests to run one pass of them.

``Worker`` (upload processing: QC, content checks, ``file_processed``), ``AnalysisWorker``
(submissions: prepare, submit, poll, write back) and ``ExportWorker`` (data exports: build,
purge; ``run_once()``) are what the ``seqcore worker`` command runs
in production; a test builds one over the test database and calls ``run_until_idle()`` to move
uploads and submissions along without a live process.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from pyramid.registry import Registry
from sqlalchemy.orm import Session

from seqcore.analysis.readiness import clear_cache as clear_readiness_cache
from seqcore.analysis.registry import analysis_registry
from seqcore.analysis.service import create_submission
from seqcore.analysis.worker import AnalysisWorker
from seqcore.exports.worker import ExportWorker
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.sequencing import SequencingObject
from seqcore.qc.processing import Worker

__all__ = ["AnalysisWorker", "ExportWorker", "Worker", "clear_readiness_cache",
           "create_automated_submission", "run_until_state"]


def run_until_state(worker: AnalysisWorker, db: Session, submission_id: int,
                    states: Collection[str], timeout: float = 60.0) -> AnalysisSubmission:
    """Run ``worker`` pass after pass until the submission is in one of ``states`` (as the
    database holds it now, not as ``db`` last loaded it); ``AssertionError`` after
    ``timeout`` seconds, naming the state it is stuck in."""
    deadline = time.monotonic() + timeout
    while True:
        worker.run_once()
        db.expire_all()
        submission = db.get_one(AnalysisSubmission, submission_id)
        if submission.state in states:
            return submission
        if time.monotonic() >= deadline:
            raise AssertionError(f"submission {submission_id} still {submission.state} "
                                 f"after {timeout} s")
        time.sleep(0.1)


def create_automated_submission(registry: Registry, db: Session, type_name: str,
                                inputs: Iterable[SequencingObject],
                                parameters: Mapping[str, Any] | None = None,
                                name: str = "automated") -> AnalysisSubmission:
    """A submission as automated analyses create it on upload: no caller, no launch check,
    so a test can see what the pipeline does with inputs nobody checked."""
    analysis_type = analysis_registry(registry).type(type_name)
    if analysis_type is None:
        raise ValueError(f"no analysis type {type_name!r} is registered")
    return create_submission(db, analysis_type, name=name, inputs=list(inputs),
                             parameters=dict(parameters or {}), project_ids=[],
                             update_samples=False, priority="LOW", submitter_id=None,
                             automated=True)
