"""Cancelling analysis submissions (``POST /api/analysisSubmissions/{id}/cancel`` and
GraphQL's ``cancelAnalysis``): the submission ends in ERROR saying who cancelled it, the
local executor's process stops, the worker leaves it alone; ended submissions are a 409;
readers 403, others 404."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from seqcore.analysis.worker import AnalysisWorker
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.project import ProjectRole
from seqcore.testing.workers import run_until_state

LAUNCH = "/api/analysisSubmissions/analysisType/readcount"
CANCEL = """
mutation($input: CancelAnalysisInput!) {
  cancelAnalysis(input: $input) { submission { id state error } errors { message path } }
}"""


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    reader = factories.user(username="reader")
    project = factories.project(owner=owner, members=[(reader, ProjectRole.USER)])
    sample = factories.sample(project, name="isolate-1")
    pair = factories.sequencing_object(sample, "pairs")
    return {"owner": owner, "reader": reader, "project": project, "pair": pair,
            "headers": factories.headers(owner)}


def launch(testapp, world, sleep=0.0):
    body = {"sequencingObjects": [world["pair"].id], "parameters": {"sleep": sleep},
            "projects": [world["project"].id]}
    res = testapp.post_json(LAUNCH, body, headers=world["headers"], status=201)
    return int(res.json["resource"]["identifier"])


def fresh(db, submission_id):
    db.expire_all()
    return db.get(AnalysisSubmission, submission_id)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_cancelling_a_running_job_stops_its_process(testapp, app_config, db, world):
    submission_id = launch(testapp, world, sleep=60)
    worker = AnalysisWorker(app_config.registry)
    running = run_until_state(worker, db, submission_id, {"RUNNING"})
    pid = int(running.remote_workflow_id.split(":")[1])
    assert alive(pid)
    res = testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel",
                       headers=world["headers"])
    resource = res.json["resource"]
    assert resource["analysisState"] == "ERROR"
    sub = fresh(db, submission_id)
    assert sub.error == "Cancelled by owner while RUNNING."
    assert [state for state, _ in sub.history][-2:] == ["RUNNING", "ERROR"]
    deadline = time.monotonic() + 15
    while alive(pid) and time.monotonic() < deadline:
        worker.run_once()  # also reaps the child the worker started
        time.sleep(0.1)
    assert not alive(pid), "the job's process still runs"
    for _ in range(3):  # the worker moves it no further and collects nothing
        worker.run_once()
    sub = fresh(db, submission_id)
    assert (sub.state, sub.error, list(sub.outputs)) == (
        "ERROR", "Cancelled by owner while RUNNING.", [])
    # Once ended, a second cancel is a conflict.
    res = testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel",
                       headers=world["headers"], status=409)
    assert "only a submission that has not ended can be cancelled" in res.json["message"]


def test_a_new_submission_is_simply_ended(testapp, app_config, db, world):
    submission_id = launch(testapp, world)
    testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel", headers=world["headers"])
    AnalysisWorker(app_config.registry).run_until_idle(timeout=30)
    sub = fresh(db, submission_id)
    assert (sub.state, sub.error, sub.remote_workflow_id, sub.work_dir) == (
        "ERROR", "Cancelled by owner while NEW.", None, None)
    assert [state for state, _ in sub.history] == ["NEW", "ERROR"]


def test_a_completed_submission_is_a_conflict(testapp, app_config, db, world):
    submission_id = launch(testapp, world)
    AnalysisWorker(app_config.registry).run_until_idle(timeout=60)
    assert fresh(db, submission_id).state == "COMPLETED"
    testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel", headers=world["headers"],
                 status=409)
    sub = fresh(db, submission_id)
    assert (sub.state, sub.error) == ("COMPLETED", None)


def test_readers_get_403_and_strangers_404(testapp, factories, db, world):
    submission_id = launch(testapp, world)
    url = f"/api/analysisSubmissions/{submission_id}/cancel"
    testapp.post(url, headers=factories.headers(world["reader"]), status=403)
    testapp.post(url, headers=factories.headers(factories.user()), status=404)
    testapp.get(url, headers=world["headers"], status=405)
    assert fresh(db, submission_id).state == "NEW"
    admin = factories.user(role="ROLE_ADMIN")
    testapp.post(url, headers=factories.headers(admin))
    assert fresh(db, submission_id).error == f"Cancelled by {admin.username} while NEW."


def test_graphql_cancel_analysis(graphql, testapp, factories, app_config, db, world):
    submission_id = launch(testapp, world, sleep=60)
    worker = AnalysisWorker(app_config.registry)
    running = run_until_state(worker, db, submission_id, {"RUNNING"})
    pid = int(running.remote_workflow_id.split(":")[1])
    gid = f"gid://seqcore/AnalysisSubmission/{submission_id}"
    graphql.as_user(factories.user())
    payload = graphql(CANCEL, {"input": {"id": gid}})["data"]["cancelAnalysis"]
    assert payload == {"submission": None, "errors": [
        {"message": "Analysis submission not found by provided ID", "path": ["id"]}]}
    graphql.as_user(world["reader"])
    payload = graphql(CANCEL, {"input": {"id": gid}})["data"]["cancelAnalysis"]
    assert payload["errors"][0]["path"] == ["id"]
    assert "not authorized" in payload["errors"][0]["message"]
    assert fresh(db, submission_id).state == "RUNNING"
    graphql.as_user(world["owner"])
    payload = graphql(CANCEL, {"input": {"id": gid}})["data"]["cancelAnalysis"]
    assert payload == {"errors": [], "submission": {
        "id": gid, "state": "ERROR", "error": "Cancelled by owner while RUNNING."}}
    deadline = time.monotonic() + 15
    while alive(pid) and time.monotonic() < deadline:
        worker.run_once()
        time.sleep(0.1)
    assert not alive(pid)
    payload = graphql(CANCEL, {"input": {"id": gid}})["data"]["cancelAnalysis"]
    assert payload["submission"] is None
    assert "only a submission that has not ended" in payload["errors"][0]["message"]
    assert os.path.isdir(fresh(db, submission_id).work_dir)
