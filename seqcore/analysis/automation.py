"""Automated analyses: a project's chosen analysis types run on every new upload.

The worker launches them under no caller; each is recorded as submitted by the project's
automation bot (:func:`seqcore.accounts.bots.automation_bot_id`), as IRIDA Next records its
automated workflow executions, so a submission's submitter is always an account."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import object_session

from seqcore import hookimpl
from seqcore.accounts.bots import automation_bot_id
from seqcore.analysis.parameters import check_parameters
from seqcore.analysis.readiness import readiness
from seqcore.models.analysis import AutomatedAnalysis, Priority
from seqcore.models.sample import ProjectSample, Sample

log = logging.getLogger(__name__)


@hookimpl
def sequencing_object_processed(sequencing_object: Any, kind: str, registry: Any) -> None:
    """For each project holding the sample, launch its automated analyses that take this kind
    of input. Results are written back only where the project owns the sample."""
    from seqcore.analysis.registry import analysis_registry
    from seqcore.analysis.service import create_submission

    db = object_session(sequencing_object)
    if db is None:  # the hook is called from the session that processed the object
        raise RuntimeError(f"sequencing object {sequencing_object.id} is in no session")
    analyses = analysis_registry(registry)
    sample = db.get_one(Sample, sequencing_object.sample_id)
    rows = db.execute(
        select(AutomatedAnalysis, ProjectSample.owner)
        .join(ProjectSample, ProjectSample.project_id == AutomatedAnalysis.project_id)
        .where(ProjectSample.sample_id == sample.id)).all()
    for automated, owns in rows:
        analysis_type = analyses.type(automated.analysis_type)
        if analysis_type is None or kind not in analysis_type.inputs:
            continue
        ready, _ = readiness(analysis_type)
        if not ready:
            log.warning("automated %s for sample %s skipped: the type is not ready",
                        analysis_type.name, sample.id)
            continue
        values, _ = check_parameters(analysis_type, automated.parameters or {})
        create_submission(
            db, analysis_type, name=f"{analysis_type.label} - {sample.name}",
            inputs=[sequencing_object], parameters=values,
            project_ids=[automated.project_id],
            update_samples=bool(owns and analysis_type.writes_back),
            priority=Priority.LOW.value,
            submitter_id=automation_bot_id(db, automated.project_id), automated=True)
