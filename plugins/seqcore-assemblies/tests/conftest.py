import pytest

import seqcore_assemblies.plugin


@pytest.fixture(scope="session")
def seqcore_plugins():
    return [seqcore_assemblies.plugin]
