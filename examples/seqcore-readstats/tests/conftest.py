"""The example's fixtures: its plugin with the FASTQ file kinds it reads, and two helpers
(upload reads, run the workers until everything is done) over the test kit.

The two helpers stand in for the kit's own upload and run-to-completion fixtures, which are
being added to ``seqcore.testing``; once they are there, these go.
"""

from __future__ import annotations

import pytest

from seqcore.testing.uploads import multipart
from seqcore.testing.workers import AnalysisWorker, Worker


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_readstats.plugin
    import seqcore_sequencefiles.plugin

    return [seqcore_readstats.plugin, seqcore_sequencefiles.plugin]


@pytest.fixture
def upload_reads(testapp):
    """``upload_reads(sample, headers, fastq_bytes)``: a single-end upload, as a client sends
    it; returns the new sequencing object's id."""

    def upload(sample, headers, content, name="reads.fastq"):
        body, content_type = multipart([("file", name, content, None)])
        created = testapp.post(f"/api/samples/{sample.id}/unpaired", body, status=201,
                               headers={**headers, "Content-Type": content_type})
        links = {link["rel"]: link["href"] for link in created.json["resource"]["links"]}
        return int(links["sequenceFile/sequencingObject"].rstrip("/").rsplit("/", 1)[1])

    return upload


@pytest.fixture
def run_to_completion(app_config):
    """Process every upload, then run every submission until none is left to move."""

    def run(timeout=120):
        Worker(app_config.registry).run_until_idle()
        AnalysisWorker(app_config.registry).run_until_idle(timeout=timeout)

    return run
