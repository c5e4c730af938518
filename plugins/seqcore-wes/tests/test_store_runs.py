"""The WES executor on an object store (an S3 bucket on moto), without a WES server: a
Nextflow run gets the samplesheet as a signed URL and the store's URI of its output
directory; its outputs are read back from the store (the URIs a run log names, or the whole
output directory when it names none), and the run's objects go once they are collected."""

from __future__ import annotations

import gzip
import json
import urllib.request
from pathlib import Path

import pytest

from seqcore_wes import outputs
from seqcore_wes.executor import WesExecutor, run_params


@pytest.fixture
def executor(s3_server, tmp_path):
    return WesExecutor({**s3_server.settings(),
                        "seqcore.storage.path": str(tmp_path / "scratch"),
                        "seqcore.wes.url": "http://127.0.0.1:9/ga4gh/wes/v1",
                        "seqcore.analysis.input_url_hours": 2})


def _manifest(path):
    with gzip.open(path, "wt") as handle:
        json.dump({"files": {"global": [{"path": "summary.txt"}], "samples": {}},
                   "metadata": {"samples": {}}}, handle)


def test_a_nextflow_run_reads_and_writes_the_store(executor, tmp_path):
    store = executor.store
    job = tmp_path / "12-0"
    job.mkdir()
    sheet = job / "samplesheet.csv"
    sheet.write_text("sample,fastq_1\ns1,https://store.example/r1\n")
    key = store.put_run_file(job.name, sheet.name, sheet)
    url = store.signed_url(key, "GET", executor.url_seconds)
    assert "X-Amz-Expires=7200" in url
    with urllib.request.urlopen(url) as res:
        assert res.read() == sheet.read_bytes()
    outdir = store.location(key.rsplit("/", 1)[0] + "/output")
    params = run_params({"parameters": {"x": 1}, "data": {"engine": "NFL"}}, url, outdir)
    assert params == {"x": 1, "input": url,
                      "outdir": f"s3://{store.backend.bucket}/runs/12-0/output"}

    # The engine wrote its outputs into the store; the run log names none.
    made = tmp_path / "made"
    made.mkdir()
    _manifest(made / outputs.IRIDANEXT_OUTPUT)
    (made / "summary.txt").write_text("all\n")
    for name in (outputs.IRIDANEXT_OUTPUT, "summary.txt"):
        store.backend.put_file(f"runs/12-0/output/{name}", made / name)
    collected = outputs.collect(executor._run_outputs({}, job), job, executor._download)
    assert Path(collected["global-summary.txt"]).read_text() == "all\n"
    assert collected[outputs.OUTPUT_KEY].startswith(str(job))
    executor._finish(job, {"status": "ok", "outputs": collected})
    assert store.run_keys("12-0") == []


def test_outputs_named_by_the_store_must_be_in_its_bucket(executor, tmp_path):
    with pytest.raises(ValueError, match="not in"):
        executor._download("s3://another-bucket/x.txt", tmp_path / "x.txt")
