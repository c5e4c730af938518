import pytest

import seqcore_assemblies.plugin


@pytest.fixture(scope="session")
def seqcore_plugins():
    import sys
    from pathlib import Path

    import seqcore_sequencefiles.plugin

    sys.path.insert(0, str(Path(__file__).parent))  # the test analysis' pipeline module
    import assembling

    return [seqcore_assemblies.plugin, seqcore_sequencefiles.plugin, assembling]
