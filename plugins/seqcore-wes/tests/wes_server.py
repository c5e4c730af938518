"""A real GA4GH WES server for the tests: the reference implementation (``wes-service``, with
its cwltool backend), installed from PyPI into its own virtualenv once, started on a free
loopback port; and a loopback TCP relay in front of it, so a test can cut the network between
seqcore and the server (and restore it) while the server keeps its runs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

import httpx

PACKAGES = ("wes-service==5.0", "cwltool")
API = "/ga4gh/wes/v1"


def wes_venv(cache: Path) -> Path:
    """The virtualenv's bin directory, created and filled on first use (under a lock, so
    parallel test sessions build it once)."""
    bin_dir = cache / "bin"
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / "wes-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (bin_dir / "wes-server").exists() or not (bin_dir / "cwltool").exists():
            venv.EnvBuilder(with_pip=True, clear=True).create(cache)
            subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q",
                            *PACKAGES], check=True)
    return bin_dir


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WesServer:
    """``wes-server`` running ``cwltool`` in ``workdir``; ``url`` is its API root. The
    reference server's Toil backend (``backend="wes_service.toil_wes"``) answers ``QUEUED``
    and ``INITIALIZING`` until Toil has started a run."""

    def __init__(self, bin_dir: Path, workdir: Path,
                 backend: str = "wes_service.cwl_runner") -> None:
        self.backend = backend
        self.bin_dir = bin_dir
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}{API}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}"}
        env.pop("PYTHONPATH", None)
        self.log = (self.workdir / "server.log").open("ab")
        self.process = subprocess.Popen(
            [str(self.bin_dir / "wes-server"), f"--backend={self.backend}",
             "--opt", "runner=cwltool", "--port", str(self.port)],
            cwd=self.workdir, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        # service-info runs `cwltool --version` for each request: on a loaded machine that
        # takes seconds, and a probe that gives up after two would only start another (the
        # server answers one at a time), so each probe waits as long as it takes.
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/service-info", timeout=60).status_code == 200:
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"wes-server did not start: {(self.workdir / 'server.log')}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.log.close()
            self.process = None


class Relay:
    """Forwards a loopback port to the server; ``cut()`` closes it (connections refused, as
    when a server or its network is down), ``restore()`` listens again on the same port."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}{API}"
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self.requests = bytearray()  # what clients sent, to check the headers seqcore sends

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(32)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:  # shutdown wakes the accepting thread and stops listening
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in list(self._open):
            with contextlib.suppress(OSError):
                sock.close()
        self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            self._open |= {client, upstream}
            for a, b, record in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pipe, args=(a, b, record), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, record: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if record:
                    self.requests += chunk
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def cache_dir() -> Path:
    """``var/wes-venv`` of the checkout (kept between sessions), else a temp directory."""
    root = Path(__file__).resolve().parents[3]
    base = root / "var" if (root / "pyproject.toml").exists() else Path(sys.prefix) / "var"
    return base / "wes-venv"


class OutputFront:
    """An HTTP front of a WES server that serves its runs' outputs over HTTP, as servers that
    share no file system with their clients do (Sapporo answers ``file_url``s): run logs
    pass with every ``file://`` location under the server's directory rewritten to a URL of
    this front, whose ``/files/...`` serves that file. Everything else is relayed as is.
    ``requests`` counts the output files served."""

    def __init__(self, server: WesServer) -> None:
        import http.server

        self.server = server
        self.root = Path(os.path.realpath(server.workdir))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}{API}"
        self.served: list[str] = []
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.startswith("/files/"):
                    front._serve_file(self)
                else:
                    front._relay(self)

            def do_POST(self) -> None:
                front._relay(self)

            def do_DELETE(self) -> None:
                front._relay(self)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _rewrite(self, value: object) -> object:
        prefix = f"file://{self.root}/"
        if isinstance(value, str) and value.startswith(prefix):
            return f"http://127.0.0.1:{self.port}/files/{value[len(prefix):]}"
        if isinstance(value, dict):
            return {k: self._rewrite(v) for k, v in value.items() if k != "path"}
        if isinstance(value, list):
            return [self._rewrite(v) for v in value]
        return value

    def _relay(self, handler: object) -> None:
        import json
        from http.server import BaseHTTPRequestHandler

        assert isinstance(handler, BaseHTTPRequestHandler)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {k: v for k, v in handler.headers.items()
                   if k.lower() not in ("host", "content-length", "connection")}
        response = httpx.request(handler.command, f"http://127.0.0.1:{self.server.port}"
                                 f"{handler.path}", content=body, headers=headers, timeout=120)
        content = response.content
        if response.headers.get("content-type", "").startswith("application/json"):
            content = json.dumps(self._rewrite(response.json())).encode()
        handler.send_response(response.status_code)
        handler.send_header("Content-Type", response.headers.get("content-type", "text/plain"))
        handler.send_header("Content-Length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content)

    def _serve_file(self, handler: object) -> None:
        from http.server import BaseHTTPRequestHandler
        from urllib.parse import unquote

        assert isinstance(handler, BaseHTTPRequestHandler)
        path = Path(os.path.realpath(self.root / unquote(handler.path[len("/files/"):])))
        if not path.is_relative_to(self.root) or not path.is_file():
            handler.send_error(404)
            return
        data = path.read_bytes()
        self.served.append(str(path.relative_to(self.root)))
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
