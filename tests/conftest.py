"""The core's tests use the test kit exactly as a plugin would (pytest11 ``seqcore``).

They load the first-party sequence-file kinds and a small test analysis type, so the
authorization matrix and the analysis framework are exercised with real plugins; the core's
behaviour with no plugin at all is tested by building separate apps
(``tests/functional/test_plugins.py``).
"""

import pytest


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_sequencefiles.plugin
    from tests.plugins import readcount

    return [seqcore_sequencefiles.plugin, readcount]
