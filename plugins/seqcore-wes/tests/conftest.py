import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from wes_server import Relay, WesServer, cache_dir, wes_venv  # noqa: E402

READCOUNT = HERE / "data" / "readcount"


@pytest.fixture(scope="session")
def wes(tmp_path_factory):
    """The reference WES server (cwltool backend) behind a relay seqcore talks to."""
    bin_dir = wes_venv(cache_dir())
    server = WesServer(bin_dir, tmp_path_factory.mktemp("wes-server"))
    server.start()
    relay = Relay(server.port)
    relay.restore()
    yield SimpleNamespace(server=server, relay=relay, url=relay.url)
    relay.cut()
    server.stop()


@pytest.fixture(scope="session")
def toil_backend(tmp_path_factory):
    """The reference server with its Toil backend, which reports QUEUED while a run has not
    started (Toil itself is not installed: only the queue is used)."""
    server = WesServer(wes_venv(cache_dir()), tmp_path_factory.mktemp("wes-toil"),
                       backend="wes_service.toil_wes")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def seqcore_settings(seqcore_settings, wes):
    # The reference server runs `cwltool --version` for every service-info: slow on a busy
    # machine, so the tests give each call more time than the default.
    return {**seqcore_settings, "seqcore.wes.url": wes.url,
            "seqcore.pipelines.dir": str(READCOUNT), "seqcore.wes.timeout_seconds": 30,
            # Readiness asks the server every time, so a cut shows at once.
            "seqcore.wes.service_info_seconds": 0}


@pytest.fixture(scope="session")
def seqcore_plugins():
    import irida_next_descriptors

    import seqcore_sequencefiles.plugin
    import seqcore_wes.plugin

    return [seqcore_wes.plugin, seqcore_sequencefiles.plugin, irida_next_descriptors]
