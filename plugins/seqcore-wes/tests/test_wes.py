"""Descriptor pipelines run on a real WES server (the GA4GH reference server with cwltool):
launched over REST and GraphQL, followed through its states, outputs collected and metadata
written back; and every failure the issue lists."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from seqcore.plugin import AnalysisSubmission, MetadataEntry, SequenceFile
from seqcore.testing.uploads import fastq
from seqcore.testing.workers import AnalysisWorker, run_until_state

TYPE = "seqcore-readcount-1.0.0"
LAUNCH = f"/api/analysisSubmissions/analysisType/{TYPE}"
GRAPHQL_LAUNCH = """
mutation($input: LaunchAnalysisInput!) {
  launchAnalysis(input: $input) { submission { id analysisType state } errors { message path } }
}"""


@pytest.fixture
def world(factories, upload_reads):
    owner = factories.user()
    headers = factories.headers(owner)
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1", metadata={"organism": "E. coli"})
    reads = upload_reads(sample, headers, files=[
        ("isolate_R1.fastq", fastq(reads=20, length=60, seed=1)),
        ("isolate_R2.fastq", fastq(reads=20, length=50, seed=2))])
    return {"owner": owner, "headers": headers, "sample": sample, "reads": reads}


def launch(testapp, world, status=201, **parameters):
    body = {"name": "count", "sequencingObjects": [world["reads"].id],
            "writeResultsToSamples": True}
    if parameters:
        body["parameters"] = parameters
    return testapp.post_json(LAUNCH, body, headers=world["headers"], status=status)


def state(db, submission_id):
    db.expire_all()
    return db.get(AnalysisSubmission, submission_id)


SAMPLE_ATTACHMENTS = """
query($id: ID!) { node(id: $id) { ... on Sample {
  attachments { nodes { filename attachmentUrl } } } } }"""


def sample_attachments(graphql, sample) -> list[dict]:
    found = graphql(SAMPLE_ATTACHMENTS, {"id": f"gid://seqcore/Sample/{sample.id}"})
    return found["data"]["node"]["attachments"]["nodes"]


def test_rest_launch_runs_on_wes_and_writes_back(testapp, app_config, db, world, wes,
                                                 run_analysis, graphql):
    res = launch(testapp, world, min_length=0, label="batch-7", mode="careful")
    submission_id = int(res.json["resource"]["identifier"])
    run = run_analysis.drive(submission_id, world["headers"], timeout=180)
    assert run.state == "COMPLETED", run.error

    sub = state(db, submission_id)
    states = [entry[0] for entry in sub.history]
    assert states.index("RUNNING") < states.index("COMPLETING") < states.index("COMPLETED")
    assert sub.executor == "wes"
    # The WES run id is the submission's remoteWorkflowId, and the server knows that run.
    assert run.submission["remoteWorkflowId"] == sub.remote_workflow_id
    log = httpx.get(f"{wes.server.url}/runs/{sub.remote_workflow_id}").json()
    assert log["state"] == "COMPLETE"
    assert log["request"]["workflow_params"]["label"] == "batch-7"

    sample_id, puid = world["sample"].id, world["sample"].puid
    # The samplesheet's sample column holds the sample's PUID, as IRIDA Next writes it, and
    # the manifest names the sample by it.
    manifest = json.loads(gzip.decompress(run.outputs["outputFile/iridanext-output"]))
    assert manifest["metadata"]["samples"][puid]["readcount"] == {
        "reads": 40, "bases": 20 * 60 + 20 * 50}
    sheet = run.outputs["outputFile/samplesheet"].decode().splitlines()
    assert sheet[0] == "sample,sample_name,fastq_1,fastq_2,organism"
    assert sheet[1].startswith(f"{puid},isolate-1,") and sheet[1].endswith(",E. coli")

    metadata = testapp.get(f"/api/samples/{sample_id}/metadata", headers=world["headers"]
                           ).json["resource"]["metadata"]
    assert metadata["readcount.reads"]["value"] == "40"
    assert metadata["readcount.bases"]["value"] == "2200"
    assert metadata["readcount_organism_seen"]["value"] == "E. coli"
    assert metadata["readcount_mode"]["value"] == "careful"
    entry = db.query(MetadataEntry).filter_by(sample_id=sample_id,
                                               field="readcount.reads").one()
    assert entry.submission_id == submission_id  # provenance
    # The per-sample and global files the manifest names are outputs of the analysis.
    keys = {o.key for o in sub.outputs}
    counts = f"sample-{puid}-{puid}.counts.txt"
    assert {"iridanext-output", "samplesheet", "global-summary.txt", counts} == keys
    # ... and served over REST as outputFile/<key>, as a client downloads them.
    assert run.outputs["outputFile/global-summary.txt"] == f"batch-7 {puid} 40 2200\n".encode()
    assert run.outputs[f"outputFile/{counts}"] == b"isolate-1\t40\t2200\n"

    # With write-back (IRIDA Next's updateSamples) the sample's own files are attached to
    # it; the global ones stay the execution's.
    graphql.as_user(world["owner"])
    attached = sample_attachments(graphql, world["sample"])
    assert [a["filename"] for a in attached] == [f"{puid}.counts.txt"]
    url = attached[0]["attachmentUrl"]
    assert testapp.get(url).body == b"isolate-1\t40\t2200\n"
    # The attachment and the output share one stored file: deleting the analysis keeps the
    # sample's file whole, while the files only the analysis held go with it.
    stored = {o.key: o.file_id for o in sub.outputs}
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=world["headers"])
    testapp.get(f"/api/analysisSubmissions/{submission_id}", headers=world["headers"],
                status=404)
    assert testapp.get(url).body == b"isolate-1\t40\t2200\n"
    assert [a["filename"] for a in sample_attachments(graphql, world["sample"])] == [
        f"{puid}.counts.txt"]
    db.expire_all()
    assert db.get(SequenceFile, stored[counts]) is not None
    assert db.get(SequenceFile, stored["global-summary.txt"]) is None


def test_graphql_launch_runs_on_wes(graphql, app_config, db, world, run_analysis):
    gid = f"gid://seqcore/Sample/{world['sample'].id}"
    payload = graphql.as_user(world["owner"])(GRAPHQL_LAUNCH, {"input": {
        "analysisType": TYPE, "sampleIds": [gid], "parameters": {"label": "gql"}}})[
        "data"]["launchAnalysis"]
    assert payload["errors"] == []
    assert payload["submission"]["analysisType"] == TYPE
    submission_id = int(payload["submission"]["id"].rsplit("/", 1)[1])
    run = run_analysis.drive(submission_id, world["headers"], timeout=180)
    assert run.state == "COMPLETED"
    sub = state(db, submission_id)
    assert sub.parameters["label"] == "gql" and sub.remote_workflow_id
    # Without write-back the sample gets neither metadata nor files.
    assert sample_attachments(graphql, world["sample"]) == []
    assert db.query(MetadataEntry).filter_by(sample_id=world["sample"].id,
                                              field="readcount.reads").count() == 0


def test_a_failing_pipeline_ends_in_error_with_the_wes_log(testapp, db, world, run_analysis):
    res = launch(testapp, world, fail=True)
    run = run_analysis.drive(int(res.json["resource"]["identifier"]), world["headers"],
                             timeout=180)
    assert run.state == "ERROR"
    sub = state(db, run.id)
    assert "ended EXECUTOR_ERROR" in sub.error
    assert "readcount: refusing to count: fail was set" in sub.error
    assert "\x1b" not in sub.error  # the engine's colours are stripped


def test_a_bad_parameter_is_refused_with_every_problem(testapp, db, world):
    res = launch(testapp, world, status=400, min_length=-1, label="two words", mode="slow",
                 bogus="1")
    problems = res.json
    assert set(problems) == {"parameters.min_length", "parameters.label", "parameters.mode",
                             "parameters.bogus"}, problems
    assert problems["parameters.min_length"] == ["'min_length' must be at least 0."]
    assert problems["parameters.mode"] == ["'mode' must be one of fast, careful."]
    assert "does not match" in problems["parameters.label"][0]  # the schema's own pattern
    assert db.query(AnalysisSubmission).count() == 0


def test_single_end_reads_fill_fastq_1_alone(testapp, factories, upload_reads, db, world,
                                             run_analysis):
    sample = factories.sample(factories.project(owner=world["owner"]), name="single")
    reads = upload_reads(sample, world["headers"], kind="unpaired",
                         files=[("single.fastq", fastq(reads=7, length=30, seed=3))])
    res = testapp.post_json(LAUNCH, {"sequencingObjects": [reads.id],
                                     "writeResultsToSamples": True}, headers=world["headers"])
    run = run_analysis.drive(int(res.json["resource"]["identifier"]), world["headers"],
                             timeout=180)
    assert run.state == "COMPLETED", run.error
    row = run.outputs["outputFile/samplesheet"].decode().splitlines()[1].split(",")
    assert row[0] == sample.puid and row[2].endswith("single.fastq") and row[3] == ""
    metadata = testapp.get(f"/api/samples/{sample.id}/metadata", headers=world["headers"]
                           ).json["resource"]["metadata"]
    assert metadata["readcount.reads"]["value"] == "7"
    assert metadata["readcount_organism_seen"]["value"] == "none"  # no organism metadata


def test_too_many_samples_are_refused(testapp, factories, upload_reads, db, world):
    more = []
    for n in range(3):
        sample = factories.sample(factories.project(owner=world["owner"]), name=f"extra-{n}")
        more.append(upload_reads(sample, world["headers"]).id)
    res = testapp.post_json(LAUNCH, {"sequencingObjects": [world["reads"].id, *more]},
                            headers=world["headers"], status=400)
    assert "at most 3 samples; 4 given" in json.dumps(res.json)
    assert db.query(AnalysisSubmission).count() == 0


def test_a_server_down_at_launch_is_409(testapp, db, world, wes):
    wes.relay.cut()
    try:
        res = launch(testapp, world, status=409)
    finally:
        wes.relay.restore()
    assert "the WES server does not answer" in res.json["message"]
    assert db.query(AnalysisSubmission).count() == 0


def test_readiness_reuses_the_servers_answer_for_a_while(build_app, factories, wes):
    app = build_app(**{"seqcore.wes.service_info_seconds": 60})
    headers = factories.headers(factories.user())
    url = f"/api/analysisTypes/{TYPE}"
    assert app.get(url, headers=headers).json["resource"]["ready"] is True
    wes.relay.cut()
    try:  # answered from the last question, without asking the server
        assert app.get(url, headers=headers).json["resource"]["ready"] is True
    finally:
        wes.relay.restore()


def test_the_bearer_token_goes_to_the_wes_server(build_app, factories, wes):
    app = build_app(**{"seqcore.wes.token": "wes-s3cret-token"})
    headers = factories.headers(factories.user())
    del wes.relay.requests[:]
    assert app.get(f"/api/analysisTypes/{TYPE}", headers=headers).json["resource"]["ready"]
    sent = bytes(wes.relay.requests).lower()
    assert b"get /ga4gh/wes/v1/service-info" in sent
    assert b"authorization: bearer wes-s3cret-token" in sent


def test_a_server_down_mid_run_is_waited_for(testapp, app_config, db, world, wes,
                                             run_analysis):
    res = launch(testapp, world, sleep=3)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    run_until_state(worker, db, submission_id, {"RUNNING"}, timeout=120)
    wes.relay.cut()
    try:
        for _ in range(3):
            worker.run_once()
            time.sleep(0.5)
        assert state(db, submission_id).state == "RUNNING"
    finally:
        wes.relay.restore()
    run = run_analysis.drive(submission_id, world["headers"], timeout=180)
    assert run.state == "COMPLETED"


def test_a_server_down_too_long_ends_in_error(testapp, build_app, db, world, wes,
                                              app_config):
    res = launch(testapp, world, sleep=3)
    submission_id = int(res.json["resource"]["identifier"])
    run_until_state(AnalysisWorker(app_config.registry), db, submission_id, {"RUNNING"},
                    timeout=120)
    impatient = build_app(**{"seqcore.wes.unreachable_seconds": 1}).app.registry
    worker = AnalysisWorker(impatient)
    wes.relay.cut()
    try:
        worker.run_once()
        time.sleep(1.5)
        worker.run_once()
    finally:
        wes.relay.restore()
    sub = state(db, submission_id)
    assert sub.state == "ERROR"
    assert "The WES server did not answer for" in sub.error


def test_a_server_down_before_the_run_is_submitted_is_waited_for(testapp, app_config, db,
                                                                 world, wes, run_analysis):
    """The launch finds the server; it stops answering before the worker's ``POST /runs``:
    the submission waits PREPARED (no run, no error) and is submitted once it is back."""
    res = launch(testapp, world)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    wes.relay.cut()
    try:
        for _ in range(3):
            worker.run_once()
            time.sleep(0.3)
        waiting = state(db, submission_id)
        assert (waiting.state, waiting.remote_workflow_id, waiting.error) == (
            "PREPARED", None, None)
        assert [h[0] for h in waiting.history].count("SUBMITTING") >= 3  # asked every round
    finally:
        wes.relay.restore()
    run = run_analysis.drive(submission_id, world["headers"], timeout=180)
    assert run.state == "COMPLETED"
    assert state(db, submission_id).remote_workflow_id


def test_a_server_down_too_long_before_submitting_ends_in_error(testapp, build_app, db, world,
                                                               wes):
    res = launch(testapp, world)
    submission_id = int(res.json["resource"]["identifier"])
    impatient = build_app(**{"seqcore.wes.unreachable_seconds": 1}).app.registry
    worker = AnalysisWorker(impatient)
    wes.relay.cut()
    try:
        worker.run_once()
        assert state(db, submission_id).state == "PREPARED"
        time.sleep(1.5)
        worker.run_once()
    finally:
        wes.relay.restore()
    sub = state(db, submission_id)
    assert sub.state == "ERROR"
    assert "The WES server did not answer for" in sub.error
    assert "the run was not submitted" in sub.error
    assert sub.remote_workflow_id is None


def test_a_submission_is_submitting_until_its_run_runs(testapp, app_config, db, world, wes,
                                                      run_analysis):
    """Handed over, the submission is SUBMITTING with its run id; it is RUNNING once the
    server says the run runs (cwltool starts at once: the next poll)."""
    res = launch(testapp, world, sleep=3)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    worker.schedule()  # prepares and submits; no poll yet
    submitted = state(db, submission_id)
    assert submitted.state == "SUBMITTING" and submitted.remote_workflow_id
    assert submitted.lease_until is None  # followed by advance(), not redone by recover()
    worker.recover()
    assert state(db, submission_id).state == "SUBMITTING"
    running = run_until_state(worker, db, submission_id, {"RUNNING"}, timeout=120)
    assert running.remote_workflow_id == submitted.remote_workflow_id
    states = [s for s, _ in running.history]
    assert states[-2:] == ["SUBMITTING", "RUNNING"]
    assert run_analysis.drive(submission_id, world["headers"], timeout=180).state == "COMPLETED"


def test_a_queued_run_keeps_its_submission_submitting(testapp, build_app, app_config, db, world,
                                                     toil_backend, tmp_path):
    """The reference server's Toil backend answers QUEUED for a run Toil has not started;
    here the run never starts (the backend refuses CWL v1.3 once the run is queued), so
    the submission stays SUBMITTING, its run id recorded, round after round; cancelling it
    cancels the queued run."""
    pipelines = tmp_path / "pipelines"
    shutil.copytree(app_config.registry.settings["seqcore.pipelines.dir"], pipelines)
    descriptor = pipelines / "pipelines.json"
    descriptor.write_text(descriptor.read_text().replace('"v1.0"', '"v1.3"'))
    res = launch(testapp, world)  # ready: the launch's server runs CWL v1.0
    submission_id = int(res.json["resource"]["identifier"])
    queueing = build_app(**{"seqcore.wes.url": toil_backend.url,
                            "seqcore.pipelines.dir": str(pipelines)})
    worker = AnalysisWorker(queueing.app.registry)
    for _ in range(4):
        worker.run_once()
        time.sleep(0.3)
    sub = state(db, submission_id)
    assert sub.state == "SUBMITTING" and sub.remote_workflow_id, sub.error
    assert httpx.get(f"{toil_backend.url}/runs/{sub.remote_workflow_id}/status").json() == {
        "run_id": sub.remote_workflow_id, "state": "QUEUED"}
    assert "RUNNING" not in [s for s, _ in sub.history]
    queueing.post(f"/api/analysisSubmissions/{submission_id}/cancel", headers=world["headers"])
    sub = state(db, submission_id)
    assert (sub.state, sub.error) == (
        "ERROR", f"Cancelled by {world['owner'].username} while SUBMITTING.")
    log = (toil_backend.workdir / "server.log").read_text()
    assert f"POST /ga4gh/wes/v1/runs/{sub.remote_workflow_id}/cancel HTTP/1.1\" 200" in log


@pytest.mark.parametrize(("document", "expected"), [
    ({"run_id": "r1", "state": "QUEUED"}, "queued"),
    ({"run_id": "r1", "state": "INITIALIZING"}, "queued"),
    ({"run_id": "r1", "state": "RUNNING"}, "running"),
    ({"run_id": "r1", "state": "PAUSED"}, "running"),
    ({"run_id": "r1", "state": "COMPLETE"}, None),
    ({"run_id": "r1", "state": "EXECUTOR_ERROR"}, None),
    ({"run_id": "r1", "state": "CANCELED"}, None),
])
def test_run_states_as_the_workers_statuses(document, expected):
    """The reference server's status documents (``{"run_id", "state"}``, as its cwltool and
    Toil backends answer them) as the worker's statuses; ended states read the run log."""
    from seqcore_wes.executor import job_status

    status = job_status(document["state"])
    assert (status.state if status else None) == expected


def test_a_restarted_worker_follows_the_submitted_run(testapp, app_config, db, world, wes):
    res = launch(testapp, world, sleep=2)
    submission_id = int(res.json["resource"]["identifier"])
    first = AnalysisWorker(app_config.registry, name="first")
    run_id = run_until_state(first, db, submission_id, {"RUNNING"},
                             timeout=120).remote_workflow_id
    del first  # the worker stops; a new one (another process, after a restart) takes over
    second = AnalysisWorker(app_config.registry, name="second")
    sub = run_until_state(second, db, submission_id, {"COMPLETED", "ERROR"}, timeout=180)
    assert sub.state == "COMPLETED", sub.error
    assert sub.remote_workflow_id == run_id  # followed, not submitted again
    runs = httpx.get(f"{wes.server.url}/runs").json()["workflows"]
    assert sum(1 for r in runs if r["run_id"] == run_id) == 1


def test_a_killed_worker_process_is_followed_by_the_next_one(testapp, app_config, db, world,
                                                             wes, database_url, tmp_path):
    """Two real ``seqcore worker`` processes: the first submits the run and is killed
    (SIGKILL, no clean-up); the next one follows the same WES run to COMPLETED."""
    settings = app_config.registry.settings
    env = {**os.environ, "SEQCORE_SQLALCHEMY_URL": database_url,
           "SEQCORE_STORAGE_PATH": settings["seqcore.storage.path"],
           "SEQCORE_ANALYSIS_WORK_PATH": settings["seqcore.analysis.work_path"],
           "SEQCORE_WES_URL": wes.url, "SEQCORE_PIPELINES_DIR": settings["seqcore.pipelines.dir"],
           "SEQCORE_WES_TIMEOUT_SECONDS": "30", "SEQCORE_PLUGINS_ENABLED": "wes,sequencefiles",
           "SEQCORE_SESSION_SECRET": settings["seqcore.session.secret"]}
    ini = tmp_path / "worker.ini"  # the settings come from the environment
    ini.write_text("[app:main]\nuse = egg:seqcore-server\n")
    command = [str(Path(sys.executable).with_name("seqcore")), "-c", str(ini), "worker"]
    res = launch(testapp, world, sleep=3)
    submission_id = int(res.json["resource"]["identifier"])
    log = (tmp_path / "first-worker.log").open("w")
    first = subprocess.Popen([*command, "--interval", "0.2"], env=env, stdout=log,
                             stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while state(db, submission_id).state != "RUNNING":
            assert time.monotonic() < deadline, "the first worker never ran it"
            assert first.poll() is None, (tmp_path / "first-worker.log").read_text()
            time.sleep(0.2)
    finally:
        first.kill()
        first.wait()
        log.close()
    killed = state(db, submission_id)
    assert killed.state == "RUNNING"  # the run goes on without a worker
    run_id = killed.remote_workflow_id
    done = subprocess.run([*command, "--once"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    sub = state(db, submission_id)
    assert sub.state == "COMPLETED", sub.error
    assert sub.remote_workflow_id == run_id


GRAPHQL_CANCEL = """
mutation($input: CancelAnalysisInput!) {
  cancelAnalysis(input: $input) { submission { id state error } errors { message path } }
}"""


def cancelled(db, wes, world, submission_id, run_id, worker):
    """What a cancel leaves: the cancel request on the wire, the submission in ERROR with
    the message, and a worker that neither follows the run nor collects its outputs."""
    deadline = time.monotonic() + 30
    wire = f"POST /ga4gh/wes/v1/runs/{run_id}/cancel".encode()
    while wire not in bytes(wes.relay.requests) and time.monotonic() < deadline:
        time.sleep(0.1)  # the executor is called once the cancel is committed
    assert wire in bytes(wes.relay.requests)
    log = (wes.server.workdir / "server.log").read_text()
    assert f"POST /ga4gh/wes/v1/runs/{run_id}/cancel HTTP/1.1\" 200" in log
    del wes.relay.requests[:]
    for _ in range(3):
        worker.run_once()
        time.sleep(0.3)
    sub = state(db, submission_id)
    assert (sub.state, sub.error, list(sub.outputs)) == (
        "ERROR", f"Cancelled by {world['owner'].username} while RUNNING.", [])
    assert f"/runs/{run_id}".encode() not in bytes(wes.relay.requests)  # no longer followed
    return sub


def test_rest_cancel_cancels_the_wes_run(world, testapp, app_config, db, wes):
    res = launch(testapp, world, sleep=5)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    run_id = run_until_state(worker, db, submission_id, {"RUNNING"},
                             timeout=120).remote_workflow_id
    del wes.relay.requests[:]
    res = testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel",
                       headers=world["headers"])
    assert res.json["resource"]["analysisState"] == "ERROR"
    cancelled(db, wes, world, submission_id, run_id, worker)
    testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel",
                 headers=world["headers"], status=409)


def test_graphql_cancel_cancels_the_wes_run(world, testapp, graphql, factories, app_config, db,
                                            wes):
    res = launch(testapp, world, sleep=5)
    submission_id = int(res.json["resource"]["identifier"])
    worker = AnalysisWorker(app_config.registry)
    run_id = run_until_state(worker, db, submission_id, {"RUNNING"},
                             timeout=120).remote_workflow_id
    gid = f"gid://seqcore/AnalysisSubmission/{submission_id}"
    payload = graphql.as_user(factories.user())(GRAPHQL_CANCEL, {"input": {"id": gid}})[
        "data"]["cancelAnalysis"]
    assert payload["errors"] == [{"message": "Analysis submission not found by provided ID",
                                  "path": ["id"]}]
    assert state(db, submission_id).state == "RUNNING"
    del wes.relay.requests[:]
    payload = graphql.as_user(world["owner"])(GRAPHQL_CANCEL, {"input": {"id": gid}})[
        "data"]["cancelAnalysis"]
    assert payload == {"errors": [], "submission": {
        "id": gid, "state": "ERROR",
        "error": f"Cancelled by {world['owner'].username} while RUNNING."}}
    cancelled(db, wes, world, submission_id, run_id, worker)


def test_a_completed_wes_submission_cannot_be_cancelled(world, testapp, db, run_analysis, wes):
    res = launch(testapp, world)
    submission_id = int(res.json["resource"]["identifier"])
    assert run_analysis.drive(submission_id, world["headers"], timeout=180).state == "COMPLETED"
    del wes.relay.requests[:]
    res = testapp.post(f"/api/analysisSubmissions/{submission_id}/cancel",
                       headers=world["headers"], status=409)
    assert "is COMPLETED" in res.json["message"]
    assert b"/cancel" not in bytes(wes.relay.requests)
    assert state(db, submission_id).state == "COMPLETED"
