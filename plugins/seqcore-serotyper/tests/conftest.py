import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# salmonella.py here; the read simulator of the assembly plugin's tests (simulate.py).
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "seqcore-assembly" / "tests"))


@pytest.fixture(scope="session")
def seqcore_plugins():
    # The assembly plugins too, as in a deployment: the serotyper's front end and its
    # memory setting (seqcore.assembly.memory_gb) are theirs.
    import seqcore_assemblies.plugin
    import seqcore_assembly.plugin
    import seqcore_sequencefiles.plugin
    import seqcore_serotyper.plugin

    return [seqcore_serotyper.plugin, seqcore_assembly.plugin, seqcore_sequencefiles.plugin,
            seqcore_assemblies.plugin]


@pytest.fixture(scope="session")
def reads_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("reads")


@pytest.fixture(scope="session", autouse=True)
def sistr_environment():
    """SISTR's own virtualenv under seqcore.tools.path (var/tools by default), created once
    from the configured package index as `seqcore tools install` creates it; before any app
    is built, so readiness sees it."""
    from seqcore.plugin import ensure_tool_environment
    from seqcore_serotyper.environment import SISTR_ENVIRONMENT

    return ensure_tool_environment(SISTR_ENVIRONMENT)
