import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # simulate.py, shared with bench/assembly.py


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_assemblies.plugin
    import seqcore_assembly.plugin
    import seqcore_sequencefiles.plugin

    return [seqcore_assembly.plugin, seqcore_sequencefiles.plugin, seqcore_assemblies.plugin]


@pytest.fixture(scope="session")
def reads_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("reads")
