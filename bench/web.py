"""The workbench's pages against the REST calls that return the same data, in one process.

A fresh SQLite database (or ``--database-url``) is filled with one project of ``--samples``
samples (100,000 by default) and ``--fields`` metadata fields each (20). Then, through WebTest
on the same application, each pair is timed (median of ``--repeat`` runs, pages and API calls
taking turns so a loaded machine weighs on both alike):

* the project page's first page (25 rows, every field as a column) against
  ``GET /api/projects/1/samples?limit=25`` (the same samples, without their metadata) and
  ``GET /api/projects/1/samples/metadata`` (every sample's metadata: what a client that
  wants the same columns must read);
* the sample page against ``GET /api/samples/{id}`` plus ``GET /api/samples/{id}/metadata``;
* a file's QC report page (verdicts and plots of the engine's report on 100,000 generated
  150 bp reads) against ``GET .../files/{id}/qc``, the QC record it is drawn from.

It also counts the SQL statements of the project page at 25 and 100 rows per page, which
must be equal. Printed as JSON, with ratios to the REST call measured in the same run.

    .venv/bin/python bench/web.py [--samples 100000] [--fields 20] [--repeat 5] [--reads 100000]
        [--tiny]

``--tiny`` (200 samples, 8 fields, 2,000 reads, one run) checks the benchmark runs; its
figures mean little.
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

PASSWORD = "Bench-password-1"


def prepare(url: str, samples: int, fields: int, tmp: str, reads: int = 100_000):
    from bench.deployed import bench_settings, seed_project, served, setup
    from seqcore.db.migrations import upgrade
    from seqcore.security.passwords import hash_password

    config = setup(bench_settings(url, **{"seqcore.password_hash.time_cost": 1,
                                          "seqcore.password_hash.memory_cost": 64}))
    upgrade(config.get_settings(), config.registry.pm)
    token = seed_project(config, samples, fields, hash_password(PASSWORD, 1, 64))
    qc_ids = add_qc_file(config, samples // 2, tmp, reads)
    return served(config), token, qc_ids


def add_qc_file(config, sample_id: int, tmp: str, reads: int = 100_000) -> tuple[int, int]:
    """An unpaired file on ``sample_id`` with the QC record of ``reads`` generated 150 bp
    reads; returns (object id, file id)."""
    import random

    import transaction

    from seqcore.db import session_for
    from seqcore.models.sequencing import (
        QCRecord,
        SequenceFile,
        SequencingObject,
        SequencingObjectFile,
    )
    from seqcore.qc import FastQCCompatibleEngine
    from seqcore.services import ISessionFactory, registry_service

    rng = random.Random(1)
    path = Path(tmp) / "reads.fastq"
    with open(path, "w") as out:
        for index in range(reads):
            sequence = "".join(rng.choices("ACGT", k=150))
            quality = "".join(chr(33 + max(2, min(40, int(rng.gauss(34 - p / 15, 5)))))
                              for p in range(150))
            out.write(f"@r{index}\n{sequence}\n+\n{quality}\n")
    report = FastQCCompatibleEngine(processes=1).run(path)
    factory = registry_service(config.registry, ISessionFactory)
    with transaction.manager:
        db = session_for(factory, transaction.manager)
        stored = SequenceFile(path="bench/reads.fastq", file_name="reads.fastq",
                              size=path.stat().st_size)
        obj = SequencingObject(sample_id=sample_id, kind="unpaired",
                               processing_state="FINISHED")
        obj.links.append(SequencingObjectFile(position=0, file=stored))
        db.add(obj)
        db.flush()
        db.add(QCRecord(file_id=stored.id, report=report.to_dict(), engine="bench"))
        ids = (obj.id, stored.id)
    return ids


def timed(call, repeat: int) -> tuple[float, list[float]]:
    runs = []
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        runs.append(time.perf_counter() - began)
    return statistics.median(runs), runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--fields", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reads", type=int, default=100_000,
                        help="reads of the file whose QC report page is timed")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--tiny", action="store_true",
                        help="a small project, one run: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.samples, args.fields, args.repeat, args.reads = 200, 8, 1, 2000
    if args.fields < 8 or args.samples < 2:
        parser.error("--fields 8 at least (the page is sorted by field_07), --samples 2")

    from sqlalchemy import event
    from webtest import TestApp

    from seqcore.services import IDatabaseEngine, registry_service

    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{tmp}/web.sqlite"
        began = time.perf_counter()
        app, token, (object_id, file_id) = prepare(url, args.samples, args.fields, tmp,
                                                   args.reads)
        print(f"{args.samples} samples x {args.fields} fields loaded in "
              f"{time.perf_counter() - began:.0f} s", file=sys.stderr)
        browser = TestApp(app, extra_environ={"HTTP_HOST": "localhost"})
        form = browser.get("/users/sign_in").form
        form["username"], form["password"] = "bench", PASSWORD
        form.submit(status=303)
        api = TestApp(app, extra_environ={"HTTP_HOST": "localhost"})
        bearer = {"Authorization": f"Bearer {token}"}
        sample_id = args.samples // 2

        pairs = {
            "project page, first page (25 rows x all fields)": (
                lambda: browser.get("/-/projects/1"),
                {"REST samples?limit=25 (no metadata)":
                 lambda: api.get("/api/projects/1/samples?limit=25", headers=bearer),
                 "REST samples/metadata (every sample)":
                 lambda: api.get("/api/projects/1/samples/metadata", headers=bearer)}),
            "project page sorted by a metadata field": (
                lambda: browser.get("/-/projects/1?sort=m:field_07&direction=desc"), {}),
            "project page filtered by a metadata value": (
                lambda: browser.get("/-/projects/1?field=field_03&value=value%2012345-"), {}),
            "sample page": (
                lambda: browser.get(f"/-/samples/{sample_id}"),
                {"REST sample + its metadata": lambda: (
                    api.get(f"/api/samples/{sample_id}", headers=bearer),
                    api.get(f"/api/samples/{sample_id}/metadata", headers=bearer))}),
            f"QC report page ({args.reads:,} reads of 150 bp)": (
                lambda: browser.get(f"/-/files/{file_id}/qc"),
                {"REST QC record": lambda: api.get(
                    f"/api/samples/{sample_id}/unpaired/{object_id}/files/{file_id}/qc",
                    headers=bearer)}),
        }
        results: dict = {}
        for name, (page, anchors) in pairs.items():
            page()  # warm
            for anchor in anchors.values():
                anchor()
            page_seconds, _ = timed(page, args.repeat)
            entry = {"page_ms": round(page_seconds * 1000, 1)}
            for anchor_name, anchor in anchors.items():
                anchor_seconds, _ = timed(anchor, args.repeat)
                entry[anchor_name + " ms"] = round(anchor_seconds * 1000, 1)
                entry[f"page / {anchor_name}"] = round(page_seconds / anchor_seconds, 2)
            results[name] = entry

        engine = registry_service(app.registry, IDatabaseEngine)
        counts = {}
        for size in (25, 100):
            statements: list[str] = []

            def count(*a, statements=statements, **k):
                statements.append(a[2])

            event.listen(engine, "before_cursor_execute", count)
            browser.get(f"/-/projects/1?per_page={size}")
            event.remove(engine, "before_cursor_execute", count)
            counts[f"{size} rows"] = len(statements)
        results["SQL statements of the project page"] = counts
        statements = []
        event.listen(engine, "before_cursor_execute", lambda *a, **k: statements.append(a[2]))
        browser.get(f"/-/files/{file_id}/qc")
        results["SQL statements of the QC report page"] = len(statements)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
