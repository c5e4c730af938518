"""Upload reads, launch readstats, run it, and read the histogram back over REST and GraphQL."""

from __future__ import annotations

import json

import pytest

from seqcore.testing.uploads import fastq, gz

QUERY = "query($id: ID!) { readLengthHistogram(sampleId: $id) { length count } }"


@pytest.fixture
def world(factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    return owner, sample, factories.headers(owner)


def single_end(upload_reads, sample, headers, content, name="reads.fastq"):
    return upload_reads(sample, headers, kind="unpaired", files=[(name, content)])


def histogram(graphql, user, sample):
    return graphql.as_user(user)(QUERY, {"id": f"gid://seqcore/Sample/{sample.id}"})


def test_histogram_written_back_and_queried(testapp, graphql, world, upload_reads,
                                            run_analysis):
    owner, sample, headers = world
    reads = fastq(reads=5, length=35, seed=1, name="a") + fastq(reads=3, length=72, seed=2,
                                                                 name="b")
    first = single_end(upload_reads, sample, headers, reads)
    second = single_end(upload_reads, sample, headers, gz(fastq(reads=2, length=38, seed=3)),
                        "more.fq.gz")
    run = run_analysis("readstats", [first, second], headers, {"bin_width": "10"},
                       writeResultsToSamples=True)
    assert run.state == "COMPLETED", run.error

    metadata = testapp.get(f"/api/samples/{sample.id}/metadata",
                           headers=headers).json["resource"]["metadata"]
    assert metadata["read count"]["value"] == "10"
    assert metadata["mean read length"]["value"] == str(round((5 * 35 + 3 * 72 + 2 * 38) / 10, 1))
    assert json.loads(metadata["read length histogram"]["value"]) == [[30, 7], [70, 3]]
    assert histogram(graphql, owner, sample) == {"data": {"readLengthHistogram": [
        {"length": 30, "count": 7}, {"length": 70, "count": 3}]}}


def test_without_write_back_the_sample_is_untouched(testapp, graphql, world, upload_reads,
                                                    run_analysis):
    owner, sample, headers = world
    run = run_analysis("readstats", [single_end(upload_reads, sample, headers, fastq())],
                       headers, writeResultsToSamples=False)
    assert run.state == "COMPLETED", run.error
    metadata = testapp.get(f"/api/samples/{sample.id}/metadata",
                           headers=headers).json["resource"]["metadata"]
    assert "read length histogram" not in metadata
    assert histogram(graphql, owner, sample) == {"data": {"readLengthHistogram": None}}


def test_a_stranger_sees_no_histogram(graphql, factories, world, upload_reads, run_analysis):
    _, sample, headers = world
    run = run_analysis("readstats", [single_end(upload_reads, sample, headers, fastq())],
                       headers, writeResultsToSamples=True)
    assert run.state == "COMPLETED", run.error
    assert histogram(graphql, factories.user(), sample) == {
        "data": {"readLengthHistogram": None}}


def test_a_bad_bin_width_is_refused(world, upload_reads, run_analysis):
    _, sample, headers = world
    reads = single_end(upload_reads, sample, headers, fastq())
    refused = run_analysis.launch("readstats", [reads], headers, {"bin_width": "0"},
                                  status=400).json
    assert "bin_width" in json.dumps(refused)
