"""Upload reads, launch readstats, run it, and read the histogram back over REST and GraphQL."""

from __future__ import annotations

import json

import pytest

from seqcore.testing.uploads import fastq, gz

LAUNCH = "/api/analysisSubmissions/analysisType/readstats"
QUERY = "query($id: ID!) { readLengthHistogram(sampleId: $id) { length count } }"


@pytest.fixture
def world(factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    return owner, sample, factories.headers(owner)


def launch(testapp, headers, object_ids, write_back=True, **parameters):
    return testapp.post_json(LAUNCH, {
        "name": "lengths", "sequencingObjects": object_ids, "writeResultsToSamples": write_back,
        "parameters": parameters}, headers=headers, status=201).json["resource"]


def test_histogram_written_back_and_queried(testapp, graphql, world, upload_reads,
                                            run_to_completion):
    owner, sample, headers = world
    reads = fastq(reads=5, length=35, seed=1, name="a") + fastq(reads=3, length=72, seed=2,
                                                                 name="b")
    first = upload_reads(sample, headers, reads)
    second = upload_reads(sample, headers, gz(fastq(reads=2, length=38, seed=3)), "more.fq.gz")
    submission = launch(testapp, headers, [first, second], bin_width="10")
    run_to_completion()

    done = testapp.get(f"/api/analysisSubmissions/{submission['identifier']}",
                       headers=headers).json["resource"]
    assert done["analysisState"] == "COMPLETED"
    metadata = testapp.get(f"/api/samples/{sample.id}/metadata",
                           headers=headers).json["resource"]["metadata"]
    assert metadata["read count"]["value"] == "10"
    assert metadata["mean read length"]["value"] == str(round((5 * 35 + 3 * 72 + 2 * 38) / 10, 1))
    assert json.loads(metadata["read length histogram"]["value"]) == [[30, 7], [70, 3]]

    answer = graphql.as_user(owner)(QUERY, {"id": f"gid://seqcore/Sample/{sample.id}"})
    assert answer == {"data": {"readLengthHistogram": [{"length": 30, "count": 7},
                                                       {"length": 70, "count": 3}]}}


def test_without_write_back_the_sample_is_untouched(testapp, graphql, world, upload_reads,
                                                    run_to_completion):
    owner, sample, headers = world
    launch(testapp, headers, [upload_reads(sample, headers, fastq())], write_back=False)
    run_to_completion()
    metadata = testapp.get(f"/api/samples/{sample.id}/metadata",
                           headers=headers).json["resource"]["metadata"]
    assert "read length histogram" not in metadata
    answer = graphql.as_user(owner)(QUERY, {"id": f"gid://seqcore/Sample/{sample.id}"})
    assert answer == {"data": {"readLengthHistogram": None}}


def test_a_stranger_sees_no_histogram(testapp, graphql, factories, world, upload_reads,
                                      run_to_completion):
    _, sample, headers = world
    launch(testapp, headers, [upload_reads(sample, headers, fastq())])
    run_to_completion()
    answer = graphql.as_user(factories.user())(QUERY,
                                               {"id": f"gid://seqcore/Sample/{sample.id}"})
    assert answer == {"data": {"readLengthHistogram": None}}


def test_a_bad_bin_width_is_refused(testapp, world, upload_reads):
    _, sample, headers = world
    refused = testapp.post_json(LAUNCH, {"sequencingObjects": [upload_reads(
        sample, headers, fastq())], "parameters": {"bin_width": "0"}}, headers=headers,
        status=400).json
    assert "bin_width" in json.dumps(refused)
