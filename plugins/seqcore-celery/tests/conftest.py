import pytest

import seqcore_celery.plugin
import seqcore_sequencefiles.plugin

# ./dev test runs this suite in one process: under pytest-xdist the RabbitMQ runs left
# analyses waiting past their timeouts (a Celery worker per test, real brokers).
XDIST = False


@pytest.fixture(scope="session")
def seqcore_plugins():
    from tests.plugins import readcount

    return [seqcore_sequencefiles.plugin, seqcore_celery.plugin, readcount]
