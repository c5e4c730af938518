"""What the installed plugins add to a request none of them takes part in.

Builds, in one process and on one SQLite database migrated with every installed plugin, two
applications as a deployed server does (seqcore's PasteDeploy factory, the access log written
to a file): one with the plugins loaded from their entry points and one with none of them (the
same entry points, every one blocked by ``seqcore.plugins.disabled``, as an install without
them). ``GET /api/projects/{id}`` is then sent to each through WSGI, the body closed as a
server closes it (which writes the access log line), in alternating batches, and the cost per
request is printed for both with its ratio (goal: at most 1.10):

* the process's CPU time (``time.process_time``): the best batch of each (alternating, so
  load from other programs falls on both alike; the best is the least disturbed), and the
  median;
* Python function calls per request (``sys.setprofile``): exact, and the same on any
  machine, so it is what the suite's test pins, with
* pluggy hook calls per request (none: the plugins take part through what they declared at
  start-up, never through a hook called per request) and the routes tried per request (URL
  dispatch tries only the routes of the path's shape);
* with ``--callgrind``, instructions per request counted by ``valgrind --tool=callgrind``
  (load-independent; slow: each application runs in its own process under valgrind).

    .venv/bin/python bench/plugin_cost.py [--requests 2000] [--path /api/projects/1]
        [--callgrind] [--tiny]

``--tiny`` sends a few requests only, to check the benchmark runs (its figures mean little).
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

from bench.deployed import (  # noqa: E402
    bench_settings,
    deployed_app,
    loaded_plugins,
    setup,
)


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


def application(url: str, installed: bool, log: Path | None = None) -> Any:
    """The WSGI application as deployed (:func:`bench.deployed.deployed_app`: seqcore's
    PasteDeploy factory, the access log written to ``log``) with the installed plugins
    loaded from their entry points, or with every one of them blocked."""
    from importlib.metadata import entry_points

    settings = bench_settings(url)
    if not installed:
        settings["seqcore.plugins.disabled"] = " ".join(
            sorted(ep.name for ep in entry_points(group="seqcore")))
    return deployed_app(settings, log)


def requester(app: Any, path: str, token: str) -> Callable[[], bytes]:
    """A function sending one ``GET path`` to ``app`` (no server, no socket): what the
    application itself costs. The body is read and closed as a WSGI server does (closing it
    writes the access log line)."""
    def send() -> bytes:
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "",
                   "SERVER_NAME": "localhost", "SERVER_PORT": "80", "HTTP_HOST": "localhost",
                   "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
                   "REMOTE_ADDR": "127.0.0.1", "HTTP_AUTHORIZATION": f"Bearer {token}",
                   "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr}
        status: list[str] = []
        result = app(environ, lambda s, h, e=None: status.append(s))
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        if not status[0].startswith("200"):
            raise RuntimeError(f"GET {path}: {status[0]} {body[:200]!r}")
        return body
    return send


# Where the links of an answer are built: a plugin that declares a link relation adds one to
# the answer, and building it costs what building any link costs.
LINKS = str(Path("seqcore") / "framework" / "links.py")


def calls_per_request(send: Callable[[], bytes], requests: int = 20) -> dict[str, float]:
    """Python function calls (and calls into C) per request, counted by a profile hook:
    ``all`` of them, and ``links``, those made building the answer's links (in
    :mod:`seqcore.framework.links`, or called from there)."""
    counts = {"all": 0, "links": 0}

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            caller = frame.f_back
            links = frame.f_code.co_filename.endswith(LINKS) or (
                caller is not None and caller.f_code.co_filename.endswith(LINKS))
        elif event == "c_call":
            links = frame.f_code.co_filename.endswith(LINKS)
        else:
            return
        counts["all"] += 1
        counts["links"] += links

    send()
    sys.setprofile(hook)
    try:
        for _ in range(requests):
            send()
    finally:
        sys.setprofile(None)
    return {name: count / requests for name, count in counts.items()}


def links_in(body: bytes) -> int:
    """The links of a ``GET`` answer's resource."""
    return len(json.loads(body)["resource"].get("links", ()))


def hook_calls_per_request(app: Any, send: Callable[[], bytes],
                           requests: int = 5) -> float:
    """pluggy hook calls per request (the plugin manager's monitoring)."""
    calls = [0]

    def before(hook_name: str, implementations: Any, kwargs: Any) -> None:
        calls[0] += 1

    undo = app.registry.pm.add_hookcall_monitoring(before, lambda *args: None)
    try:
        for _ in range(requests):
            send()
    finally:
        undo()
    return calls[0] / requests


def routes_tried(app: Any, path: str) -> int:
    """How many routes URL dispatch tries for ``path`` before (and with) the one it takes."""
    from pyramid.interfaces import IRoutesMapper

    mapper = app.registry.getUtility(IRoutesMapper)
    candidates = mapper.candidates(path) if hasattr(mapper, "candidates") else \
        mapper.get_routes()
    for n, route in enumerate(candidates, 1):
        if route.match(path) is not None:
            return n
    return len(candidates)


def cpu_per_request(sends: dict[str, Callable[[], bytes]], requests: int,
                    batch: int = 20) -> dict[str, dict[str, float]]:
    """The process's CPU microseconds per request of each, from alternating batches of
    ``batch`` requests: the best batch of each (``min``: the least disturbed by the rest of
    the machine) and the median batch."""
    batches: dict[str, list[float]] = {name: [] for name in sends}
    for send in sends.values():  # warm up: caches, lazily built tables
        for _ in range(batch):
            send()
    for _ in range(max(1, requests // batch)):
        for name, send in sends.items():
            began = time.process_time()
            for _ in range(batch):
                send()
            batches[name].append((time.process_time() - began) / batch * 1e6)
    return {name: {"min": min(times), "median": statistics.median(times)}
            for name, times in batches.items()}


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
    with tempfile.TemporaryDirectory() as tmp:
        send = requester(application(url, installed, Path(tmp) / "access.log"), path, token)
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
        where = directory or Path(tmp)
        url, token = prepare(where)
        # Kept, as a server's log is (bench.deployed names it).
        log = where / "access.log" if directory else Path(
            tempfile.mkstemp(prefix="seqcore-bench-", suffix=".log")[1])
        apps = {"none": application(url, False, log), "installed": application(url, True, log)}
        sends = {name: requester(app, path, token) for name, app in apps.items()}
        calls = {name: calls_per_request(send) for name, send in sends.items()}
        hooks = {name: hook_calls_per_request(apps[name], send) for name, send in sends.items()}
        cpu = cpu_per_request(sends, requests)
        result: dict[str, Any] = {
            "path": path,
            "plugins": loaded_plugins(apps["installed"].registry),
            "plugins_of_none": loaded_plugins(apps["none"].registry),
            "cpu_us_per_request": {k: round(v["min"], 1) for k, v in cpu.items()},
            "cpu_us_per_request_median": {k: round(v["median"], 1) for k, v in cpu.items()},
            "cpu_installed_vs_none": round(cpu["installed"]["min"] / cpu["none"]["min"], 3),
            "calls_per_request": {k: v["all"] for k, v in calls.items()},
            "calls_installed_vs_none": round(calls["installed"]["all"] /
                                             calls["none"]["all"], 3),
            # Apart from building the links (one more for each link relation a plugin
            # declares for the resource), the same calls with and without plugins.
            "calls_per_request_besides_links": {k: v["all"] - v["links"]
                                                for k, v in calls.items()},
            "links": {name: links_in(send()) for name, send in sends.items()},
            "link_calls_per_link": {name: round(calls[name]["links"] / links_in(send()), 2)
                                    for name, send in sends.items()},
            "hook_calls_per_request": hooks,
            "routes_tried": {name: routes_tried(app, path) for name, app in apps.items()},
            "access_log_lines": sum(1 for line in log.read_text().splitlines()
                                    if f"GET {path} 200" in line),
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
    parser.add_argument("--tiny", action="store_true",
                        help="a few requests: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.requests = 40
    print(json.dumps(measure(args.path, args.requests, args.callgrind), indent=2))


if __name__ == "__main__":
    main()
