"""Issue 33 point 3, production: the documented front end (nginx with the shipped
``deploy/nginx/seqcore.conf``, in front of gunicorn serving seqcore) keeps answering while
hundreds of idle connections and dozens of slow ones are open, and cuts off a client whose
headers do not arrive within the shipped ``client_header_timeout``.

The shipped site file is used as it is, but for what a test on loopback cannot have: TLS
(the ``443 ssl`` listener becomes a plain loopback port, the certificate lines go), the
redirect from port 80, and the upstream's port. Every timeout, limit and buffering directive
is the shipped file's own, so a change there is tested here."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from seqcore.testing.server import free_port, live_server
from tests.e2e.probes import health

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("serial"), pytest.mark.database_independent]

SITE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "seqcore.conf"
NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(path).exists()), None)


def directive(name: str) -> str:
    """A directive's value in the shipped site file."""
    found = re.search(rf"^\s*{name}\s+([^;]+);", SITE.read_text(), re.M)
    assert found, f"{name} is not in {SITE}"
    return found.group(1).strip()


def seconds(value: str) -> float:
    return float(value[:-1]) * {"s": 1, "m": 60}[value[-1]] if value[-1] in "sm" else float(value)


def site_for_test(listen: int, upstream: int) -> str:
    """The shipped site file on a plain loopback port, proxying to ``upstream``."""
    text = SITE.read_text()
    # The redirecting port-80 server: the first server block.
    text = re.sub(r"server \{\s*listen 80;.*?\n\}\n", "", text, count=1, flags=re.S)
    text = re.sub(r"^\s*listen \[?[^\n]*443 ssl[^\n]*\n", "", text, flags=re.M)
    text = re.sub(r"^\s*ssl_[a-z_]+ [^\n]*\n", "", text, flags=re.M)
    text = text.replace("server_name seqcore.example.org;",
                        f"listen 127.0.0.1:{listen};\n    server_name localhost;", 1)
    text = text.replace("server 127.0.0.1:6543;", f"server 127.0.0.1:{upstream};")
    assert "ssl" not in text and f"127.0.0.1:{listen}" in text, text
    return text


@pytest.fixture
def front_end(tmp_path):
    """seqcore under gunicorn (one worker, as small as production gets) behind nginx; the
    nginx port, and a bearer token of an account there."""
    if NGINX is None:
        pytest.skip("nginx is not installed (apt-get install nginx)")
    server = live_server(tmp_path / "seqcore")
    server.create_user("slow", "Password1!")
    secret = server.create_client("slow")
    server.start("gunicorn", workers=1)
    ready(server.port)  # gunicorn's worker loads the application after the port opens
    token = server.token("slow", secret, "slow", "Password1!")
    port = free_port()
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;\n" if os.geteuid() == 0 else ""
    config = prefix / "nginx.conf"
    config.write_text(
        f"{user}worker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'} info;\n"
        "events { worker_connections 4096; }\n"
        f"http {{\n    access_log {prefix / 'access.log'};\n{temp}\n"
        f"{site_for_test(port, server.port)}\n}}\n")
    subprocess.run([NGINX, "-t", "-p", str(prefix), "-c", str(config)], check=True,
                   capture_output=True)
    nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(config), "-g",
                              "daemon off;"], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)
        yield port, token
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        server.stop()


def ready(port: int, within: float = 120) -> None:
    deadline = time.monotonic() + within
    while True:
        try:
            if health(port, timeout=within)[0] == 200:
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, "seqcore did not answer"
        time.sleep(0.2)


def test_nginx_keeps_seqcore_answering_while_hundreds_of_clients_idle_or_drip(front_end):
    port, token = front_end
    idle: list[socket.socket] = []
    slow_headers: list[socket.socket] = []
    slow_bodies: list[socket.socket] = []
    stop = threading.Event()
    try:
        for _ in range(400):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        for _ in range(30):
            slow_headers.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        # Slow bodies, signed in: whole headers, then a byte a second of a declared 1 MB
        # body. nginx reads a body whole before seqcore sees the request (but for uploads,
        # below), so these hold no gunicorn worker: more of them than the one worker gunicorn
        # has here, fewer than limit_conn allows from one address.
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"POST /api/projects HTTP/1.1\r\nHost: localhost\r\n"
                         b"Authorization: Bearer " + token.encode() + b"\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
            slow_bodies.append(sock)

        def drip() -> None:
            header = b"GET /-/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 500
            for byte in header:
                if stop.wait(1):
                    return
                for sock in slow_headers:
                    with contextlib.suppress(OSError):
                        sock.send(bytes([byte]))
                for sock in slow_bodies:
                    with contextlib.suppress(OSError):
                        sock.send(b" ")

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        timings = []
        for _ in range(10):
            status, took = health(port)
            assert status == 200
            timings.append(took)
            time.sleep(0.5)
        assert max(timings) < 2, timings
        # A client whose headers have not all arrived within client_header_timeout is cut
        # off by nginx (408, or the connection closed), before seqcore ever sees it.
        limit = seconds(directive("client_header_timeout"))
        time.sleep(max(0.0, limit + 2 - 5))  # about 5 s have passed since they connected
        cut = 0
        for sock in slow_headers:
            sock.settimeout(5)
            try:
                data = sock.recv(256)
            except OSError:
                data = b""
            if data == b"" or b" 408 " in data:
                cut += 1
        assert cut == len(slow_headers)
        # Uploads are streamed to seqcore; one without credentials is refused before seqcore
        # reads its body, so a slow one holds nothing either.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            started = time.perf_counter()
            sock.sendall(b"POST /api/projects/1/samples/1/sequenceFiles HTTP/1.1\r\n"
                         b"Host: localhost\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                         b"Content-Length: 1000000\r\n\r\n--b")
            answer = sock.recv(64)
            assert int(answer.split()[1]) == 401 and time.perf_counter() - started < 5
        # Still answering after all of it.
        assert health(port)[0] == 200
    finally:
        stop.set()
        for sock in idle + slow_headers + slow_bodies:
            sock.close()
