import pytest

import seqcore_fast5.plugin


@pytest.fixture(scope="session")
def seqcore_plugins():
    return [seqcore_fast5.plugin]
