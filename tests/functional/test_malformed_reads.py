"""Malformed sequence files are refused on arrival with a 400 naming the problem, or, where
the fault lies beyond what an upload reads on arrival (the first 64 KiB) or needs every read
(a pair's read counts), marked ``ERROR`` by processing with the reason the user sees."""

from __future__ import annotations

import pytest

from seqcore.models.sequencing import SequencingObject
from seqcore.testing.contracts import stored_files
from seqcore.testing.uploads import fastq, gz, multipart, parameters
from seqcore.testing.workers import Worker

GOOD = b"@r1\nACGT\n+\nIIII\n"


@pytest.fixture
def owner_sample(factories):
    owner = factories.user()
    return owner, factories.sample(factories.project(owner=owner))


def post(testapp, factories, owner, sample, parts, segment, status):
    body, content_type = multipart([*parts, parameters()] if segment == "unpaired" else parts)
    return testapp.post(f"/api/samples/{sample.id}/{segment}", body, status=status,
                        headers={**factories.headers(owner), "Content-Type": content_type})


@pytest.mark.parametrize(("content", "problem"), [
    (GOOD + b"@r2\n\n+\n\n" + GOOD, "record 2 is empty: it has no bases."),
    (GOOD + b"@r2\nAC\x00T\n+\nIIII\n", "record 2 holds a NUL byte."),
    (gz(GOOD + b"@r2\nAC\x00T\n+\nIIII\n"), "record 2 holds a NUL byte."),
    (GOOD + b"@r2\nACGT\n+\nIII\n", "record 2's sequence and quality lengths differ."),
])
def test_bad_records_on_arrival_are_refused(testapp, factories, db, app_config, owner_sample,
                                            content, problem):
    owner, sample = owner_sample
    res = post(testapp, factories, owner, sample, [("file", "reads.fastq", content, None)],
               "unpaired", 400)
    assert problem in res.json["message"]
    assert db.query(SequencingObject).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


def processed(testapp, factories, app_config, owner, location):
    Worker(app_config.registry).run_until_idle()
    href = location.replace("http://localhost", "")
    return testapp.get(href, headers=factories.headers(owner)).json["resource"]


@pytest.mark.parametrize(("tail", "problem"), [
    (b"@late\n\n+\n\n", "reads.fastq holds an empty record (a read without bases)"),
    (b"@late\nAC\x00T\n+\nIIII\n", "holds a NUL byte"),
])
def test_bad_records_further_on_fail_processing(testapp, factories, app_config, owner_sample,
                                                tail, problem):
    owner, sample = owner_sample
    content = fastq(reads=2000, length=60) + tail
    res = post(testapp, factories, owner, sample, [("file", "reads.fastq", content, None)],
               "unpaired", 201)
    obj_url = res.json["resource"]["links"][-1]["href"]
    obj = processed(testapp, factories, app_config, owner, obj_url)
    assert obj["processingState"] == "ERROR"
    assert problem in obj["processingError"]


def test_a_pair_with_different_read_counts_fails_processing(testapp, factories, app_config,
                                                            owner_sample):
    owner, sample = owner_sample
    res = post(testapp, factories, owner, sample, [
        ("file1", "iso_R1.fastq", fastq(reads=20, seed=1), None),
        ("file2", "iso_R2.fastq", fastq(reads=19, seed=2), None),
        ("parameters1", None, b"{}", "application/json"),
        ("parameters2", None, b"{}", "application/json")], "pairs", 201)
    obj = processed(testapp, factories, app_config, owner, res.headers["Location"])
    assert obj["processingState"] == "ERROR"
    assert obj["processingError"] == ("QC failed: the files of this pair hold different "
                                      "numbers of reads (iso_R1.fastq: 20, iso_R2.fastq: 19)")
