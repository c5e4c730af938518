"""The same analysis under the Celery executor, with a real Celery worker process, against the
machine's Redis and RabbitMQ."""

import os
import subprocess
import sys
import time
import uuid

import pytest

from seqcore.analysis.worker import AnalysisWorker
from seqcore.models.analysis import AnalysisSubmission
from seqcore.testing.uploads import fastq

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
