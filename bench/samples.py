"""Listing large projects: seqcore against the floor of its own SELECT plus ``json.dumps``.

Builds (once, cached under ``var/bench``) a SQLite database with a project of 10,000 and one of
100,000 samples, each with 20 metadata fields; serves it with waitress in a child process; and
times ``GET /api/projects/{id}/samples/metadata`` (samples with their metadata) and
``GET /api/projects/{id}/samples`` through loopback, beside the same SELECT run directly and
its rows passed through ``json.dumps``, in the same run. Prints the ratios and the server's
peak memory after each size (flat memory: the 100,000 figure close to the 10,000 one).

    .venv/bin/python bench/samples.py [--sizes 10000 100000] [--fields 20] [--tiny]

``--tiny`` (a project of 100 samples of 2 fields, in a temporary database) checks the
benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from seqcore.services import IDatabaseEngine, ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(path: Path, sizes: list[int], fields: int) -> tuple[str, dict[int, int]]:
    """The database (reused when it exists) and the project id for each size."""
    from sqlalchemy import insert

    from bench.deployed import bench_settings, setup
    from seqcore.db.migrations import upgrade
    from seqcore.models import (
        MetadataEntry,
        OAuthClient,
        Project,
        ProjectMember,
        ProjectSample,
        Sample,
        User,
    )
    from seqcore.models.oauth import digest

    url = f"sqlite:///{path}"
    marker = path.with_suffix(".json")
    if path.exists() and marker.exists():
        meta = json.loads(marker.read_text())
        if meta["sizes"] == sizes and meta["fields"] == fields:
            return url, {int(k): v for k, v in meta["projects"].items()}
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    config = setup(bench_settings(url))
    upgrade(config.get_settings(), config.registry.pm)
    engine = registry_service(config.registry, IDatabaseEngine)
    projects = {}
    next_id = 1
    with engine.begin() as conn:
        conn.execute(insert(User), [{"id": 1, "username": "bench", "email": "b@example.org",
                                     "password_hash": "x", "first_name": "Ben",
                                     "last_name": "Ch", "phone_number": "0000"}])
        conn.execute(insert(OAuthClient), [{"client_id": "bench",
                                            "secret_hash": digest("bench")}])
    for project_id, size in enumerate(sizes, start=1):
        projects[size] = project_id
        with engine.begin() as conn:
            conn.execute(insert(Project), [{"id": project_id, "name": f"Bench {size}",
                                            "namespace": "bench", "path": f"bench-{size}"}])
            conn.execute(insert(ProjectMember), [{"project_id": project_id, "user_id": 1,
                                                  "role": "PROJECT_OWNER"}])
        for start in range(0, size, 10_000):
            ids = list(range(next_id + start, next_id + min(start + 10_000, size)))
            with engine.begin() as conn:
                conn.execute(insert(Sample), [
                    {"id": i, "name": f"S{i:07d}", "organism": "Salmonella enterica",
                     "description": "benchmark isolate"} for i in ids])
                conn.execute(insert(ProjectSample), [
                    {"project_id": project_id, "sample_id": i, "sample_name": f"S{i:07d}"}
                    for i in ids])
                conn.execute(insert(MetadataEntry), [
                    {"sample_id": i, "field": f"field_{k:02d}", "value": f"value {i} {k}"}
                    for i in ids for k in range(fields)])
        next_id += size
    marker.write_text(json.dumps({"sizes": sizes, "fields": fields, "projects": projects}))
    return url, projects


def token(url: str) -> str:
    import transaction

    from bench.deployed import bench_settings, setup
    from seqcore.db import session_for
    from seqcore.models import OAuthClient, User
    from seqcore.oauth.tokens import issue_token

    config = setup(bench_settings(url))
    with transaction.manager:
        db = session_for(registry_service(config.registry, ISessionFactory), transaction.manager)
        return issue_token(db, db.get(OAuthClient, 1), db.get(User, 1))


def floor(url: str, project_id: int, with_metadata: bool) -> float:
    """The same SELECT the endpoint runs, all rows fetched, then ``json.dumps``."""
    from sqlalchemy import select

    from seqcore.db import get_engine
    from seqcore.models import MetadataEntry, ProjectSample, Sample

    engine = get_engine(url)
    if with_metadata:
        query = (select(Sample.id, Sample.name, MetadataEntry.field, MetadataEntry.value,
                        MetadataEntry.type)
                 .join(ProjectSample, ProjectSample.sample_id == Sample.id)
                 .outerjoin(MetadataEntry, MetadataEntry.sample_id == Sample.id)
                 .where(ProjectSample.project_id == project_id)
                 .order_by(Sample.id, MetadataEntry.field))
    else:
        query = (select(*Sample.__table__.c)
                 .join(ProjectSample, ProjectSample.sample_id == Sample.id)
                 .where(ProjectSample.project_id == project_id).order_by(Sample.id))
    start = time.perf_counter()
    with engine.connect() as conn:
        rows = conn.execute(query).fetchall()
        json.dumps([tuple(r) for r in rows], default=str)
    elapsed = time.perf_counter() - start
    engine.dispose()
    return elapsed


def fetch(port: int, path: str, headers: dict) -> tuple[float, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.perf_counter()
    conn.request("GET", path, headers=headers)
    res = conn.getresponse()
    size = 0
    while chunk := res.read(1 << 20):
        size += len(chunk)
    elapsed = time.perf_counter() - start
    assert res.status == 200, res.status
    conn.close()
    return elapsed, size


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve(port: int, url: str) -> None:
    import logging

    import waitress

    from bench.deployed import bench_settings, deployed_app

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    app = deployed_app(bench_settings(url))
    waitress.serve(app, host="127.0.0.1", port=port, threads=4, _quiet=True,
                   outbuf_high_watermark=4 << 20, outbuf_overflow=1 << 20)


def main() -> None:
    from bench.deployed import wait_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--fields", type=int, default=20)
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--tiny", action="store_true",
                        help="a small project: checks the benchmark runs")
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    path = ROOT / "var" / "bench" / f"samples-{'-'.join(map(str, args.sizes))}.sqlite"
    if args.tiny:
        args.sizes, args.fields = [100], 2
        path = Path(tempfile.mkdtemp(prefix="seqcore-bench-")) / "samples.sqlite"
    t0 = time.perf_counter()
    url, projects = build(path, args.sizes, args.fields)
    print(f"database ready in {time.perf_counter() - t0:.1f} s: {path}", file=sys.stderr)
    headers = {"Authorization": f"Bearer {token(url)}"}
    port = free_port()
    # Two malloc arenas: with one per waitress thread, glibc keeps each thread's high-water
    # mark, which reads as growth though nothing accumulates.
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), url],
                              env={**os.environ, "PYTHONPATH": str(ROOT),
                                   "MALLOC_ARENA_MAX": "2"})
    results = []
    try:
        wait_for(port, server)
        fetch(port, f"/api/projects/{projects[args.sizes[0]]}/samples?limit=10", headers)
        base_rss = peak_rss_mb(server.pid)
        for size in args.sizes:
            pid = projects[size]
            for label, path_, with_md in (("samples+metadata", "samples/metadata", True),
                                          ("samples", "samples", False)):
                # Best of three for both, so one noisy moment on a shared machine does not
                # decide the ratio.
                floor_s = min(floor(url, pid, with_md) for _ in range(3))
                seconds, nbytes = min(fetch(port, f"/api/projects/{pid}/{path_}", headers)
                                      for _ in range(3))
                results.append({
                    "size": size, "endpoint": label, "seqcore_s": round(seconds, 3),
                    "floor_s": round(floor_s, 3), "ratio": round(seconds / floor_s, 2),
                    "mb": round(nbytes / 1e6, 1),
                    "server_peak_rss_mb": round(peak_rss_mb(server.pid), 1),
                })
                print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        server.terminate()
        server.wait()
    print(json.dumps({"server_rss_after_warmup_mb": round(base_rss, 1), "runs": results},
                     indent=2))


if __name__ == "__main__":
    main()
