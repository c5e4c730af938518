"""Files through a real server on loopback (waitress, as ``seqcore serve`` runs it), on the
test database (SQLite, or PostgreSQL when ``SEQCORE_TEST_DATABASE_URL`` is set):

* a file name built to inject header parameters or lines comes back in one well-formed
  ``Content-Disposition`` and nothing else;
* identical uploads sent at the same moment into one sample are stored once;
* the access log has a download's status and bytes as sent (waitress and gunicorn): the
  whole file (the server's file wrapper), a range, a range beyond the end and ``HEAD``.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.testing.server import live_server
from seqcore.testing.uploads import fastq, multipart
from tests.functional.test_file_names import parse_disposition

pytestmark = pytest.mark.slow


def serving(tmp_path, database_url, how):
    srv = live_server(tmp_path / "server", **{
        "sqlalchemy.url": database_url, "seqcore.session.secret": "live-files-test"})
    srv.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    srv.secret = srv.create_client("client")
    srv.start(how)
    try:
        srv.admin = srv.token("client", srv.secret, "admin", "Admin-pass1!")
        _, _, headers = srv.request("POST", "/api/projects", srv.admin, {"name": "live files"})
        project = headers["Location"].rsplit("/", 1)[-1]
        _, _, headers = srv.request("POST", f"/api/projects/{project}/samples", srv.admin,
                                    {"sampleName": "isolate-1"})
        srv.sample = headers["Location"].rsplit("/", 1)[-1]
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def server(tmp_path, database_url, engine):
    yield from serving(tmp_path, database_url, "waitress")


@pytest.fixture(params=["waitress", "gunicorn"])
def any_server(request, tmp_path, database_url, engine):
    yield from serving(tmp_path, database_url, request.param)


def post(server, path: str, parts) -> tuple[int, dict]:
    body, content_type = multipart(parts)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("POST", path, body, {"Authorization": f"Bearer {server.admin}",
                                          "Content-Type": content_type})
        res = conn.getresponse()
        return res.status, json.loads(res.read())
    finally:
        conn.close()


def raw_get(server, url: str, accept: str) -> tuple[int, list[tuple[str, str]], bytes]:
    """The status, every header line exactly as sent, and the body."""
    path = url.replace(server.url, "")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {server.admin}",
                                           "Accept": accept})
        res = conn.getresponse()
        return res.status, res.getheaders(), res.read()
    finally:
        conn.close()


INJECTIONS = [
    'x.fastq"; filename="evil.sh',
    "x.fastq\nSet-Cookie: stolen=1",
    "x.fastq\rLocation: evil.example",
    "样本\x00".rstrip("\x00") + "_R1.fastq; size=1",
    "y.fastq\"\nX-Injected: 1; filename*=UTF-8''evil.sh",
]


def test_a_file_name_cannot_add_header_lines_or_parameters(server):
    for index, name in enumerate(INJECTIONS):
        reads = fastq(seed=index)
        status, answer = post(server, f"/api/samples/{server.sample}/unpaired",
                              [("file", name, reads, None)])
        assert status == 201, answer
        assert answer["resource"]["fileName"] == name
        href = next(link["href"] for link in answer["resource"]["links"]
                    if link["rel"] == "self")
        status, headers, body = raw_get(server, href, "application/fastq")
        assert status == 200
        assert body == reads
        names = [key.lower() for key, _ in headers]
        assert "set-cookie" not in names and "x-injected" not in names
        assert names.count("content-disposition") == 1
        assert len(names) == len(set(names))
        assert set(names) <= {"server", "date", "content-type", "content-length",
                              "content-disposition", "last-modified", "etag", "accept-ranges",
                              "x-content-type-options", "cache-control", "x-request-id"}, names
        value = dict((k.lower(), v) for k, v in headers)["content-disposition"]
        kind, params = parse_disposition(value)
        assert kind == "attachment"
        assert params[0][0] == "filename" and params[1] == ("filename*", name)
        assert len(params) == 2


@pytest.mark.parametrize("kind", ["unpaired", "pairs"])
def test_identical_uploads_at_the_same_moment_are_stored_once(server, kind, db):
    if kind == "pairs":
        parts = [("file1", "same_R1.fastq", fastq(reads=2000, seed=1), None),
                 ("file2", "same_R2.fastq", fastq(reads=2000, seed=2), None)]
    else:
        parts = [("file", "same_R1.fastq", fastq(reads=4000, seed=1), None)]
    clients = 8
    start = threading.Barrier(clients)
    answers: list[tuple[int, dict]] = []

    def send() -> None:
        start.wait()
        answers.append(post(server, f"/api/samples/{server.sample}/{kind}", parts))

    threads = [threading.Thread(target=send) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [status for status, _ in answers] == [201] * clients, answers
    assert len({answer["resource"]["identifier"] for _, answer in answers}) == 1
    assert db.scalar(select(func.count()).select_from(SequencingObject)) == 1
    assert db.scalar(select(func.count()).select_from(SequenceFile)) == len(parts)
    storage = Path(server.root / "storage")
    stored = [p for p in storage.rglob("*") if p.is_file()]
    assert len(stored) == len(parts), stored
    assert not [p for p in storage.rglob("*") if p.is_dir() and not any(p.iterdir())
                and p.name != "tmp"]


def test_downloads_are_logged_as_sent(any_server):
    """Whole files go out through the server's file wrapper (waitress's file buffer,
    gunicorn's sendfile), ranges and HEAD through seqcore's count."""
    server = any_server
    reads = fastq(reads=3000, seed=30)
    status, answer = post(server, f"/api/samples/{server.sample}/unpaired",
                          [("file", "logged.fastq", reads, None)])
    assert status == 201, answer
    path = next(link["href"] for link in answer["resource"]["links"]
                if link["rel"] == "self").replace(server.url, "")
    sent = []
    for method, extra in [("GET", {}), ("GET", {"Range": "bytes=100-1099"}),
                          ("GET", {"Range": f"bytes={len(reads)}-"}), ("HEAD", {})]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        try:
            conn.request(method, path, headers={"Authorization": f"Bearer {server.admin}",
                                                "Accept": "application/fastq", **extra})
            res = conn.getresponse()
            sent.append((method, res.status, len(res.read()), res.getheader("X-Request-ID")))
        finally:
            conn.close()
    assert [s[:3] for s in sent][:2] == [("GET", 200, len(reads)), ("GET", 206, 1000)]
    assert sent[2][1] == 416 and sent[3][:3] == ("HEAD", 200, 0)
    # The whole file's line comes once the server has sent the last byte and closed it.
    log = ""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        log = (server.root / "server.log").read_text()
        if all(f"request_id={rid}" in log for *_, rid in sent):
            break
        time.sleep(0.1)
    for method, status, size, rid in sent:
        assert re.search(rf"{method} {re.escape(path)} {status} {size}B [\d.]+ms user=\d+ "
                         rf"request_id={rid}$", log, re.M), (method, status, size, log[-3000:])
