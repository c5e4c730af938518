"""The core's background workers, for a plugin's tests to run one pass of them.

``Worker`` (upload processing: QC, content checks, ``file_processed``) and ``AnalysisWorker``
(submissions: prepare, submit, poll, write back) are what the ``seqcore worker`` command runs
in production; a test builds one over the test database and calls ``run_until_idle()`` to move
uploads and submissions along without a live process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyramid.registry import Registry
from sqlalchemy.orm import Session

from seqcore.analysis.readiness import clear_cache as clear_readiness_cache
from seqcore.analysis.registry import analysis_registry
from seqcore.analysis.service import create_submission
from seqcore.analysis.worker import AnalysisWorker
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.sequencing import SequencingObject
from seqcore.processing import Worker

__all__ = ["AnalysisWorker", "Worker", "clear_readiness_cache", "create_automated_submission"]


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
