"""What running a pipeline through seqcore's WES executor costs beside the WES server itself.

A do-nothing CWL pipeline (one ``true`` step, no outputs), declared as a pipeline descriptor,
runs on the GA4GH reference WES server (``wes-service`` with cwltool, installed into
``var/wes-venv`` on first use, as the plugin's tests do). In the same run:

* anchor: the same workflow submitted straight to the server (``POST /runs``, then
  ``GET /runs/{id}/status`` every 0.1 s until ``COMPLETE``);
* seqcore: one submission from launch to ``COMPLETED`` (samplesheet, run request,
  following, collecting the outputs, storing them), the worker polling every 0.1 s.

Median of ``--repeat`` runs each; the ratio is seqcore's time over the server's own.

    .venv/bin/python bench/wes.py [--repeat 5] [--tiny]

``--tiny`` (one run each) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "plugins" / "seqcore-wes" / "tests"))

NOOP_CWL = """cwlVersion: v1.0
class: CommandLineTool
baseCommand: ["true"]
inputs:
  input: {type: File}
outputs: []
"""
PIPELINES = {"bench/noop": {
    "url": "https://example.org/bench/noop", "name": "bench/noop",
    "description": "Does nothing", "engine": "CWL", "engine_version": "v1.0",
    "workflow_url": "noop.cwl", "versions": [{"name": "1"}]}}
SCHEMA = {"$schema": "http://json-schema.org/draft-07/schema", "type": "object",
          "definitions": {"io": {"type": "object", "properties": {
              "input": {"type": "string"}, "outdir": {"type": "string"}}}}}


def descriptors(root: Path) -> Path:
    version = root / "bench" / "noop" / "1"
    version.mkdir(parents=True)
    (root / "pipelines.json").write_text(json.dumps(PIPELINES))
    (version / "nextflow_schema.json").write_text(json.dumps(SCHEMA))
    (version / "noop.cwl").write_text(NOOP_CWL)
    return root


def direct(url: str, workflow: Path, sheet: Path) -> float:
    from seqcore_wes.client import WesClient

    client = WesClient(url)
    start = time.perf_counter()
    run_id = client.submit("noop.cwl", "CWL", "v1.0",
                           {"input": {"class": "File", "location": sheet.as_uri()}},
                           [workflow])
    while (state := client.status(run_id)) not in ("COMPLETE", "EXECUTOR_ERROR",
                                                   "SYSTEM_ERROR"):
        time.sleep(0.1)
    assert state == "COMPLETE", state
    return time.perf_counter() - start


def build(tmp: Path, url: str, pipelines: Path):
    from bench.deployed import setup
    from seqcore.db.migrations import upgrade
    from seqcore.services import ISessionFactory, registry_service
    from seqcore.testing.factories import Factories

    settings = {"sqlalchemy.url": f"sqlite:///{tmp / 'bench.sqlite'}",
                "seqcore.storage.path": str(tmp / "storage"),
                "seqcore.analysis.work_path": str(tmp / "work"),
                "seqcore.wes.url": url, "seqcore.pipelines.dir": str(pipelines),
                "seqcore.password_hash.time_cost": 1, "seqcore.password_hash.memory_cost": 64}
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    kinds = {k.name: k for k in config.registry.get("seqcore.file_kinds", {}).values()}
    factories = Factories(registry_service(config.registry, ISessionFactory),
                          config.get_settings(), kinds)
    owner = factories.user()
    pair = factories.sequencing_object(factories.sample(factories.project(owner=owner)),
                                       "pairs")
    return config, owner, pair


def through_seqcore(config, owner, pair) -> float:
    import transaction

    from seqcore.analysis.registry import analysis_registry
    from seqcore.analysis.service import create_submission
    from seqcore.analysis.worker import AnalysisWorker
    from seqcore.db import session_for
    from seqcore.models.analysis import AnalysisSubmission
    from seqcore.models.sequencing import SequencingObject
    from seqcore.services import ISessionFactory, registry_service

    noop = analysis_registry(config.registry).type("bench-noop-1")
    factory = registry_service(config.registry, ISessionFactory)
    start = time.perf_counter()
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(factory, manager)
        sub = create_submission(db, noop, name="noop", inputs=[db.get(SequencingObject,
                                                                       pair.id)],
                                parameters={}, project_ids=[], update_samples=False,
                                priority="MEDIUM", submitter_id=owner.id)
        submission_id = sub.id
    AnalysisWorker(config.registry).run_until_idle(timeout=600, interval=0.1)
    elapsed = time.perf_counter() - start
    session = factory()
    state = session.get(AnalysisSubmission, submission_id).state
    error = session.get(AnalysisSubmission, submission_id).error
    session.close()
    assert state == "COMPLETED", (state, error)
    return elapsed


def main() -> None:
    from wes_server import WesServer, cache_dir, wes_venv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tiny", action="store_true", help="one run each: checks the "
                        "benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.repeat = 1
    (ROOT / "var").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp:
        tmp_path = Path(tmp)
        (tmp_path / "server").mkdir()
        server = WesServer(wes_venv(cache_dir()), tmp_path / "server")
        server.start()
        try:
            pipelines = descriptors(tmp_path / "pipelines")
            workflow = pipelines / "bench" / "noop" / "1" / "noop.cwl"
            sheet = tmp_path / "samplesheet.csv"
            sheet.write_text("sample\n1\n")
            config, owner, pair = build(tmp_path, server.url, pipelines)
            anchors, seqcore = [], []
            for _ in range(args.repeat):  # interleaved, so both see the same machine load
                anchors.append(direct(server.url, workflow, sheet))
                seqcore.append(through_seqcore(config, owner, pair))
        finally:
            server.stop()
    anchor, ours = statistics.median(anchors), statistics.median(seqcore)
    print(json.dumps({"wes_direct_s": round(anchor, 3), "seqcore_launch_to_completed_s":
                      round(ours, 3), "overhead_s": round(ours - anchor, 3),
                      "seqcore_vs_wes_direct": round(ours / anchor, 2),
                      "repeat": args.repeat}, indent=2))


if __name__ == "__main__":
    main()
