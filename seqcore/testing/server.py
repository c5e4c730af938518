"""A real seqcore server on loopback, for end-to-end tests with real client programs.

It runs exactly as a deployment does: an ini file, ``seqcore db upgrade`` (run once per set of
settings on SQLite, and on PostgreSQL for servers given an empty database, its database
copied for each server), accounts and OAuth clients made
with the ``seqcore`` command, then ``seqcore serve`` (waitress, with the embedded worker) in
its own process.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from seqcore.testing.database import copy_sqlite, recreate_database

SEQCORE = [sys.executable, "-m", "seqcore.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return cast("int", sock.getsockname()[1])


@dataclass
class LiveServer:
    root: Path
    port: int
    ini: Path
    process: subprocess.Popen[bytes] | None = None
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cli(self, *args: str) -> str:
        done = subprocess.run([*SEQCORE, "-c", str(self.ini), *args], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"seqcore {' '.join(args)} failed: {done.stderr}{done.stdout}")
        return done.stdout

    def create_user(self, username: str, password: str, role: str = "ROLE_USER") -> None:
        self.cli("users", "create", "--username", username, "--email",
                 f"{username}@example.org", "--password", password, "--first-name", "Test",
                 "--last-name", username.title(), "--phone-number", "5550100", "--role", role)

    def create_client(self, client_id: str, *extra: str) -> str:
        out = self.cli("clients", "create", "--client-id", client_id, *extra)
        found = re.search(r"client_secret: (\w+)", out)
        if found is None:
            raise AssertionError(f"`seqcore clients create` printed no secret: {out}")
        return found.group(1)

    def start(self, server: str = "waitress", workers: int = 2) -> None:
        """Serve with waitress (``seqcore serve``, the development server, embedded worker)
        or gunicorn (the production server; the worker is a separate process then)."""
        log = open(self.root / "server.log", "w")  # noqa: SIM115
        if server == "gunicorn":
            command = [sys.executable, "-m", "gunicorn", "--paste", str(self.ini), "--bind",
                       f"127.0.0.1:{self.port}", "--workers", str(workers), "--timeout",
                       "3600"]
        else:
            command = [*SEQCORE, "-c", str(self.ini), "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the server exited: " + (self.root / "server.log").read_text())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def token(self, client_id: str, secret: str, username: str, password: str) -> str:
        key = (client_id, username)
        if key not in self.tokens:
            form = urllib.parse.urlencode({
                "grant_type": "password", "client_id": client_id, "client_secret": secret,
                "username": username, "password": password}).encode()
            with urllib.request.urlopen(f"{self.url}/api/oauth/token", form) as res:
                self.tokens[key] = json.loads(res.read())["access_token"]
        return self.tokens[key]

    def request(self, method: str, path: str, token: str, body: Any = None,
                accept: str = "application/json") -> tuple[int, bytes, dict[str, Any]]:
        url = path if path.startswith("http") else self.url + path
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": f"Bearer {token}", "Accept": accept,
            **({"Content-Type": "application/json"} if data is not None else {})})
        try:
            with urllib.request.urlopen(req) as res:
                return res.status, res.read(), dict(res.headers)
        except urllib.error.HTTPError as err:
            return err.code, err.read(), dict(err.headers)

    def get_json(self, path: str, token: str) -> Any:
        status, body, _ = self.request("GET", path, token)
        assert status == 200, (path, status, body[:300])
        return json.loads(body)


# SQLite databases migrated by `seqcore db upgrade`, one per set of settings (the plugins
# enabled decide the schema) in this process: each server on SQLite gets a copy, so the
# migrations run once per settings and pytest-xdist worker rather than once per server.
_TEMPLATES: dict[tuple[tuple[str, str], ...], Path] = {}
_OWN_PATHS = ("sqlalchemy.url", "seqcore.storage.path", "seqcore.analysis.work_path")


def _migrated_sqlite(lines: dict[str, str]) -> Path:
    """The template for these settings, made by ``seqcore db upgrade`` on first use."""
    key = _template_key(lines)
    template = _TEMPLATES.get(key)
    if template is None or not template.exists():
        root = Path(tempfile.mkdtemp(prefix="seqcore-migrated-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        own = {**lines, "sqlalchemy.url": f"sqlite:///{root / 'seqcore.sqlite'}",
               "seqcore.storage.path": str(root / "storage")}
        ini = root / "template.ini"
        ini.write_text("[app:main]\n" + "".join(f"{k} = {v}\n" for k, v in own.items()))
        LiveServer(root, 0, ini).cli("db", "upgrade")
        template = _TEMPLATES[key] = root / "seqcore.sqlite"
    return template


# PostgreSQL databases migrated by `seqcore db upgrade`, one per server and set of settings in
# this process: a server given an empty PostgreSQL database gets it made again from one of
# them (CREATE DATABASE ... TEMPLATE), as a SQLite server gets a copy of its template.
_PG_TEMPLATES: dict[tuple[tuple[str, str], ...], str] = {}


def _template_key(lines: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in lines.items() if k not in _OWN_PATHS))


def _copied_migrated_postgresql(root: Path, lines: dict[str, str]) -> bool:
    """Make the empty PostgreSQL database ``sqlalchemy.url`` names a copy of one ``seqcore db
    upgrade`` migrated with the same settings on the same server (migrated on first use);
    False, changing nothing, for any other database (SQLite, or one with tables already)."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    url = make_url(lines["sqlalchemy.url"])
    if url.get_backend_name() != "postgresql" or not url.database:
        return False
    probe = create_engine(url, poolclass=NullPool)
    try:
        with probe.connect() as conn:
            if inspect(conn).get_table_names():
                return False
    finally:
        probe.dispose()
    server = url.set(database=None).render_as_string(hide_password=False)
    key = (("server", server), *_template_key(lines))
    template = _PG_TEMPLATES.get(key)
    if template is None:
        template = f"{url.database}_migrated{len(_PG_TEMPLATES)}"
        recreate_database(url.set(database=template))
        own = root / "template"
        own.mkdir(exist_ok=True)
        ini = own / "template.ini"
        ini.write_text("[app:main]\n" + "".join(f"{k} = {v}\n" for k, v in {
            **lines, "sqlalchemy.url": url.set(database=template).render_as_string(
                hide_password=False),
            "seqcore.storage.path": str(own / "storage")}.items()))
        LiveServer(own, 0, ini).cli("db", "upgrade")
        _PG_TEMPLATES[key] = template
    recreate_database(url, template=template)
    return True


def live_server(root: Path, **settings: str) -> LiveServer:
    """Prepare (not start) a server in ``root`` with its own database, storage and analysis
    work directory: a copy of a SQLite database ``seqcore db upgrade`` migrated with the same
    settings, or the ``sqlalchemy.url`` given: an empty PostgreSQL database becomes a copy of
    one ``seqcore db upgrade`` migrated with the same settings on that server; any other is
    migrated with ``seqcore db upgrade`` here."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    lines = {"use": "egg:seqcore-server",
             "sqlalchemy.url": f"sqlite:///{root / 'seqcore.sqlite'}",
             "seqcore.storage.path": str(root / "storage"),
             # Its own: the default var/work is shared by every server started from the
             # same directory, where two servers' first jobs (both 1-0) would collide.
             "seqcore.analysis.work_path": str(root / "work"),
             "seqcore.worker.embedded": "true",
             "seqcore.password_hash.time_cost": "1",
             "seqcore.password_hash.memory_cost": "64",
             **settings}
    ini = root / "server.ini"
    ini.write_text("[app:main]\n" + "".join(f"{k} = {v}\n" for k, v in lines.items()) +
                   "\n[server:main]\nuse = egg:waitress#main\nhost = 127.0.0.1\n"
                   f"port = {port}\nmax_request_body_size = 107374182400\n")
    server = LiveServer(root, port, ini)
    if "sqlalchemy.url" in settings:
        if not _copied_migrated_postgresql(root, lines):
            server.cli("db", "upgrade")
    else:
        copy_sqlite(_migrated_sqlite(lines), root / "seqcore.sqlite")
    return server


def start_worker(directory: Path, settings: dict[str, Any], **overrides: str
                 ) -> subprocess.Popen[bytes]:
    """A ``seqcore worker`` process over the test app's database and storage, with
    ``overrides`` (plugins, executor, lease) written into its own ini file.

    It gets a session secret (the web layer needs one outside SQLite) and the test's
    ``sys.path``, so it imports the same plugins and test modules.
    """
    lines = {"use": "egg:seqcore-server",
             "sqlalchemy.url": str(settings["sqlalchemy.url"]),
             "seqcore.storage.path": str(settings["seqcore.storage.path"]),
             "seqcore.analysis.work_path": str(settings["seqcore.analysis.work_path"]),
             "seqcore.session.secret": "worker-test-secret",
             **overrides}
    directory.mkdir(parents=True, exist_ok=True)
    ini = directory / f"worker-{len(list(directory.glob('worker-*.ini')))}.ini"
    ini.write_text("[app:main]\n" + "".join(f"{k} = {v}\n" for k, v in lines.items()))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([*SEQCORE, "-c", str(ini), "worker", "--interval", "0.2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
