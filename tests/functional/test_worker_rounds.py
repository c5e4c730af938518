"""``seqcore worker --only``: a worker that runs some of the loop's rounds, so machines that
do not see the analyses' work directory can still process uploads (docs/operations.md,
"Several machines")."""

from __future__ import annotations

import pytest

from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.sequencing import SequencingObject
from seqcore.worker import ROUNDS, WorkerLoop


def test_a_worker_without_analyses_processes_uploads_and_leaves_launches(
        app_config, factories, upload_reads, run_analysis, db):
    user = factories.user()
    headers = factories.headers(user)
    sample = factories.sample(factories.project(owner=user))
    processed = upload_reads(sample, headers)
    waiting = upload_reads(sample, headers, process=False)
    launched = run_analysis.launch("readcount", [processed], headers)
    loop = WorkerLoop(app_config.registry, only=[r for r in ROUNDS if r != "analyses"])
    while loop.run_once():
        pass
    db.expire_all()
    assert db.get(SequencingObject, waiting.id).processing_state == "FINISHED"
    submission_id = int(launched.json["resource"]["identifier"])
    assert db.get(AnalysisSubmission, submission_id).state == "NEW"
    WorkerLoop(app_config.registry, only=["analyses"]).analyses.run_until_idle(timeout=120)
    db.expire_all()
    assert db.get(AnalysisSubmission, submission_id).state == "COMPLETED"


def test_an_unknown_round_is_refused(app_config):
    with pytest.raises(ValueError, match="no such worker round: qc"):
        WorkerLoop(app_config.registry, only=["processing", "qc"])
