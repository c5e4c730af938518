"""What the browser tests share: the test application served on loopback."""

import threading

import pytest


@pytest.fixture
def live_server(app, engine):
    """The test application served by waitress on a free loopback port, in this process (so
    the test's factories and the pages share one database)."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=5)
