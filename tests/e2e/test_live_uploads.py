"""Uploads through both real servers: a large pair arrives byte for byte (gunicorn's body is
read from the socket by seqcore itself), and a client that disconnects mid-upload leaves
nothing behind."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import random
import socket
import time

import pytest

from seqcore.testing.server import live_server
from seqcore.testing.uploads import multipart

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.database_independent]


@pytest.fixture(params=["gunicorn", "waitress"])
def server(request, tmp_path):
    srv = live_server(tmp_path / "server")
    srv.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    srv.secret = srv.create_client("client")
    srv.start(request.param)
    srv.admin = srv.token("client", srv.secret, "admin", "Admin-pass1!")
    yield srv
    srv.stop()


def _sample(server, name: str) -> int:
    _, body, _ = server.request("POST", "/api/projects", server.admin, {"name": name})
    project = json.loads(body)["resource"]["identifier"]
    _, body, _ = server.request("POST", f"/api/projects/{project}/samples", server.admin,
                                {"sampleName": name})
    return json.loads(body)["resource"]["identifier"]


def _gzipped_reads(seed: int, members: int) -> bytes:
    """Several MB of gzip in several members, so the body spans many socket reads."""
    rng = random.Random(seed)
    out = []
    for m in range(members):
        records = b"".join(
            b"@r%d_%d\n%s\n+\n%s\n" % (m, i, bytes(rng.choices(b"ACGT", k=150)),
                                         os.urandom(150).translate(QUALITIES))
            for i in range(4000))
        out.append(gzip.compress(records, compresslevel=1, mtime=0))
    return b"".join(out)


QUALITIES = bytes(33 + (i % 41) for i in range(256))


def test_a_large_pair_arrives_intact(server):
    sample = _sample(server, "large")
    files = {"big_R1.fastq.gz": _gzipped_reads(1, 6), "big_R2.fastq.gz": _gzipped_reads(2, 6)}
    parts = [(f"file{i}", name, data, None) for i, (name, data) in enumerate(files.items(), 1)]
    body, content_type = multipart([*parts, ("parameters1", None, b"{}", "application/json"),
                                    ("parameters2", None, b"{}", "application/json")])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    # Sent in uneven pieces, as a client streaming from disk does.
    conn.putrequest("POST", f"/api/samples/{sample}/pairs")
    for key, value in (("Authorization", f"Bearer {server.admin}"),
                       ("Content-Type", content_type), ("Content-Length", str(len(body)))):
        conn.putheader(key, value)
    conn.endheaders()
    for start in range(0, len(body), 300_001):
        conn.send(body[start:start + 300_001])
    res = conn.getresponse()
    answer = json.loads(res.read())
    conn.close()
    assert res.status == 201, answer
    pair = answer["resource"]
    for key, name in (("forwardSequenceFile", "big_R1.fastq.gz"),
                      ("reverseSequenceFile", "big_R2.fastq.gz")):
        assert pair[key]["fileName"] == name
        status, content, _ = server.request("GET", pair[key]["links"][0]["href"], server.admin,
                                            accept="application/fastq")
        assert status == 200
        assert content == files[name]


def test_disconnect_mid_upload(server):
    _, body, _ = server.request("POST", "/api/projects", server.admin, {"name": "Disconnects"})
    project = json.loads(body)["resource"]["identifier"]
    _, body, _ = server.request("POST", f"/api/projects/{project}/samples", server.admin,
                                {"sampleName": "dropped"})
    sample = json.loads(body)["resource"]["identifier"]
    head = (b"--B0undary\r\nContent-Disposition: form-data; name=\"file\"; "
            b"filename=\"x.fastq\"\r\n\r\n")
    record = b"@r\n" + b"ACGT" * 25 + b"\n+\n" + b"I" * 100 + b"\n"
    sent = head + record * 20_000  # about 4.5 MB of the announced 50 MB
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall((f"POST /api/samples/{sample}/unpaired HTTP/1.1\r\n"
                      f"Host: 127.0.0.1:{server.port}\r\n"
                      f"Authorization: Bearer {server.admin}\r\n"
                      "Content-Type: multipart/form-data; boundary=B0undary\r\n"
                      "Content-Length: 50000000\r\n\r\n").encode())
        sock.sendall(sent)
    deadline = time.monotonic() + 30
    storage = server.root / "storage"
    while time.monotonic() < deadline:
        leftovers = [p for p in storage.rglob("*") if p.is_file()]
        if not leftovers:
            break
        time.sleep(0.2)
    assert leftovers == []
    listed = server.get_json(f"/api/samples/{sample}/unpaired", server.admin)
    assert listed["resource"]["resources"] == []
    # The server is fine afterwards.
    assert server.get_json("/api/version", server.admin)["version"]
