"""Upload to typed sample: one Salmonella-like genome through the serotyper, by step.

A Salmonella-like genome of ``--genome-mb`` (the 330 cgMLST alleles of a Typhimurium
reference genome and a B / i / 1,2 antigen set from the data inside ``sistr_cmd``, in
random spacer DNA with repeat families) and 2x150 bp reads at ``--coverage``. The project
runs the serotyper automatically (writing results back), as a surveillance lab would set it
up; then, in one process:

* upload: the pair POSTed as multipart through the REST stack (WSGI, in-process);
* QC: the processing worker's round (QC of both files), which also launches the analysis;
* merge, assembly, filter, sistr: the pipeline's own step times (``timings.json``);
* write-back: the metadata written from the predictions;
* the rest: launching, the analysis worker's rounds, storing the outputs.

It prints each figure as JSON, and checks the sample was typed as the genes used.

    .venv/bin/python bench/serotyper.py [--genome-mb 5] [--coverage 40] [--assembler megahit]

SPAdes on 5 Mb at 40x takes 10-20 minutes on 2 cores; MEGAHIT 3-4. ``--tiny`` (the genes
alone, about 0.35 Mb, at 15x, SISTR's centroid database, the worker polling every 0.2 s)
checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from seqcore.services import ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "plugins" / "seqcore-assembly" / "tests"))  # simulate.py
sys.path.insert(0, str(ROOT / "plugins" / "seqcore-serotyper" / "tests"))  # salmonella.py

THREADS = 2
MEMORY_GB = 8
_write_back_s: list[float] = []


def timed_write_back() -> None:
    """Time the plugin's write-back where the worker calls it (installed before the app is
    configured, which is when the plugin hands its function to the framework)."""
    import seqcore_serotyper.results as results

    original = results.write_back

    def write_back(ctx: Any) -> None:
        start = time.perf_counter()
        try:
            original(ctx)
        finally:
            _write_back_s.append(time.perf_counter() - start)

    results.write_back = write_back


def build(tmp: Path) -> Any:
    from bench.deployed import setup
    from seqcore.db.migrations import upgrade

    settings = {"sqlalchemy.url": f"sqlite:///{tmp / 'bench.sqlite'}",
                "seqcore.storage.path": str(tmp / "storage"),
                "seqcore.analysis.work_path": str(tmp / "work"),
                "seqcore.analysis.threads": THREADS,
                "seqcore.assembly.memory_gb": MEMORY_GB,
                "seqcore.password_hash.time_cost": 1, "seqcore.password_hash.memory_cost": 64}
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    return config


def pipeline_wall(work_dir: Path) -> float:
    """From the job log's first line to its last (the pipeline inside the executor)."""
    from datetime import datetime

    lines = [line for line in (work_dir / "pipeline.log").read_text().splitlines()
             if line[:4].isdigit()]

    def stamp(line: str) -> datetime:
        return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")

    return (stamp(lines[-1]) - stamp(lines[0])).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genome-mb", type=float, default=5.0)
    parser.add_argument("--coverage", type=float, default=40.0)
    parser.add_argument("--assembler", default="megahit", choices=("megahit", "spades"))
    parser.add_argument("--quick", action="store_true",
                        help="SISTR's centroid cgMLST database instead of the full one")
    parser.add_argument("--poll", type=float, default=1.0,
                        help="seconds between the analysis worker's rounds")
    parser.add_argument("--tiny", action="store_true",
                        help="the genes alone at 15x: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.genome_mb, args.coverage, args.quick, args.poll = 0.35, 15.0, True, 0.2

    from salmonella import salmonella_like
    from simulate import simulate_reads
    from webtest import TestApp

    from bench.deployed import served
    from seqcore.analysis.worker import AnalysisWorker
    from seqcore.qc.processing import Worker
    from seqcore.testing.factories import Factories
    from seqcore.testing.uploads import multipart

    timed_write_back()
    results: dict = {"genome_mb": args.genome_mb, "coverage": args.coverage,
                     "threads": THREADS, "assembler": args.assembler,
                     "cgmlst_db": "centroid" if args.quick else "full"}
    (ROOT / "var").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp_name:
        tmp = Path(tmp_name)
        start = time.perf_counter()
        genome = salmonella_like(int(args.genome_mb * 1_000_000), seed=5,
                                 families=((1500, 5), (5000, 3)))
        r1, r2 = tmp / "bench_R1.fastq", tmp / "bench_R2.fastq"
        results["pairs"] = simulate_reads(genome.sequence, args.coverage, r1, r2, seed=6)
        results["simulate_s"] = round(time.perf_counter() - start, 1)
        results["fastq_mb"] = round((r1.stat().st_size + r2.stat().st_size) / 1e6, 1)
        print(json.dumps({k: results[k] for k in ("pairs", "simulate_s", "fastq_mb")}),
              flush=True)

        config = build(tmp)
        app = TestApp(served(config))
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings())
        owner = factories.user()
        project = factories.project(owner=owner)
        sample = factories.sample(project, name="SAL-BENCH")
        headers = factories.headers(owner)
        app.put_json(f"/api/projects/{project.id}/automatedAnalyses", {"analysisTypes": [{
            "type": "serotyper", "parameters": {"assembler": args.assembler,
                                                "use_full_cgmlst_db": not args.quick}}]},
            headers=headers)
        body, content_type = multipart([("file1", r1.name, r1.read_bytes(), None),
                                        ("file2", r2.name, r2.read_bytes(), None)])
        steps: dict[str, float] = {}
        began = time.perf_counter()
        app.post(f"/api/samples/{sample.id}/pairs", body,
                 headers={**headers, "Content-Type": content_type}, status=201)
        steps["upload"] = time.perf_counter() - began
        del body
        mark = time.perf_counter()
        Worker(config.registry).run_until_idle()
        steps["qc"] = time.perf_counter() - mark
        mark = time.perf_counter()
        AnalysisWorker(config.registry).run_until_idle(timeout=7200, interval=args.poll)
        analysis_s = time.perf_counter() - mark
        total = time.perf_counter() - began

        (entry,) = app.get(f"/api/projects/{project.id}/analyses/serotyper",
                           headers=headers).json["resource"]["resources"]
        assert entry["analysisState"] == "COMPLETED", entry
        submission = app.get(f"/api/analysisSubmissions/{entry['identifier']}",
                             headers=headers).json["resource"]
        work_dir = Path(submission["remoteInputDataId"])
        for step, seconds in json.loads((work_dir / "timings.json").read_text()).items():
            steps[step] = seconds
        steps["write_back"] = sum(_write_back_s)
        inside = pipeline_wall(work_dir)
        steps["launch_store_and_worker_rounds"] = analysis_s - inside - steps["write_back"]
        metadata = app.get(f"/api/samples/{sample.id}/metadata", headers=headers).json[
            "resource"]["metadata"]
        typed = {field: entry["value"] for field, entry in metadata.items()}
        results["steps_s"] = {k: round(v, 1) for k, v in steps.items()}
        results["pipeline_other_s"] = round(inside - sum(
            steps[k] for k in ("merge", "assembly", "filter", "sistr")), 1)
        results["upload_to_typed_s"] = round(total, 1)
        results["typed"] = typed
        results["expected"] = {k: genome.expected[k] for k in ("serovar", "serogroup")}
        assert typed["serovar"] == genome.expected["serovar"], typed
        assert typed["serogroup"] == genome.expected["serogroup"], typed
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
