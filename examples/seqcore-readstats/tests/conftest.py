"""The example's plugins: readstats, and the FASTQ file kinds it reads. Everything else
(the database, the app, ``upload_reads``, ``run_analysis``, ``graphql``) is the kit's."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_readstats.plugin
    import seqcore_sequencefiles.plugin

    return [seqcore_readstats.plugin, seqcore_sequencefiles.plugin]
