"""IRIDA's StarAMR results exporter (``irida-staramr-results`` 0.3.1 from PyPI), unchanged,
as a program against a real seqcore server on loopback.

seqcore has no staramr: the test loads a small AMR detection type
(:mod:`tests.plugins.amr_detection`) named and with output rels as IRIDA's staramr
workflow, which finds the genes and plasmid replicons of a synthetic panel in the reads
(exact 21-mer coverage) and writes staramr's tables. Two samples' pairs are uploaded,
the analyses launched through the API and run to completion with the test kit; then the
exporter follows links from ``GET /api/`` (``projects``, the project's
``project/analyses``, ``analysisSubmissions``), keeps the completed submissions whose
analysis is ``AMR_DETECTION``, downloads each ``outputFile/staramr-*`` (as JSON for its
``label``, then as ``text/plain``) and writes one workbook; its rows are checked here.

The exporter's own pins: 0.3.1 declares ``pandas`` unbounded, but it reads the workbook
output with ``pandas.read_excel(bytes)`` and appends tables with ``DataFrame.append``, both
gone from pandas 2 and 3, so its virtualenv gets the pandas of its time (``pandas<2``,
``numpy<2``).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from pathlib import Path

import pytest

import seqcore_sequencefiles.plugin
from seqcore.testing.analyses import AnalysisRunner, ReadsUploader
from seqcore.testing.server import live_server
from tests.e2e.client_venvs import ROOT, client_program
from tests.plugins import amr_detection
from tests.plugins.amr_detection_pipeline import PANEL, reverse_complement

PASSWORD = "Staramr-pass1!"
READ_LENGTH, FRAGMENT, STEP = 100, 300, 25

pytestmark = pytest.mark.slow


def genome(seed: int, inserts: list[str]) -> str:
    """Random flanks of 1,000 bases around each inserted sequence."""
    rng = random.Random(seed)

    def flank() -> str:
        return "".join(rng.choice("ACGT") for _ in range(1000))

    return flank() + "".join(insert + flank() for insert in inserts)


def paired_reads(sequence: str, name: str) -> list[tuple[str, bytes]]:
    """Error-free read pairs over the whole sequence: fragments every 25 bases, read 1 the
    fragment's first 100 bases, read 2 the reverse complement of its last 100."""
    first, second = [], []
    starts = list(range(0, len(sequence) - FRAGMENT + 1, STEP))
    if starts[-1] != len(sequence) - FRAGMENT:
        starts.append(len(sequence) - FRAGMENT)
    for n, start in enumerate(starts):
        fragment = sequence[start:start + FRAGMENT]
        for reads, read in ((first, fragment[:READ_LENGTH]),
                            (second, reverse_complement(fragment[-READ_LENGTH:]))):
            reads.append(f"@{name}_{n}\n{read}\n+\n{'I' * READ_LENGTH}\n")
    return [(f"{name}_R1.fastq", "".join(first).encode()),
            (f"{name}_R2.fastq", "".join(second).encode())]


def sequence_of(gene: str) -> str:
    return PANEL[gene][3]


@pytest.fixture
def staramr_app(build_app):
    """The test app with the AMR detection type, over the suite's database and storage."""
    return build_app(plugins=[seqcore_sequencefiles.plugin, amr_detection])


@pytest.fixture
def server(tmp_path, database_url, app_config, staramr_app, monkeypatch):
    """A live server over the same database and storage, loading the same plugins; its
    embedded worker is off (the test kit runs the analyses)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    settings = app_config.get_settings()
    srv = live_server(tmp_path / "server", **{
        "sqlalchemy.url": database_url,
        "seqcore.storage.path": str(settings["seqcore.storage.path"]),
        "seqcore.analysis.work_path": str(settings["seqcore.analysis.work_path"]),
        "seqcore.worker.embedded": "false",
        "seqcore.plugins.enabled": "sequencefiles",
        "seqcore.plugins.modules": "tests.plugins.amr_detection",
        "seqcore.session.secret": "staramr-results-test"})
    srv.start()
    yield srv
    srv.stop()


def read_workbook(python: Path, path: Path) -> dict[str, list[list]]:
    """Every sheet's rows, read with the openpyxl the exporter installed."""
    script = ("import json, sys, openpyxl\n"
              "book = openpyxl.load_workbook(sys.argv[1], read_only=True)\n"
              "print(json.dumps({ws.title: [list(r) for r in ws.iter_rows(values_only=True)]"
              " for ws in book.worksheets}))\n")
    done = subprocess.run([str(python), "-c", script, str(path)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def rows_of(sheet: list[list]) -> list[dict]:
    header, *rows = sheet
    return [dict(zip(header, row, strict=True)) for row in rows]


def test_irida_staramr_results_exports_the_amr_detections(
        staramr_app, server, factories, tmp_path):
    exporter = client_program("irida-staramr-results==0.3.1", "irida-staramr-results",
                              "pandas<2", "numpy<2")
    user = factories.user(username="amr-analyst", password=PASSWORD)
    factories.client("staramr-results", secret="staramr-secret")
    project = factories.project(owner=user, name="AMR surveillance")
    headers = factories.headers(user)
    registry = staramr_app.app.registry
    upload, run = ReadsUploader(staramr_app, registry), AnalysisRunner(staramr_app, registry)

    # AMR-001: ampR whole, the first 80 % of sulR, the first 40 % of tetR (below the 60 %
    # threshold) and the IncFII replicon; AMR-002: tetR on the other strand and ColE1.
    isolates = {
        "AMR-001": genome(1, [sequence_of("syn-ampR"), sequence_of("syn-sulR")[:480],
                              sequence_of("syn-tetR")[:240], sequence_of("syn-IncFII")]),
        "AMR-002": genome(2, [reverse_complement(sequence_of("syn-tetR")),
                              sequence_of("syn-ColE1")]),
    }
    read_counts = {}
    started = time.monotonic()
    for name, sequence in isolates.items():
        sample = factories.sample(project, name=name)
        files = paired_reads(sequence, name)
        read_counts[name] = sum(content.count(b"\n@") + 1 for _, content in files)
        pair = upload(sample, headers, kind="pairs", files=files)
        done = run("amr-detection", [pair], headers, name=f"AMR {name}",
                   projects=[project.id])
        assert done.state == "COMPLETED", done.error
    analysed = time.monotonic() - started

    config = tmp_path / "config.yml"
    config.write_text(f"base-url: {server.url}/api/\nclient-id: staramr-results\n"
                      "client-secret: staramr-secret\n")
    work = tmp_path / "export"
    work.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        [str(exporter), "-p", str(project.id), "-u", "amr-analyst", "-pw", PASSWORD,
         "-c", str(config), "-o", "amr-report"],
        capture_output=True, text=True, cwd=work, timeout=300,
        env={**os.environ, "HOME": str(tmp_path)})
    exported = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    (report,) = work.glob("staramr-results-*/amr-report.xlsx")
    sheets = read_workbook(exporter.parent / "python", report)

    # One sheet per staramr table; no PointFinder (the type runs no point-mutation search).
    assert set(sheets) == {"ResFinder", "Detailed_Summary", "Settings", "Summary",
                           "PlasmidFinder", "MLST_Summary"}
    resfinder = [(r["Isolate ID"], r["Gene"], r["Predicted Phenotype"], r["%Identity"],
                  r["%Overlap"], r["HSP Length/Total Length"], r["Start"], r["End"])
                 for r in rows_of(sheets["ResFinder"])]
    assert resfinder == [
        ("AMR-001", "syn-ampR", "ampicillin", 100, 100, "600/600", 1, 600),
        ("AMR-001", "syn-sulR", "sulfisoxazole", 100, 80, "480/600", 1, 480),
        ("AMR-002", "syn-tetR", "tetracycline", 100, 100, "600/600", 1, 600)]
    plasmids = [(r["Isolate ID"], r["Gene"], r["%Overlap"], r["Accession"])
                for r in rows_of(sheets["PlasmidFinder"])]
    assert plasmids == [("AMR-001", "syn-IncFII", 100, "SYN0101"),
                        ("AMR-002", "syn-ColE1", 100, "SYN0102")]
    summary = [(r["Isolate ID"], r["Genotype"], r["Predicted Phenotype"], r["Plasmid"],
                r["Reads"]) for r in rows_of(sheets["Summary"])]
    assert summary == [
        ("AMR-001", "syn-ampR, syn-sulR", "ampicillin, sulfisoxazole", "syn-IncFII",
         read_counts["AMR-001"]),
        ("AMR-002", "syn-tetR", "tetracycline", "syn-ColE1", read_counts["AMR-002"])]
    detailed = [(r["Isolate ID"], r["Gene"], r["Data Type"])
                for r in rows_of(sheets["Detailed_Summary"])]
    assert detailed == [("AMR-001", "syn-ampR", "Resistance"),
                        ("AMR-001", "syn-sulR", "Resistance"),
                        ("AMR-001", "syn-IncFII", "Plasmid"),
                        ("AMR-002", "syn-tetR", "Resistance"),
                        ("AMR-002", "syn-ColE1", "Plasmid")]
    assert [r["Isolate ID"] for r in rows_of(sheets["MLST_Summary"])] == ["AMR-001", "AMR-002"]
    # settings.txt's "key = value" lines, one row of strings per analysis.
    settings = rows_of(sheets["Settings"])
    assert [s["reads"] for s in settings] == [str(read_counts["AMR-001"]),
                                              str(read_counts["AMR-002"])]
    assert {s["plength_threshold_resfinder"] for s in settings} == {"60.0"}
    print(f"\nAMR detection: 2 uploads and analyses in {analysed:.1f} s; "
          f"irida-staramr-results export in {exported:.1f} s")
