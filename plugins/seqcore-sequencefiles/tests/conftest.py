import pytest

import seqcore_sequencefiles.plugin


@pytest.fixture(scope="session")
def seqcore_plugins():
    """Core plus exactly this plugin, whatever else is installed."""
    return [seqcore_sequencefiles.plugin]
