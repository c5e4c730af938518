"""What the analysis framework costs by itself, with a pipeline that does nothing.

For the local executor and the Celery executor (Redis broker, a real Celery worker process),
in the same run:

* latency of one submission from launch to COMPLETED, beside the anchor of starting a bare
  Python process (what the local executor pays per job at least);
* how many submissions per minute one seqcore worker drives (``--count`` submissions,
  ``seqcore.analysis.max_running`` of them at once).

    .venv/bin/python bench/analysis.py [--count 40] [--running 4] [--skip-celery] [--tiny]

``--tiny`` (2 submissions, one at a time; Celery only when Redis answers on
127.0.0.1:6379) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from seqcore.services import ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))


def build(tmp: Path, executor: str, running: int, queue: str) -> tuple:
    import transaction

    from bench.deployed import setup
    from seqcore.db.migrations import upgrade
    from seqcore.testing.factories import Factories

    url = f"sqlite:///{tmp / f'{executor}.sqlite'}"
    settings = {"sqlalchemy.url": url, "seqcore.storage.path": str(tmp / "storage"),
                "seqcore.analysis.work_path": str(tmp / "work"),
                "seqcore.analysis.executor": executor,
                "seqcore.analysis.max_running": running,
                "seqcore.celery.broker_url": "redis://127.0.0.1:6379/0",
                "seqcore.celery.queue": queue,
                # The benchmark's own analysis type, as a site plugin beside the installed ones.
                "seqcore.plugins.modules": "bench.noop_pipeline",
                "seqcore.password_hash.time_cost": 1, "seqcore.password_hash.memory_cost": 64}
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    factories = Factories(registry_service(config.registry, ISessionFactory), config.get_settings())
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    del transaction
    return config, owner, pair


def launch(config, owner, pair, count: int) -> list[int]:
    import transaction

    from seqcore.analysis.registry import analysis_registry
    from seqcore.analysis.service import create_submission
    from seqcore.db import session_for
    from seqcore.models.sequencing import SequencingObject

    noop = analysis_registry(config.registry).type("noop")
    ids = []
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(registry_service(config.registry, ISessionFactory), manager)
        obj = db.get(SequencingObject, pair.id)
        for _ in range(count):
            sub = create_submission(db, noop, name="noop", inputs=[obj], parameters={},
                                    project_ids=[], update_samples=False, priority="MEDIUM",
                                    submitter_id=owner.id)
            ids.append(sub.id)
    return ids


def drive(config, interval: float = 0.02) -> float:
    from seqcore.analysis.worker import AnalysisWorker

    worker = AnalysisWorker(config.registry)
    start = time.perf_counter()
    worker.run_until_idle(timeout=1800, interval=interval)
    return time.perf_counter() - start


def check_completed(config, ids: list[int]) -> None:
    from seqcore.models.analysis import AnalysisSubmission

    session = registry_service(config.registry, ISessionFactory)()
    states = {s.state for s in session.query(AnalysisSubmission).filter(
        AnalysisSubmission.id.in_(ids))}
    session.close()
    assert states == {"COMPLETED"}, states


def measure(tmp: Path, executor: str, count: int, running: int, queue: str) -> dict:
    config, owner, pair = build(tmp, executor, running, queue)
    latencies = []
    for _ in range(3):
        ids = launch(config, owner, pair, 1)
        latencies.append(drive(config))
        check_completed(config, ids)
    ids = launch(config, owner, pair, count)
    elapsed = drive(config)
    check_completed(config, ids)
    return {"executor": executor, "latency_s": round(statistics.median(latencies), 3),
            "submissions": count, "elapsed_s": round(elapsed, 2),
            "per_minute": round(count / elapsed * 60, 1)}


def python_start() -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def redis_answers() -> bool:
    """Whether a Redis server answers on 127.0.0.1:6379 (the broker the Celery run uses)."""
    import socket

    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--running", type=int, default=4)
    parser.add_argument("--skip-celery", action="store_true")
    parser.add_argument("--tiny", action="store_true",
                        help="2 submissions, one at a time: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.count, args.running = 2, 1
        if not args.skip_celery and not redis_answers():
            print("celery: skipped (no Redis on 127.0.0.1:6379)", file=sys.stderr)
            args.skip_celery = True
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    anchor = python_start()
    results = {"python_start_s": round(anchor, 3)}
    (ROOT / "var").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp:
        tmp_path = Path(tmp)
        local = measure(tmp_path / "local", "local", args.count, args.running, "unused")
        local["latency_vs_python_start"] = round(local["latency_s"] / anchor, 2)
        results["local"] = local
        if not args.skip_celery:
            queue = f"seqcore-bench-{uuid.uuid4().hex[:8]}"
            celery = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "seqcore_celery.worker", "worker",
                 "--pool", "prefork", "--concurrency", str(args.running), "-Q", queue,
                 "--without-gossip", "--without-mingle", "--loglevel", "WARNING"],
                env={**os.environ, "SEQCORE_CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                time.sleep(3)
                remote = measure(tmp_path / "celery", "celery", args.count, args.running, queue)
                remote["latency_vs_python_start"] = round(remote["latency_s"] / anchor, 2)
                results["celery"] = remote
            finally:
                celery.terminate()
                celery.wait(timeout=30)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
