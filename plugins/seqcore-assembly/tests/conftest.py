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
def seqcore_settings(seqcore_settings):
    # Not the default, so the tests see the setting reach the assembler's command line.
    return {**seqcore_settings, "seqcore.assembly.memory_gb": 3}


@pytest.fixture(scope="session")
def reads_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("reads")
