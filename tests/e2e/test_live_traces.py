"""Traces of a live server exported over OTLP/HTTP to a receiver on loopback: one trace from
an upload's request to the end of its processing and QC (in the server's worker), and one
from an analysis launch to the end of the analysis (the job runs in a process of its own);
nothing when traces are off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

from seqcore.testing import database
from seqcore.testing.otlp import OtlpReceiver
from seqcore.testing.server import SEQCORE, live_server
from seqcore.testing.uploads import multipart

pytestmark = pytest.mark.slow

PASSWORD = "Live-traces-pass1!"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
READS = b"".join(b"@r%d\nACGTACGTAC\n+\nIIIIIIIIII\n" % i for i in range(50))


@pytest.fixture
def receiver():
    with OtlpReceiver() as running:
        yield running


def serve(tmp_path, monkeypatch, server="waitress", **settings):
    """waitress with the embedded worker, or gunicorn with a ``seqcore worker`` process of
    its own (``srv.worker``): there the upload's trace crosses processes through the
    database."""
    # The server and the analysis job it starts import the test plugins; their span
    # batches leave every 100 ms instead of every 5 s.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    url = database.test_database_url(tmp_path, "live_traces")
    srv = live_server(tmp_path / "server", **{
        "sqlalchemy.url": url, "seqcore.session.secret": "live-traces-test",
        "seqcore.plugins.enabled": "sequencefiles",
        "seqcore.plugins.modules": "tests.plugins.readcount",
        "seqcore.worker.embedded": str(server == "waitress").lower(), **settings})
    srv.create_user("admin", PASSWORD, "ROLE_ADMIN")
    secret = srv.create_client("client")
    srv.start(server, workers=1)
    srv.worker = None
    if server != "waitress":
        log = open(srv.root / "worker.log", "w")  # noqa: SIM115
        srv.worker = subprocess.Popen([*SEQCORE, "-c", str(srv.ini), "worker", "--interval",
                                       "0.2"], stdout=log, stderr=subprocess.STDOUT)
    srv.admin = srv.token("client", secret, "admin", PASSWORD)
    return srv


def stop(srv):
    if srv.worker is not None:
        srv.worker.terminate()
        srv.worker.wait(timeout=60)
    srv.stop()


def log_entries(srv):
    lines = [*(srv.root / "server.log").read_text().splitlines(),
             *((srv.root / "worker.log").read_text().splitlines() if srv.worker else [])]
    return [json.loads(line) for line in lines if line.startswith("{")]


def post(srv, path, body, content_type, headers):
    req = urllib.request.Request(srv.url + path, data=body, method="POST", headers={
        "Authorization": f"Bearer {srv.admin}", "Content-Type": content_type,
        "Accept": "application/json", **headers})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read()), dict(res.headers)


def upload_pair(srv, headers):
    _, body, _ = srv.request("POST", "/api/projects", srv.admin, {"name": "Traced"})
    project = json.loads(body)["resource"]["identifier"]
    _, body, _ = srv.request("POST", f"/api/projects/{project}/samples", srv.admin,
                             {"sampleName": "traced"})
    sample = json.loads(body)["resource"]["identifier"]
    body, content_type = multipart([
        ("file1", "t_R1.fastq", READS, None), ("file2", "t_R2.fastq", READS, None),
        ("parameters1", None, b"{}", "application/json"),
        ("parameters2", None, b"{}", "application/json")])
    answer, _ = post(srv, f"/api/samples/{sample}/pairs", body, content_type, headers)
    return int(answer["resource"]["identifier"])


def ended(spans, *names):
    """``spans`` once spans of each of ``names`` are among them."""
    return spans if all(named(spans, name) for name in names) else None


def named(spans, name):
    return [s for s in spans if s.name == name]


def only(spans, name):
    found = named(spans, name)
    assert len(found) == 1, [(s.name, s.parent_id) for s in spans]
    return found[0]


def descends(spans, span, ancestor):
    """Whether ``span`` is ``ancestor`` or below it, following parent ids."""
    by_id = {s.span_id: s for s in spans}
    while span is not None:
        if span.span_id == ancestor.span_id:
            return True
        span = by_id.get(span.parent_id)
    return False


@pytest.mark.parametrize("server", ["waitress", "gunicorn"])
def test_one_trace_from_the_upload_to_its_qc_and_from_a_launch_to_its_end(
        tmp_path, monkeypatch, receiver, server):
    srv = serve(tmp_path, monkeypatch, server, **{"seqcore.traces.otlp_endpoint": receiver.url,
                                          "seqcore.traces.service_name": "seqcore-test",
                                          "seqcore.log.format": "json"})
    try:
        # A client that traces: its traceparent is continued.
        pair = upload_pair(srv, {"X-Request-ID": "traced-upload-1",
                                 "traceparent": f"00-{TRACE_ID}-{CLIENT_SPAN}-01"})
        spans = receiver.wait_for(lambda _: ended(receiver.trace(TRACE_ID), "qc", "processing",
                                                  "POST /api/samples/{sid}/pairs"))
        request = only(spans, "POST /api/samples/{sid}/pairs")
        assert request.parent_id == CLIENT_SPAN and request.kind == "SPAN_KIND_SERVER"
        assert request.attributes["seqcore.request_id"] == "traced-upload-1"
        assert request.attributes["http.response.status_code"] == 201
        assert request.service == "seqcore-test"
        sql = [s for s in spans if s.attributes.get("db.query.text")]
        assert any(s.attributes["db.query.text"].lstrip().upper().startswith("INSERT")
                   and descends(spans, s, request) for s in sql)
        # The worker took the upload up from the database and continued the request's trace.
        processing = only(spans, "processing")
        assert processing.parent_id == request.span_id
        assert processing.attributes["seqcore.request_id"] == "traced-upload-1"
        assert processing.attributes["seqcore.sequencing_object.id"] == pair
        assert processing.attributes["seqcore.outcome"] == "finished"
        qcs = named(spans, "qc")
        assert len(qcs) == 2 and all(q.parent_id == processing.span_id for q in qcs)
        assert any(descends(spans, s, processing) and s is not processing for s in sql)
        assert any(s.name.startswith("storage.") and descends(spans, s, processing)
                   for s in spans)

        # A launch: no traceparent, so a trace of its own, followed into the job's process.
        answer, _ = post(srv, "/api/analysisSubmissions/analysisType/readcount",
                               json.dumps({"sequencingObjects": [pair]}).encode(),
                               "application/json", {"X-Request-ID": "traced-launch-1"})
        submission = int(answer["resource"]["identifier"])
        launched = receiver.wait_for(lambda spans: next(
            (s for s in spans if s.attributes.get("seqcore.request_id") == "traced-launch-1"
             and s.kind == "SPAN_KIND_SERVER"), None))
        spans = receiver.wait_for(lambda _: ended(receiver.trace(launched.trace_id),
                                                  "analysis.job", "analysis.finish"),
                                  timeout=120)
        assert launched.parent_id == "" and launched.name.startswith("POST /api/analysis")
        start = only(spans, "analysis.start")
        job = only(spans, "analysis.job")
        finish = only(spans, "analysis.finish")
        assert start.parent_id == launched.span_id == finish.parent_id
        assert job.parent_id == start.span_id
        assert job.attributes["seqcore.analysis_submission.id"] == submission
        assert job.attributes["seqcore.request_id"] == "traced-launch-1"
        assert {s.attributes.get("seqcore.request_id") for s in (start, job, finish)} == {
            "traced-launch-1"}
    finally:
        stop(srv)
    # Log lines name the trace and span they were written in, beside the request id.
    entries = log_entries(srv)
    worker = [e for e in entries if e["logger"] == "seqcore.qc.processing"
              and e["request_id"] == "traced-upload-1"]
    assert worker and {e["trace_id"] for e in worker} == {TRACE_ID}
    assert {e["span_id"] for e in worker} == {processing.span_id}
    access = next(e for e in entries if e["logger"] == "seqcore.access"
                  and e["request_id"] == "traced-upload-1")
    assert (access["trace_id"], access["span_id"]) == (TRACE_ID, request.span_id)


def test_the_standard_variable_turns_traces_on(tmp_path, monkeypatch, receiver):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    srv = serve(tmp_path, monkeypatch)
    try:
        srv.get_json("/api/projects", srv.admin)
        request = receiver.wait_for(lambda spans: next(
            (s for s in spans if s.name == "GET /api/projects"), None))
        assert request.service == "seqcore"
    finally:
        stop(srv)


def test_nothing_is_exported_when_off(tmp_path, monkeypatch, receiver):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    srv = serve(tmp_path, monkeypatch)
    try:
        upload_pair(srv, {"traceparent": f"00-{TRACE_ID}-{CLIENT_SPAN}-01"})
        _, _, headers = srv.request("GET", "/api/projects", srv.admin)
    finally:
        stop(srv)
    assert "traceparent" not in {k.lower() for k in headers}
    assert receiver.requests == 0 and receiver.spans == []
