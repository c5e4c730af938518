"""REST throughput through a real WSGI server on loopback.

Starts waitress in a child process serving seqcore (SQLite, 1,000 projects) and, on the same
server, a bare Pyramid view returning a similar JSON object. Prints requests per second for
``GET /api/projects/{id}`` and ``GET /api/projects`` beside the bare view, their ratio, and
the SQL statements each request ran (which must not grow with the collection).

The three paths take turns (``--rounds``), so a machine whose other work comes and goes
weighs on each alike; the client's CPU is printed beside the server's, to show the client is
not what limits the bare view.

    .venv/bin/python bench/api.py [--projects 1000] [--seconds 5] [--rounds 5] [--threads 4]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/seqcore_bench]
        [--mix 64] [--tiny]

With ``--database-url`` the database named there is dropped and created afresh (PostgreSQL).
``--tiny`` (10 projects, one round of 1 s; with ``--mix``, 1 s) checks the benchmark runs;
its figures mean little.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.deployed import (  # noqa: E402
    bench_settings,
    deployed_app,
    loaded_plugins,
    setup,
    wait_for,
)
from seqcore.services import IDatabaseEngine, ISessionFactory, registry_service  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- server side --------------------------------------------------------------------------------


def serve(port: int, url: str) -> None:
    import logging

    import waitress

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    waitress.serve(build_app(url), host="127.0.0.1", port=port, threads=4, _quiet=True)


def mix_app() -> object:
    """The same application for gunicorn (``--mix``): the URL comes from the environment.
    Once built, the worker leaves a file named after its process in
    ``SEQCORE_BENCH_READY``, so the benchmark knows every worker has started."""
    app = build_app(os.environ["SEQCORE_BENCH_URL"])
    ready = os.environ.get("SEQCORE_BENCH_READY")
    if ready:
        (Path(ready) / str(os.getpid())).touch()
    return app


def build_app(url: str) -> object:
    """seqcore as deployed (bench.deployed: entry-point plugins, access log), and a bare
    Pyramid view at ``/bare``, in one WSGI application."""
    from pyramid.config import Configurator
    from sqlalchemy import event

    app = deployed_app(bench_settings(url))
    engine = registry_service(app.registry, IDatabaseEngine)
    counter = threading.local()

    def count(*args: object) -> None:
        counter.n = getattr(counter, "n", 0) + 1

    bare_config = Configurator()
    payload = {"resource": {"name": "Project 1", "createdDate": 0, "label": "Project 1",
                            "links": [{"rel": "self", "href": "http://x/api/projects/1"}],
                            "identifier": "1"}}
    bare_config.add_route("bare", "/bare")
    bare_config.add_view(lambda request: payload, route_name="bare", renderer="json")
    bare = bare_config.make_wsgi_app()

    def dispatch(environ: dict, start_response: object) -> object:
        """Either application, its body read whole; the thread's CPU time spent on the
        request (``X-CPU-Microseconds``) goes back as a header, and the SQL statements it
        ran (``X-SQL-Count``) when it asked with ``X-Count-SQL: 1``. CPU time is what the
        server spent whatever else runs on the machine. Statements are counted only then,
        one request at a time: an engine with a listener on its cursor events runs every
        statement through SQLAlchemy Core (seqcore.db.prepared), which the timed requests
        must not pay for."""
        target = bare if environ["PATH_INFO"].startswith("/bare") else app
        count_sql = environ.get("HTTP_X_COUNT_SQL") == "1"
        counter.n = 0
        if count_sql:
            event.listen(engine, "before_cursor_execute", count)
        began = time.thread_time()
        answer: list = []

        def start(status: str, headers: list, exc_info: object = None) -> object:
            answer[:] = [status, headers, exc_info]
            return lambda data: None

        result = target(environ, start)
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
            if count_sql:
                event.remove(engine, "before_cursor_execute", count)
        status, headers, exc_info = answer
        if count_sql:
            headers.append(("X-SQL-Count", str(counter.n)))
        headers.append(("X-CPU-Microseconds", str(int((time.thread_time() - began) * 1e6))))
        start_response(status, headers, exc_info)  # type: ignore[operator]
        return [body]

    return dispatch


# -- client side --------------------------------------------------------------------------------


def fresh_database(url: str) -> str:
    """Drop and create the PostgreSQL database ``url`` names; return the URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    admin = create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{parsed.database}"'))
    admin.dispose()
    return parsed.render_as_string(hide_password=False)


def prepare(url: str, projects: int) -> tuple[str, list[str]]:
    """The database with ``projects`` projects of one owner: a bearer token of the owner, and
    the plugins the application loaded (the served one loads the same: the same settings,
    the same entry points)."""
    import transaction
    from sqlalchemy import insert

    from seqcore.db import session_for
    from seqcore.db.migrations import upgrade
    from seqcore.models import OAuthClient, Project, ProjectMember, User
    from seqcore.models.oauth import digest
    from seqcore.oauth.tokens import issue_token

    config = setup(bench_settings(url))
    upgrade(config.get_settings(), config.registry.pm)
    factory = registry_service(config.registry, ISessionFactory)
    with transaction.manager:
        db = session_for(factory, transaction.manager)
        user = User(username="bench", email="bench@example.org", password_hash="x",
                    first_name="Bench", last_name="Mark", phone_number="0000")
        client = OAuthClient(client_id="bench", secret_hash=digest("bench"))
        db.add_all([user, client])
        db.flush()
        db.execute(insert(Project), [{"name": f"Project {i}", "description": "benchmark",
                                      "namespace": "bench", "path": f"project-{i}"}
                                     for i in range(1, projects + 1)])
        db.execute(insert(ProjectMember), [{"project_id": i, "user_id": user.id,
                                            "role": "PROJECT_OWNER"}
                                           for i in range(1, projects + 1)])
        token = issue_token(db, client, user)
    # Fresh tables have no planner statistics: without them PostgreSQL plans the collection's
    # joins for empty tables (10 ms a request instead of 0.5). A served database has them
    # from autovacuum; gather them now, as it would.
    engine = registry_service(config.registry, IDatabaseEngine)
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
    return token, loaded_plugins(config.registry)


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user and system, every thread) process ``pid`` has used, from
    ``/proc`` (Linux); ``None`` elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float | None:
    """CPU seconds process ``pid`` and its children (gunicorn's workers) have used
    (:func:`process_cpu` of each, from ``/proc``, Linux); ``None`` elsewhere."""
    own = process_cpu(pid)
    if own is None:
        return None
    total = own
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def wait_ready(ready: Path, workers: int, server: subprocess.Popen,
               seconds: float = 600) -> None:
    """Until ``workers`` gunicorn workers have built the application (:func:`mix_app`'s
    files in ``ready``): gunicorn listens, and answers from its first worker, before the
    others have started, and their start-up is not the mix's."""
    deadline = time.monotonic() + seconds
    while len(list(ready.iterdir())) < workers:
        if server.poll() is not None:
            raise RuntimeError(f"the server ended with status {server.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError("gunicorn's workers did not all start")
        time.sleep(0.2)


@dataclass
class Tally:
    """What the client saw of one path over every window it was hammered in."""

    requests: int = 0
    seconds: float = 0.0
    client_cpu: float = 0.0  # this process's CPU seconds (the client's threads)
    server_cpu: float = 0.0  # the server process's CPU seconds, every thread
    sql: int = 0
    size: int = 0
    app_cpu: list[int] = field(default_factory=list)  # X-CPU-Microseconds per request
    rps_per_window: list[float] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def per_request_ms(self, seconds: float) -> float:
        return round(seconds / self.requests * 1000, 3)

    def median_app_ms(self) -> float:
        ordered = sorted(self.app_cpu)
        return ordered[len(ordered) // 2] / 1000


def hammer(port: int, path: str, headers: dict, seconds: float, threads: int,
           tally: Tally, server_pid: int | None = None) -> None:
    """``threads`` keep-alive clients send ``path`` for ``seconds``; add what they saw to
    ``tally``: requests, time, the client's and the server's CPU, SQL count, body size, the
    application's CPU per request (from the server's headers)."""
    done = [0]
    stop = time.perf_counter() + seconds
    lock = threading.Lock()
    cpu: list[int] = []

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        n = 0
        while time.perf_counter() < stop:
            conn.request("GET", path, headers=headers)
            res = conn.getresponse()
            body = res.read()
            assert res.status == 200, (res.status, body[:200])
            n += 1
            with lock:
                tally.size = len(body)
                cpu.append(int(res.headers.get("X-CPU-Microseconds", 0)))
        with lock:
            done[0] += n
        conn.close()

    server_before = process_cpu(server_pid) if server_pid else None
    client_before = time.process_time()
    start = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - start
    tally.requests += done[0]
    tally.seconds += elapsed
    tally.client_cpu += time.process_time() - client_before
    if server_before is not None:
        tally.server_cpu += (process_cpu(server_pid) or 0.0) - server_before  # type: ignore[arg-type]
    tally.app_cpu.extend(cpu)
    tally.rps_per_window.append(done[0] / elapsed)


def mix(url: str, token: str, projects: int, seconds: float, clients: int,
        plugins: list[str]) -> dict:
    """gunicorn with deploy/gunicorn.conf.py; ``clients`` keep-alive clients mixing reads of
    projects, samples and metadata with small uploads, then the bare view under the same
    load. Measured once every worker has started and after two seconds of the mix not
    counted (steady state, not a worker's first requests)."""
    from seqcore.testing.load import mixed_steps, run_load

    port = free_port()
    ready = Path(tempfile.mkdtemp(prefix="seqcore-bench-workers-"))
    workers = int(os.environ.get("SEQCORE_WORKERS", multiprocessing.cpu_count() + 1))
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
         "--pythonpath", str(ROOT), "--bind", f"127.0.0.1:{port}", "bench.api:mix_app()"],
        env={**os.environ, "SEQCORE_BENCH_URL": url, "SEQCORE_BENCH_READY": str(ready)})
    try:
        wait_for(port, server)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn = http.client.HTTPConnection("127.0.0.1", port)
        project_ids = list(range(1, min(projects, 8) + 1))
        samples = []
        for pid in project_ids:
            for s in range(5):
                conn.request("POST", f"/api/projects/{pid}/samples",
                             json.dumps({"sampleName": f"mix-{pid}-{s}"}), headers)
                sid = json.loads(conn.getresponse().read())["resource"]["identifier"]
                conn.request("POST", f"/api/samples/{sid}/metadata",
                             json.dumps({"serovar": {"value": "Typhi", "type": "text"}}),
                             headers)
                conn.getresponse().read()
                samples.append(sid)
        conn.close()
        # The collection of 1,000 projects would dominate: the mix lists a project's samples.
        steps = [step for step in mixed_steps(token, project_ids, samples)]
        steps = [step for step in steps if step[1] != 2]  # drop the /api/projects listing
        # Every worker started (wait_ready), then warmed with the mix (the first requests
        # of a process fill SQLAlchemy's statement caches).
        wait_ready(ready, workers, server)
        run_load(port, steps, clients, min(2.0, seconds))
        before = tree_cpu(server.pid)
        seqcore = run_load(port, steps, clients, seconds)
        between = tree_cpu(server.pid)
        bare = run_load(port, [(("GET", "/bare", {}, None), 1)], clients, seconds)
        after = tree_cpu(server.pid)
        result = {"plugins": plugins, "mix_clients": clients,
                  "workers": os.environ.get("SEQCORE_WORKERS", "cpu count + 1"),
                  "seqcore_mix": seqcore.summary(), "bare_pyramid": bare.summary(),
                  "mix_throughput_vs_bare": round(seqcore.requests / seqcore.seconds /
                                                  (bare.requests / bare.seconds), 3)}
        if before is not None and between is not None and after is not None:
            # gunicorn's CPU (master and workers) per request, whatever else the machine
            # runs: the throughput ratio a machine with nothing else to do would approach
            # (the database server's own CPU, PostgreSQL's, is not counted).
            mix_ms = (between - before) / max(seqcore.requests, 1) * 1000
            bare_ms = (after - between) / max(bare.requests, 1) * 1000
            result["server_cpu_ms_per_request"] = {"mix": round(mix_ms, 3),
                                                   "bare": round(bare_ms, 3)}
            result["mix_cpu_vs_bare"] = round(bare_ms / mix_ms, 3) if mix_ms else None
        return result
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5, help="turns the paths take "
                        "(each round hammers every path for --seconds / --rounds)")
    parser.add_argument("--mix", type=int, metavar="CLIENTS", help="instead: gunicorn with "
                        "deploy/gunicorn.conf.py and this many clients mixing reads and "
                        "uploads, beside the bare view under the same load")
    parser.add_argument("--database-url", help="PostgreSQL database to (re)create and use "
                        "instead of a temporary SQLite file")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "URL"), help=argparse.SUPPRESS)
    parser.add_argument("--tiny", action="store_true",
                        help="10 projects, 1 s: checks the benchmark runs")
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    if args.tiny:
        args.projects, args.seconds, args.rounds = 10, 1.0, 1

    if args.database_url:
        url = fresh_database(args.database_url)
    else:
        tmp = tempfile.mkdtemp(prefix="seqcore-bench-")
        url = f"sqlite:///{tmp}/bench.sqlite"
    args.url = url
    token, args.plugins = prepare(url, args.projects)
    if args.mix:
        print(json.dumps(mix(url, token, args.projects, args.seconds, args.mix, args.plugins),
                         indent=2))
        return
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), url],
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        wait_for(port, server)
        print(json.dumps(measure(port, server.pid, token, args), indent=2))
    finally:
        server.terminate()
        server.wait()


def measure(port: int, server_pid: int, token: str, args: argparse.Namespace) -> dict:
    """The bare view, a project and the collection, in turns: ``--rounds`` rounds, each
    giving every path an equal window of ``--seconds / --rounds``, so a change in what else
    the machine runs falls on all three alike. Same server, same threads, same client."""
    headers = {"Authorization": f"Bearer {token}"}
    paths = {"bare": ("/bare", {}), "project": ("/api/projects/1", headers),
             "collection": ("/api/projects", headers)}
    tallies = {name: Tally() for name in paths}
    for path, hdrs in paths.values():  # warm up
        hammer(port, path, hdrs, 0.5, args.threads, Tally())
    for name, (path, hdrs) in paths.items():  # the SQL statements of one warm request, alone
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", path, headers={**hdrs, "X-Count-SQL": "1"})
        res = conn.getresponse()
        res.read()
        tallies[name].sql = int(res.headers.get("X-SQL-Count", 0))
        conn.close()
    window = args.seconds / args.rounds
    for _ in range(args.rounds):
        for name, (path, hdrs) in paths.items():
            hammer(port, path, hdrs, window, args.threads, tallies[name], server_pid)
    bare, one, many = tallies["bare"], tallies["project"], tallies["collection"]
    ratios = sorted(p / b for p, b in zip(one.rps_per_window, bare.rps_per_window,
                                          strict=True))
    return {
        "plugins": args.plugins,
        "database": args.url.split(":", 1)[0],
        "projects": args.projects,
        "rounds": args.rounds,
        "bare_pyramid_rps": round(bare.rps, 1),
        "project_rps": round(one.rps, 1),
        "project_vs_bare": round(one.rps / bare.rps, 3),
        # The ratio of each round (bare and project measured one after the other).
        "project_vs_bare_per_round": [round(r, 3) for r in ratios],
        "project_sql_statements": one.sql,
        "project_bytes": one.size,
        "collection_rps": round(many.rps, 1),
        "collection_vs_bare": round(many.rps / bare.rps, 4),
        "collection_sql_statements": many.sql,
        "collection_bytes": many.size,
        "collection_entries_per_second": round(many.rps * args.projects),
        # The server's CPU per request (median, in the application, transport aside):
        # what the figures above come to on an otherwise idle machine.
        "cpu_ms_bare": bare.median_app_ms(),
        "cpu_ms_project": one.median_app_ms(),
        "cpu_ms_collection": many.median_app_ms(),
        "cpu_collection_entries_per_second": round(args.projects / many.median_app_ms() * 1000)
        if many.median_app_ms() else None,
        # The whole server process's CPU per request (waitress, its threads, the
        # application), and the client's: the client never used more than the share of
        # one core printed as client_core_share (Python runs its threads one at a time, so
        # near 1.0 it would be the bottleneck).
        "server_process_cpu_ms": {name: t.per_request_ms(t.server_cpu)
                                  for name, t in tallies.items()},
        "client_cpu_ms": {name: t.per_request_ms(t.client_cpu) for name, t in tallies.items()},
        "client_core_share": {name: round(t.client_cpu / t.seconds, 2)
                              for name, t in tallies.items()},
    }


if __name__ == "__main__":
    main()
