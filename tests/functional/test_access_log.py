"""The access log, the request id, and the request id in the workers' logs."""

import json
import logging
import re
from pathlib import Path

import pytest

from seqcore.analysis.worker import AnalysisWorker
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.sequencing import SequencingObject
from seqcore.observability.logconfig import JsonFormatter
from seqcore.qc.processing import Worker

HEX32 = re.compile(r"[0-9a-f]{32}")


def access_records(caplog):
    return [r for r in caplog.records if r.name == "seqcore.access"]


def test_one_access_line_per_request_with_every_field(testapp, factories, caplog):
    caplog.set_level(logging.INFO, logger="seqcore.access")
    user = factories.user()
    headers = factories.headers(user)
    res = testapp.get("/api/projects", headers=headers, status=200)
    rid = res.headers["X-Request-ID"]
    assert HEX32.fullmatch(rid)
    [record] = access_records(caplog)
    assert record.method == "GET"
    assert record.path == "/api/projects"
    assert record.status == 200
    assert record.bytes == len(res.body)
    assert record.duration_ms >= 0
    assert record.user_id == user.id
    assert record.request_id == rid
    line = record.getMessage()
    assert line.startswith(f"GET /api/projects 200 {len(res.body)}B ")
    assert line.endswith(f"user={user.id} request_id={rid}")


def test_refused_and_anonymous_requests_are_logged_too(testapp, caplog):
    caplog.set_level(logging.INFO, logger="seqcore.access")
    testapp.get("/api/projects", status=401)
    testapp.get("/-/health", status=200)
    testapp.get("/api/%ff%fe", status="*")
    statuses = [(r.path, r.status, r.user_id) for r in access_records(caplog)]
    assert statuses[0] == ("/api/projects", 401, None)
    assert statuses[1] == ("/-/health", 200, None)
    assert len(statuses) == 3 and statuses[2][0] == "/api/%FF%FE" and statuses[2][1] >= 400


def test_the_access_line_can_be_turned_off(build_app, caplog):
    caplog.set_level(logging.INFO, logger="seqcore.access")
    app = build_app(None, **{"seqcore.log.access": "false"})
    res = app.get("/-/health", status=200)
    assert res.headers["X-Request-ID"] and not access_records(caplog)


@pytest.mark.parametrize("sent,kept", [
    ("abc-123_DEF.4:5", True),
    ("a" * 64, True),
    ("a" * 65, False),
    ("has space", False),
    ("line\\nbreak", False),
    ("-starts-with-dash", False),
    ("quote\"d", False),
    ("", False),
])
def test_request_id_accepted_only_when_safe(testapp, caplog, sent, kept):
    caplog.set_level(logging.INFO, logger="seqcore.access")
    res = testapp.get("/-/health", headers={"X-Request-ID": sent})
    rid = res.headers["X-Request-ID"]
    if kept:
        assert rid == sent
    else:
        assert rid != sent and HEX32.fullmatch(rid)
    assert access_records(caplog)[-1].request_id == rid


def test_credentials_in_the_query_are_not_logged(testapp, caplog):
    caplog.set_level(logging.INFO, logger="seqcore.access")
    secret = "tok-Secret-Value-1234567890"
    testapp.get(f"/api/projects?access_token={secret}&page=2&client_secret={secret}x"
                f"&password={secret}y&sort=name", status=401)
    [record] = access_records(caplog)
    assert secret not in record.getMessage()
    assert record.path == ("/api/projects?access_token=***&page=2&client_secret=***"
                           "&password=***&sort=name")


def test_json_lines_carry_the_access_fields():
    record = logging.LogRecord("seqcore.access", logging.INFO, __file__, 1, "GET / 200", (),
                               None)
    record.request_id = "rid-1"
    record.method, record.path, record.status = "GET", "/", 200
    record.bytes, record.duration_ms, record.user_id = 12, 1.5, 7
    entry = json.loads(JsonFormatter().format(record))
    assert entry["logger"] == "seqcore.access" and entry["level"] == "INFO"
    assert entry["message"] == "GET / 200"
    assert {k: entry[k] for k in ("request_id", "method", "path", "status", "bytes",
                                  "duration_ms", "user_id")} == {
        "request_id": "rid-1", "method": "GET", "path": "/", "status": 200, "bytes": 12,
        "duration_ms": 1.5, "user_id": 7}


def test_the_upload_request_id_reaches_the_processing_worker(testapp, app_config, factories,
                                                            upload_reads, db, caplog):
    caplog.set_level(logging.INFO)
    user = factories.user()
    sample = factories.sample(factories.project(owner=user))
    headers = {**factories.headers(user), "X-Request-ID": "upload-req-0001"}
    uploaded = upload_reads(sample, headers, process=False)
    assert db.get(SequencingObject, uploaded.id).request_id == "upload-req-0001"
    caplog.clear()
    Worker(app_config.registry).run_until_idle()
    processing = [r for r in caplog.records if r.name == "seqcore.qc.processing"
                  and f"object {uploaded.id}" in r.getMessage()]
    assert processing, "the worker logged nothing about the object"
    assert {r.request_id for r in processing} == {"upload-req-0001"}
    assert all(r.getMessage().endswith("request_id=upload-req-0001") for r in processing)
    # Requests without an id of their own still leave one behind.
    other_sample = factories.sample(factories.project(owner=user))
    other = upload_reads(other_sample, factories.headers(user), process=False)
    db.expire_all()
    assert HEX32.fullmatch(db.get(SequencingObject, other.id).request_id)


def test_the_launch_request_id_reaches_the_analysis_worker_and_the_job(
        testapp, app_config, factories, upload_reads, run_analysis, db, caplog):
    caplog.set_level(logging.INFO)
    user = factories.user()
    sample = factories.sample(factories.project(owner=user))
    headers = factories.headers(user)
    uploaded = upload_reads(sample, headers)
    res = run_analysis.launch("readcount", [uploaded], {**headers,
                                                        "X-Request-ID": "launch-req-0002"})
    submission_id = int(res.json["resource"]["identifier"])
    caplog.clear()
    run = run_analysis.drive(submission_id, headers)
    assert run.state == "COMPLETED"
    submission = db.get(AnalysisSubmission, submission_id)
    assert submission.request_id == "launch-req-0002"
    worker_lines = [r for r in caplog.records if r.name == "seqcore.analysis.worker"
                    and f"submission {submission_id}" in r.getMessage()]
    assert worker_lines and {r.request_id for r in worker_lines} == {"launch-req-0002"}
    # The job ran in a child process (the local executor): its own log names the request.
    work_dir = Path(submission.work_dir)
    assert json.loads((work_dir / "job.json").read_text())["request_id"] == "launch-req-0002"
    job_log = (work_dir / "pipeline.log").read_text()
    assert "[launch-req-0002] starting" in job_log
    assert "request_id=launch-req-0002" in job_log


def test_worker_heartbeat_and_ids_do_not_leak_between_jobs(app_config, factories, db, caplog):
    """Objects uploaded by different requests are processed under their own ids."""
    from seqcore.observability import requestid

    caplog.set_level(logging.INFO, logger="seqcore.qc.processing")
    user = factories.user()
    sample = factories.sample(factories.project(owner=user))
    with requestid.bound("first-request"):
        first = factories.sequencing_object(sample, state="UNPROCESSED")
    with requestid.bound("second-request"):
        second = factories.sequencing_object(sample, state="UNPROCESSED")
    assert requestid.current() is None
    Worker(app_config.registry).run_until_idle()
    seen = {}
    for record in caplog.records:
        for obj in (first, second):
            if f"object {obj.id} " in record.getMessage() + " ":
                seen.setdefault(obj.id, set()).add(record.request_id)
    assert seen == {first.id: {"first-request"}, second.id: {"second-request"}}
    assert AnalysisWorker  # the analysis side is covered by the test above


def test_capabilities_in_a_path_are_masked(testapp, graphql, factories, caplog):
    """A direct upload's key and a line-list download's token are credentials: the access
    line keeps their first four characters only (issue 33 point 10)."""
    from seqcore.testing.uploads import CREATE_DIRECT_UPLOAD, fastq, md5_base64

    caplog.set_level(logging.INFO, logger="seqcore.access")
    owner = factories.user()
    data = fastq(seed=4)
    body = graphql.as_user(owner)(CREATE_DIRECT_UPLOAD, {
        "filename": "a.fastq", "contentType": "application/octet-stream",
        "checksum": md5_base64(data), "byteSize": len(data)})
    upload = body["data"]["createDirectUpload"]["directUpload"]
    key = upload["url"].rsplit("/", 1)[1]
    testapp.put(upload["url"], data, headers=json.loads(upload["headers"]), status=204)
    token = "tok" + "x" * 40
    testapp.get(f"/downloads/linelist/{token}", expect_errors=True)
    lines = [r.getMessage() for r in access_records(caplog)]
    assert not any(key in line for line in lines), lines
    assert not any(token in line for line in lines), lines
    assert any(f"/api/directUploads/{key[:4]}*** 204" in line for line in lines), lines
    assert any(f"/downloads/linelist/{token[:4]}***" in line for line in lines), lines


def uploaded_reads(testapp, factories, reads):
    """A sequence file's download URL (path), the headers that download its bytes, and
    the bytes."""
    from seqcore.testing.uploads import multipart

    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    headers = factories.headers(owner)
    body, content_type = multipart([("file", "reads.fastq", reads, None)])
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                       headers={**headers, "Content-Type": content_type}, status=201)
    path = res.headers["Location"].replace("http://localhost", "")
    return path, {**headers, "Accept": "application/fastq"}


def test_downloads_are_logged_with_the_status_and_bytes_sent(testapp, factories, caplog):
    """webob answers Range, conditional requests and HEAD after every tween: the line has
    what went out (issue 33 point 20)."""
    from seqcore.testing.uploads import fastq

    reads = fastq(seed=20)
    path, headers = uploaded_reads(testapp, factories, reads)
    caplog.set_level(logging.INFO, logger="seqcore.access")
    caplog.clear()
    whole = testapp.get(path, headers=headers, status=200)
    assert whole.body == reads
    part = testapp.get(path, headers={**headers, "Range": "bytes=10-109"}, status=206)
    assert part.body == reads[10:110]
    tail = testapp.get(path, headers={**headers, "Range": "bytes=-7"}, status=206)
    assert tail.body == reads[-7:]
    beyond = testapp.get(path, headers={**headers, "Range": f"bytes={len(reads)}-"},
                         status=416)
    assert beyond.headers["Content-Range"] == f"bytes */{len(reads)}"
    head = testapp.head(path, headers=headers, status=200)
    assert head.body == b"" and head.headers["Content-Length"] == str(len(reads))
    unchanged = testapp.get(path, headers={
        **headers, "If-Modified-Since": whole.headers["Last-Modified"]}, status=304)
    assert unchanged.body == b""

    records = access_records(caplog)
    assert [(r.method, r.path, r.status, r.bytes) for r in records] == [
        ("GET", path, 200, len(reads)),
        ("GET", path, 206, 100),
        ("GET", path, 206, 7),
        ("GET", path, 416, len(beyond.body)),
        ("HEAD", path, 200, 0),
        ("GET", path, 304, 0),
    ]
    # Every field of the line is kept, the request id of each answer included.
    for record, res in zip(records, (whole, part, tail, beyond, head, unchanged), strict=True):
        assert record.request_id == res.headers["X-Request-ID"]
        assert record.user_id is not None and record.duration_ms >= 0
    assert records[1].getMessage().startswith(f"GET {path} 206 100B ")
    assert records[4].getMessage().startswith(f"HEAD {path} 200 0B ")


def test_a_client_that_goes_away_is_logged_with_the_bytes_sent(testapp, factories, caplog):
    """The server stops asking for the body after a failed write and closes it: the line
    counts the chunks it had sent (a file goes out in blocks of 256 KiB)."""
    from webob import Request

    from seqcore.testing.uploads import fastq

    reads = fastq(reads=2400, seed=21)
    assert 256 * 1024 < len(reads) < 512 * 1024
    path, headers = uploaded_reads(testapp, factories, reads)
    caplog.set_level(logging.INFO, logger="seqcore.access")
    caplog.clear()
    environ = Request.blank(path, headers=headers, environ={"HTTP_HOST": "localhost"}).environ
    started = []
    body = testapp.app(environ, lambda status, headers, exc_info=None: started.append(status))
    chunks = iter(body)
    first = next(chunks)  # sent
    next(chunks)  # its write fails: the client has gone
    assert not access_records(caplog), "logged before the server closed the body"
    body.close()
    assert started == ["200 OK"]
    [record] = access_records(caplog)
    assert (record.status, record.bytes) == (200, len(first)) and len(first) < len(reads)


def test_a_file_the_server_sends_itself_is_logged_when_the_server_closes_it(
        testapp, factories, caplog):
    """A whole file goes to the server's wsgi.file_wrapper untouched (gunicorn sends it
    with sendfile); its line comes when the server closes it, with its length."""
    from gunicorn.http.wsgi import FileWrapper
    from webob import Request

    from seqcore.testing.uploads import fastq

    reads = fastq(seed=22)
    path, headers = uploaded_reads(testapp, factories, reads)
    caplog.set_level(logging.INFO, logger="seqcore.access")
    caplog.clear()
    environ = Request.blank(path, headers=headers, environ={
        "HTTP_HOST": "localhost", "wsgi.file_wrapper": FileWrapper}).environ
    body = testapp.app(environ, lambda status, headers, exc_info=None: None)
    assert isinstance(body, FileWrapper)  # so gunicorn still uses sendfile
    assert b"".join(body) == reads and not access_records(caplog)
    body.close()
    assert body.filelike.closed
    [record] = access_records(caplog)
    assert (record.status, record.bytes) == (200, len(reads))
    # A range is cut by webob from the file, so it is counted as it goes out.
    environ = Request.blank(path, headers={**headers, "Range": "bytes=0-9"}, environ={
        "HTTP_HOST": "localhost", "wsgi.file_wrapper": FileWrapper}).environ
    body = testapp.app(environ, lambda status, headers, exc_info=None: None)
    assert b"".join(body) == reads[:10]
    body.close()
    assert [(r.status, r.bytes) for r in access_records(caplog)][1:] == [(206, 10)]
