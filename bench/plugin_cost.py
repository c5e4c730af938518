"""What the installed plugins add to a request none of them takes part in.

Builds, in one process and on one SQLite database migrated with every installed plugin, two
applications: one with the plugins loaded from their entry points (as deployed) and one with
none. ``GET /api/projects/{id}`` is then sent to each through WSGI, in alternating batches,
and the cost per request is printed for both with its ratio (goal: at most 1.10):

* the thread's CPU time (the median batch; alternating, so load from other programs falls on
  both alike);
* Python function calls per request (``sys.setprofile``): exact, and the same on any
  machine, so it is what the suite's test pins;
* with ``--callgrind``, instructions per request counted by ``valgrind --tool=callgrind``
  (load-independent; slow: each application runs in its own process under valgrind).

    .venv/bin/python bench/plugin_cost.py [--requests 2000] [--path /api/projects/1]
        [--callgrind]
"""

from __future__ import annotations

import argparse
import io
import json
import operator
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.deployed import bench_settings, loaded_plugins, setup  # noqa: E402


def prepare(directory: Path) -> tuple[str, str]:
    """A SQLite database in ``directory`` migrated with every installed plugin, with one
    project and a bearer token of its owner: (URL, token)."""
    import transaction

    from seqcore.db import session_for
    from seqcore.db.migrations import upgrade
    from seqcore.models import OAuthClient, Project, ProjectMember, User
    from seqcore.models.oauth import digest
    from seqcore.oauth.tokens import issue_token
    from seqcore.services import ISessionFactory, registry_service

    url = f"sqlite:///{directory / 'plugin-cost.sqlite'}"
    config = setup(bench_settings(url))
    upgrade(config.get_settings(), config.registry.pm)
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(registry_service(config.registry, ISessionFactory), manager)
        user = User(username="bench", email="bench@example.org", password_hash="x",
                    first_name="Bench", last_name="Mark", phone_number="0000")
        client = OAuthClient(client_id="bench", secret_hash=digest("bench"))
        project = Project(name="Project 1", description="benchmark", namespace="bench",
                          path="project-1")
        db.add_all([user, client, project])
        db.flush()
        db.add(ProjectMember(project_id=project.id, user_id=user.id, role="PROJECT_OWNER"))
        token = issue_token(db, client, user)
    return url, token


def application(url: str, installed: bool) -> Any:
    """The WSGI application with the installed plugins (entry points) or with none."""
    from seqcore.config import configure

    settings = bench_settings(url)
    config = configure(settings) if installed else configure(settings, plugins=[])
    return config.make_wsgi_app()


def requester(app: Any, path: str, token: str) -> Callable[[], bytes]:
    """A function sending one ``GET path`` to ``app`` (no server, no socket): what the
    application itself costs."""
    def send() -> bytes:
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "",
                   "SERVER_NAME": "localhost", "SERVER_PORT": "80", "HTTP_HOST": "localhost",
                   "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
                   "HTTP_AUTHORIZATION": f"Bearer {token}", "wsgi.input": io.BytesIO(),
                   "wsgi.errors": sys.stderr}
        status: list[str] = []
        body = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
        if not status[0].startswith("200"):
            raise RuntimeError(f"GET {path}: {status[0]} {body[:200]!r}")
        return body
    return send


def calls_per_request(send: Callable[[], bytes], requests: int = 20) -> float:
    """Python function calls (and calls into C) per request, counted by a profile hook."""
    count = [0]

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    send()
    sys.setprofile(hook)
    try:
        for _ in range(requests):
            send()
    finally:
        sys.setprofile(None)
    return count[0] / requests


def cpu_per_request(sends: dict[str, Callable[[], bytes]], requests: int,
                    batch: int = 20) -> dict[str, float]:
    """The thread's CPU microseconds per request of each, from alternating batches of
    ``batch`` requests: the median batch of each."""
    batches: dict[str, list[float]] = {name: [] for name in sends}
    for send in sends.values():  # warm up: caches, lazily built tables
        for _ in range(batch):
            send()
    for _ in range(max(1, requests // batch)):
        for name, send in sends.items():
            began = time.thread_time()
            for _ in range(batch):
                send()
            batches[name].append((time.thread_time() - began) / batch * 1e6)
    return {name: statistics.median(times) for name, times in batches.items()}


def instructions_per_request(url: str, token: str, path: str, installed: bool,
                             requests: int) -> int:
    """Instructions per request under callgrind: only the requests are counted (the loop
    runs inside ``operator.call``, the function callgrind collects in)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=_operator_call", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--count-under-valgrind", url, token, path,
             str(int(installed)), str(requests)],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        totals = re.search(r"^totals: (\d+)", out.read_text(), re.M)
        assert totals, "callgrind wrote no totals"
        return int(totals.group(1)) // requests


def counted_run(url: str, token: str, path: str, installed: bool, requests: int) -> None:
    """The child callgrind runs: warm up, then the counted requests inside operator.call."""
    send = requester(application(url, installed), path, token)
    for _ in range(20):
        send()

    def loop() -> None:
        for _ in range(requests):
            send()

    operator.call(loop)


def measure(path: str = "/api/projects/1", requests: int = 2000, callgrind: bool = False,
            directory: Path | None = None) -> dict[str, Any]:
    """Every figure of the module docstring, as a dictionary."""
    with tempfile.TemporaryDirectory() as tmp:
        url, token = prepare(directory or Path(tmp))
        apps = {"none": application(url, False), "installed": application(url, True)}
        sends = {name: requester(app, path, token) for name, app in apps.items()}
        calls = {name: calls_per_request(send) for name, send in sends.items()}
        cpu = cpu_per_request(sends, requests)
        result: dict[str, Any] = {
            "path": path,
            "plugins": loaded_plugins(apps["installed"].registry),
            "cpu_us_per_request": {k: round(v, 1) for k, v in cpu.items()},
            "cpu_installed_vs_none": round(cpu["installed"] / cpu["none"], 3),
            "calls_per_request": calls,
            "calls_installed_vs_none": round(calls["installed"] / calls["none"], 3),
        }
        if callgrind:
            counts = {name: instructions_per_request(url, token, path, name == "installed",
                                                     max(20, requests // 20))
                      for name in ("none", "installed")}
            result["instructions_per_request"] = counts
            result["instructions_installed_vs_none"] = round(
                counts["installed"] / counts["none"], 3)
        return result


def main() -> None:
    if sys.argv[1:2] == ["--count-under-valgrind"]:
        url, token, path, installed, requests = sys.argv[2:7]
        counted_run(url, token, path, installed == "1", int(requests))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--path", default="/api/projects/1")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions under valgrind (slow)")
    args = parser.parse_args()
    print(json.dumps(measure(args.path, args.requests, args.callgrind), indent=2))


if __name__ == "__main__":
    main()
