"""GraphQL against REST for the same data: a page of 100 samples with metadata and project.

Builds (once, cached under ``var/bench``) a SQLite database with one project of 1,000
samples, each with 20 metadata fields; serves it with waitress in a child process; and times,
through loopback in the same run:

* GraphQL: ``samples(first: 100) { nodes { name metadata project { fullPath } } }`` (one
  request, Basic personal access token);
* REST, as an IRIDA client gets the same: ``GET /api/projects/{id}/samples?limit=100`` then
  ``GET /api/samples/{sid}/metadata`` for each of the 100 (101 requests on one keep-alive
  connection, bearer token);
* REST, the bulk alternative: the same page plus ``GET /api/projects/{id}/samples/metadata``
  (the metadata of all 1,000 samples: 2 requests, more data).

Prints the best and median of each and the ratios (REST / GraphQL).

    .venv/bin/python bench/graphql.py [--samples 1000] [--fields 20] [--repeat 20] [--tiny]

``--tiny`` (100 samples of 2 fields in a temporary database, one run) checks the benchmark
runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from seqcore.services import IDatabaseEngine, ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, and this file's name would
# shadow the graphql package itself.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

QUERY = "query { samples(first: 100) { nodes { name metadata project { fullPath } } } }"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(path: Path, samples: int, fields: int) -> str:
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
        if json.loads(marker.read_text()) == {"samples": samples, "fields": fields}:
            return url
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    config = setup(bench_settings(url))
    upgrade(config.get_settings(), config.registry.pm)
    engine = registry_service(config.registry, IDatabaseEngine)
    with engine.begin() as conn:
        conn.execute(insert(User), [{"id": 1, "username": "bench", "email": "b@example.org",
                                     "password_hash": "x", "first_name": "Ben",
                                     "last_name": "Ch", "phone_number": "0000"}])
        conn.execute(insert(OAuthClient), [{"client_id": "bench",
                                            "secret_hash": digest("bench")}])
        conn.execute(insert(Project), [{"id": 1, "name": "Bench project", "namespace": "bench",
                                        "path": "bench-project"}])
        conn.execute(insert(ProjectMember), [{"project_id": 1, "user_id": 1,
                                              "role": "PROJECT_OWNER"}])
        ids = range(1, samples + 1)
        conn.execute(insert(Sample), [{"id": i, "name": f"S{i:07d}",
                                       "organism": "Salmonella enterica",
                                       "description": "benchmark isolate"} for i in ids])
        conn.execute(insert(ProjectSample), [{"project_id": 1, "sample_id": i,
                                              "sample_name": f"S{i:07d}"} for i in ids])
        conn.execute(insert(MetadataEntry), [
            {"sample_id": i, "field": f"field_{k:02d}", "value": f"value {i} {k}"}
            for i in ids for k in range(fields)])
    marker.write_text(json.dumps({"samples": samples, "fields": fields}))
    return url


def credentials(url: str) -> tuple[dict[str, str], dict[str, str]]:
    """Fresh REST (bearer) and GraphQL (Basic personal access token) headers."""
    import transaction

    from bench.deployed import bench_settings, setup
    from seqcore.db import session_for
    from seqcore.models import OAuthClient, User
    from seqcore.oauth.personal import create_token
    from seqcore.oauth.tokens import issue_token

    config = setup(bench_settings(url))
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(registry_service(config.registry, ISessionFactory), manager)
        user = db.get(User, 1)
        client = db.query(OAuthClient).filter_by(client_id="bench").one()
        bearer = issue_token(db, client, user, ["read"], lifetime=86400)
        pat = create_token(db, user.id, "bench", ["read_api"], None).secret
        email = user.email
    basic = base64.b64encode(f"{email}:{pat}".encode()).decode()
    return ({"Authorization": f"Bearer {bearer}"},
            {"Authorization": f"Basic {basic}", "Content-Type": "application/json"})


def serve(url: str, port: int) -> None:
    from waitress import serve as waitress_serve

    from bench.deployed import bench_settings, deployed_app

    app = deployed_app(bench_settings(url))
    waitress_serve(app, host="127.0.0.1", port=port, threads=4, _quiet=True)


def request(conn: http.client.HTTPConnection, method: str, path: str, headers: dict[str, str],
            body: bytes | None = None) -> bytes:
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
    return data


def graphql_call(conn, headers) -> int:
    data = request(conn, "POST", "/api/graphql", headers, json.dumps({"query": QUERY}).encode())
    nodes = json.loads(data)["data"]["samples"]["nodes"]
    assert len(nodes) == 100 and all(n["metadata"] and n["project"] for n in nodes)
    return len(data)


def rest_per_sample(conn, headers) -> int:
    page = request(conn, "GET", "/api/projects/1/samples?limit=100", headers)
    resources = json.loads(page)["resource"]["resources"]
    total = len(page)
    for entry in resources:
        total += len(request(conn, "GET", f"/api/samples/{entry['identifier']}/metadata",
                             headers))
    assert len(resources) == 100
    return total


def rest_bulk(conn, headers) -> int:
    page = request(conn, "GET", "/api/projects/1/samples?limit=100", headers)
    everything = request(conn, "GET", "/api/projects/1/samples/metadata", headers)
    return len(page) + len(everything)


def timed(fn, conn, headers, repeat: int) -> tuple[float, float, int]:
    fn(conn, headers)  # warm up
    times, size = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        size = fn(conn, headers)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), size


def main() -> None:
    from bench.deployed import wait_for

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--fields", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tiny", action="store_true",
                        help="a small project, one run: checks the benchmark runs")
    args = parser.parse_args()
    database = ROOT / "var" / "bench" / "graphql.sqlite"
    if args.tiny:
        args.samples, args.fields, args.repeat = 100, 2, 1
        database = Path(tempfile.mkdtemp(prefix="seqcore-bench-")) / "graphql.sqlite"
    if args.samples < 100:
        parser.error("--samples 100 at least (the page is of 100)")
    url = build(database, args.samples, args.fields)
    rest_headers, graphql_headers = credentials(url)
    port = free_port()
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    server = subprocess.Popen([sys.executable, __file__, "--serve", url, str(port)], env=env)
    try:
        wait_for(port, server)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        results = {
            "GraphQL samples(first: 100) {name metadata project {fullPath}}":
                timed(graphql_call, conn, graphql_headers, args.repeat),
            "REST page of 100 + 100 x /samples/{id}/metadata (101 requests)":
                timed(rest_per_sample, conn, rest_headers, args.repeat),
            f"REST page of 100 + /samples/metadata of all {args.samples} (2 requests)":
                timed(rest_bulk, conn, rest_headers, args.repeat),
        }
    finally:
        server.terminate()
        server.wait(timeout=10)
    base = next(iter(results.values()))
    print(f"{args.samples} samples x {args.fields} metadata fields, SQLite, waitress on "
          f"loopback, best / median of {args.repeat}")
    print(f"{'request':<72} {'best ms':>8} {'median':>8} {'bytes':>9} {'ratio':>6}")
    for name, (best, median, size) in results.items():
        print(f"{name:<72} {best * 1000:8.1f} {median * 1000:8.1f} {size:9d} "
              f"{median / base[1]:6.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        main()
