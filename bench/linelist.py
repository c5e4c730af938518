"""Line lists of a large project through a real WSGI server: time and the server's peak
memory.

For each sample count (10,000 and 100,000 by default, 20 metadata fields each) a fresh
SQLite database is filled, then for each of ``GET /api/projects/{id}/linelist?format=csv``,
``...&format=xlsx`` and the JSON ``GET /api/projects/{id}/samples/metadata`` of the same data
a fresh waitress process serves one request; the client reads the body in chunks and
discards it. Printed: seconds, bytes, and the server's peak resident memory (``VmHWM``) after
the request beside its peak after start-up, so a flat line from 10,000 to 100,000 samples
shows the streaming holds.

    .venv/bin/python bench/linelist.py [--samples 10000 100000] [--fields 20] [--tiny]

``--tiny`` (100 samples of 2 fields) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

PATHS = {"linelist csv": "/api/projects/1/linelist?format=csv",
         "linelist xlsx": "/api/projects/1/linelist?format=xlsx",
         "samples/metadata json": "/api/projects/1/samples/metadata"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, url: str) -> None:
    import waitress

    from bench.deployed import bench_settings, deployed_app

    waitress.serve(deployed_app(bench_settings(url)), host="127.0.0.1", port=port, threads=1,
                   _quiet=True)


def prepare(url: str, samples: int, fields: int) -> str:
    from bench.deployed import bench_settings, seed_project, setup
    from seqcore.db.migrations import upgrade

    config = setup(bench_settings(url))
    upgrade(config.get_settings(), config.registry.pm)
    return seed_project(config, samples, fields)


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def fetch(port: int, path: str, token: str) -> tuple[int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    size = 0
    while chunk := response.read(65536):
        size += len(chunk)
    conn.close()
    return response.status, size


def measure(url: str, token: str) -> dict:
    from bench.deployed import wait_for

    found = {}
    for name, path in PATHS.items():
        port = free_port()
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), url])
        try:
            wait_for(port, server)
            fetch(port, "/api/projects/1", token)  # warm: imports, first statements
            idle = peak_kib(server.pid)
            began = time.perf_counter()
            status, size = fetch(port, path, token)
            seconds = time.perf_counter() - began
            assert status == 200, (name, status)
            found[name] = {"seconds": round(seconds, 2), "megabytes": round(size / 1e6, 1),
                           "server_peak_mib": round(peak_kib(server.pid) / 1024, 1),
                           "server_peak_after_start_mib": round(idle / 1024, 1)}
        finally:
            server.terminate()
            server.wait()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--fields", type=int, default=20)
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "URL"), help=argparse.SUPPRESS)
    parser.add_argument("--tiny", action="store_true",
                        help="a small project: checks the benchmark runs")
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    if args.tiny:
        args.samples, args.fields = [100], 2
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.samples:
            url = f"sqlite:///{tmp}/linelist-{count}.sqlite"
            began = time.perf_counter()
            token = prepare(url, count, args.fields)
            print(f"{count} samples x {args.fields} fields loaded in "
                  f"{time.perf_counter() - began:.0f} s", file=sys.stderr)
            results[f"{count} samples"] = measure(url, token)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
