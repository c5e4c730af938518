import pytest

import seqcore_celery.plugin
import seqcore_sequencefiles.plugin


@pytest.fixture(scope="session")
def seqcore_plugins():
    from tests.plugins import readcount

    return [seqcore_sequencefiles.plugin, seqcore_celery.plugin, readcount]
