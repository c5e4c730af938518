"""Collecting a finished run's outputs as the WES server lists them (CWL ``File`` and
``Directory`` objects, ``file://`` locations), and the ``iridanext.output.json.gz``
convention: a pipeline that writes none still has its declared output, and a manifest may
only name files the run output."""

from __future__ import annotations

import gzip
import json

import pytest

from seqcore_wes import outputs


def cwl_file(path):
    return {"class": "File", "location": path.as_uri(), "basename": path.name}


def test_a_manifest_maps_global_and_sample_files(tmp_path):
    run = tmp_path / "server" / "outdir" / "output"
    (run / "reads").mkdir(parents=True)
    (run / "summary.txt").write_text("all\n")
    (run / "reads" / "7.txt").write_text("seven\n")
    with gzip.open(run / outputs.IRIDANEXT_OUTPUT, "wt") as handle:
        json.dump({"files": {"global": [{"path": "summary.txt"}],
                             "samples": {"7": [{"path": "reads/7.txt"}]}},
                   "metadata": {"samples": {"7": {"a": {"b": True, "c": 2}}}}}, handle)
    listed = {"output": {"class": "Directory", "location": run.as_uri(), "listing": [
        cwl_file(run / outputs.IRIDANEXT_OUTPUT), cwl_file(run / "summary.txt"),
        {"class": "Directory", "location": (run / "reads").as_uri(),
         "listing": [cwl_file(run / "reads" / "7.txt")]}]}}
    job = tmp_path / "job"
    job.mkdir()
    collected = outputs.collect(listed, job, download=None)
    assert set(collected) == {"iridanext-output", "global-summary.txt", "sample-7-reads-7.txt"}
    assert (job / "outputs" / "reads" / "7.txt").read_text() == "seven\n"
    manifest = outputs.read_manifest(job / "outputs" / outputs.IRIDANEXT_OUTPUT)
    assert outputs.flatten(manifest["metadata"]["samples"]["7"]) == {"a.b": "true", "a.c": "2"}


def test_a_pipeline_that_writes_no_manifest_still_has_its_output(tmp_path):
    collected = outputs.collect({}, tmp_path, download=None)
    assert set(collected) == {"iridanext-output"}
    with gzip.open(collected["iridanext-output"], "rt") as handle:
        assert json.load(handle) == outputs.EMPTY


def test_a_manifest_naming_a_file_outside_the_output_is_refused(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (tmp_path / "secret.txt").write_text("no")
    with gzip.open(run / outputs.IRIDANEXT_OUTPUT, "wt") as handle:
        json.dump({"files": {"global": [{"path": "../secret.txt"}]}}, handle)
    job = tmp_path / "job"
    job.mkdir()
    with pytest.raises(ValueError, match="which the run did not output"):
        outputs.collect([cwl_file(run / outputs.IRIDANEXT_OUTPUT)], job, download=None)
