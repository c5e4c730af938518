"""A client that disconnects mid-upload leaves nothing behind, on both servers."""

from __future__ import annotations

import json
import socket
import time

import pytest

from seqcore.testing.server import live_server

pytestmark = pytest.mark.slow


@pytest.fixture(params=["gunicorn", "waitress"])
def server(request, tmp_path):
    srv = live_server(tmp_path / "server")
    srv.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    srv.secret = srv.create_client("client")
    srv.start(request.param)
    srv.admin = srv.token("client", srv.secret, "admin", "Admin-pass1!")
    yield srv
    srv.stop()


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
