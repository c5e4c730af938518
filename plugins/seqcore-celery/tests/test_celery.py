"""The same analysis under the Celery executor, with a real Celery worker process, against the
machine's Redis and RabbitMQ."""

import os
import subprocess
import sys
import time
import uuid

import pytest

from seqcore.plugin import AnalysisSubmission
from seqcore.testing.server import start_worker
from seqcore.testing.uploads import fastq
from seqcore.testing.workers import AnalysisWorker

BROKERS = {"redis": "redis://127.0.0.1:6379/0", "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//"}


@pytest.fixture(params=sorted(BROKERS))
def broker(request):
    return BROKERS[request.param]


@pytest.fixture
def celery_worker(broker, tmp_path):
    queue = f"seqcore-test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "SEQCORE_CELERY_BROKER_URL": broker,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    log = open(tmp_path / "celery.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "seqcore_celery.worker", "worker", "--pool",
         "solo", "--concurrency", "1", "-Q", queue, "--without-gossip", "--without-mingle",
         "--without-heartbeat", "--loglevel", "INFO"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    yield queue
    process.terminate()
    process.wait(timeout=30)
    log.close()


def test_analysis_under_celery(build_app, factories, broker, celery_worker, db):
    app = build_app(None, **{"seqcore.analysis.executor": "celery",
                             "seqcore.celery.broker_url": broker,
                             "seqcore.celery.queue": celery_worker})
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="celery-sample")
    pair = factories.sequencing_object(sample, "pairs", files=[
        ("c_R1.fastq", fastq(reads=12, length=40, seed=1)),
        ("c_R2.fastq", fastq(reads=12, length=40, seed=2))])
    headers = factories.headers(owner)
    body = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                         {"sequencingObjects": [pair.id], "writeResultsToSamples": True},
                         headers=headers, status=201).json["resource"]
    start = time.monotonic()
    AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
    submission = db.get(AnalysisSubmission, int(body["identifier"]))
    assert submission.state == "COMPLETED", submission.error
    assert submission.executor == "celery"
    assert submission.remote_workflow_id.startswith("celery:")
    assert time.monotonic() - start < 120
    url = body["links"][0]["href"]
    analysis = app.get(url + "/analysis", headers=headers).json["resource"]
    counts = next(link["href"] for link in analysis["links"] if link["rel"] == "outputFile/counts")
    text = app.get(counts, headers={**headers, "Accept": "text/plain"}).text
    assert "celery-sample\tc_R1.fastq\t12\t480" in text
    metadata = app.get(f"/api/samples/{sample.id}/metadata", headers=headers).json
    assert metadata["resource"]["metadata"]["read count"]["value"] == "24"


def test_pipeline_error_under_celery(build_app, factories, broker, celery_worker, db):
    app = build_app(None, **{"seqcore.analysis.executor": "celery",
                             "seqcore.celery.broker_url": broker,
                             "seqcore.celery.queue": celery_worker})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    body = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                         {"sequencingObjects": [pair.id], "parameters": {"fail": True}},
                         headers=factories.headers(owner), status=201).json["resource"]
    AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
    submission = db.get(AnalysisSubmission, int(body["identifier"]))
    assert (submission.state, submission.error) == ("ERROR", "asked to fail")


def _wait(db, submission_id, states, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        db.expire_all()
        submission = db.get(AnalysisSubmission, submission_id)
        if submission.state in states:
            return submission
        time.sleep(0.2)
    raise AssertionError(f"submission stuck in {submission.state}")


def test_seqcore_worker_killed_while_celery_runs_the_job(testapp, app_config, factories,
                                                         broker, celery_worker, database_url,
                                                         tmp_path, db):
    import signal

    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    body = testapp.post_json("/api/analysisSubmissions/analysisType/readcount",
                             {"sequencingObjects": [pair.id], "parameters": {"sleep": 3}},
                             headers=factories.headers(owner), status=201).json["resource"]
    submission_id = int(body["identifier"])
    options = {"seqcore.analysis.executor": "celery", "seqcore.celery.broker_url": broker,
               "seqcore.celery.queue": celery_worker,
               "seqcore.plugins.enabled": "sequencefiles celery",
               "seqcore.plugins.modules": "tests.plugins.readcount",
               "seqcore.processing.lease_seconds": "2"}
    settings = {**app_config.get_settings(), "sqlalchemy.url": database_url}
    first = start_worker(tmp_path, settings, **options)
    try:
        running = _wait(db, submission_id, {"RUNNING"})
        assert running.remote_workflow_id.startswith("celery:")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    second = start_worker(tmp_path, settings, **options)
    try:
        done = _wait(db, submission_id, {"COMPLETED", "ERROR"})
    finally:
        second.terminate()
        second.wait(timeout=30)
    assert done.state == "COMPLETED", done.error
    assert [state for state, _ in done.history].count("RUNNING") == 1


def test_the_launch_request_id_reaches_the_celery_worker_log(build_app, factories, broker,
                                                            celery_worker, db, tmp_path):
    app = build_app(None, **{"seqcore.analysis.executor": "celery",
                             "seqcore.celery.broker_url": broker,
                             "seqcore.celery.queue": celery_worker})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    body = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                         {"sequencingObjects": [pair.id]},
                         headers={**factories.headers(owner),
                                  "X-Request-ID": "celery-launch-0003"},
                         status=201).json["resource"]
    AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
    submission = db.get(AnalysisSubmission, int(body["identifier"]))
    assert submission.state == "COMPLETED", submission.error
    assert submission.request_id == "celery-launch-0003"
    deadline = time.monotonic() + 10
    while "request_id=celery-launch-0003" not in (tmp_path / "celery.log").read_text():
        assert time.monotonic() < deadline, (tmp_path / "celery.log").read_text()[-3000:]
        time.sleep(0.2)
    log = (tmp_path / "celery.log").read_text()
    assert f"for submission {submission.id} request_id=celery-launch-0003" in log


def test_ready_names_the_broker_when_it_is_down(build_app, broker):
    up = build_app(None, **{"seqcore.analysis.executor": "celery",
                            "seqcore.celery.broker_url": broker})
    assert up.get("/-/ready", status=200).json["checks"]["broker"] == "ok"
    down_url = broker.replace(":6379/", ":1/").replace(":5672/", ":1/")
    down = build_app(None, **{"seqcore.analysis.executor": "celery",
                              "seqcore.celery.broker_url": down_url})
    res = down.get("/-/ready", status=503)
    assert res.json["failed"] == ["broker"]
    assert res.json["checks"]["broker"] == "failed"
    assert ":1/" not in res.text and "guest" not in res.text
    # A deployment whose analyses do not go to Celery does not depend on its broker.
    local = build_app(None, **{"seqcore.analysis.executor": "local",
                               "seqcore.celery.broker_url": down_url})
    assert local.get("/-/ready", status=200).json["checks"]["broker"] == "ok"


def test_the_launch_trace_goes_through_the_celery_worker(build_app, factories, broker,
                                                        celery_worker, db):
    """The hand-over is a span of the launch's trace, and the job, in the Celery worker's
    process, continues it (told where to export by job.json)."""
    from seqcore.testing.otlp import OtlpReceiver, stop_tracing

    with OtlpReceiver() as receiver:
        try:
            app = build_app(None, **{"seqcore.analysis.executor": "celery",
                                     "seqcore.celery.broker_url": broker,
                                     "seqcore.celery.queue": celery_worker,
                                     "seqcore.traces.otlp_endpoint": receiver.url})
            owner = factories.user()
            pair = factories.sequencing_object(factories.sample(factories.project(owner=owner)),
                                               "pairs")
            body = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                                 {"sequencingObjects": [pair.id]},
                                 headers={**factories.headers(owner),
                                          "X-Request-ID": "celery-trace-0001"},
                                 status=201).json["resource"]
            AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
        finally:
            stop_tracing()
        spans = receiver.wait_for(lambda spans: [s for s in spans
                                                 if s.name == "analysis.job"] and spans)
    launch = next(s for s in spans if s.kind == "SPAN_KIND_SERVER"
                  and s.attributes.get("seqcore.request_id") == "celery-trace-0001")
    start = next(s for s in spans if s.name == "analysis.start")
    send = next(s for s in spans if s.name == "celery.send seqcore.run_job")
    job = next(s for s in spans if s.name == "analysis.job")
    assert start.parent_id == launch.span_id and send.parent_id == start.span_id
    assert job.trace_id == launch.trace_id and job.parent_id == start.span_id
    assert job.attributes["seqcore.analysis_submission.id"] == int(body["identifier"])
    assert job.attributes["seqcore.request_id"] == "celery-trace-0001"
    assert send.attributes["messaging.destination.name"] == celery_worker
