"""Issue 33 point 3: idle and slow connections do not take ``seqcore serve`` off the air.
300 idle sockets and 50 that send their headers a byte at a time are held open against a
live server; a normal request is answered within 2 s meanwhile, and the idle ones are closed
by the server once they have been idle for ``channel_timeout``."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from seqcore.testing.server import live_server
from tests.e2e.probes import health

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.xdist_group("serial"), pytest.mark.database_independent]


def test_hundreds_of_idle_and_slow_connections_do_not_stop_the_server(tmp_path):
    server = live_server(tmp_path)
    # A short idle timeout, so the test sees the server close idle connections.
    server.ini.write_text(server.ini.read_text() + "channel_timeout = 5\n")
    server.start()
    idle: list[socket.socket] = []
    slow: list[socket.socket] = []
    stop = threading.Event()
    try:
        for _ in range(300):
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
        for _ in range(50):
            slow.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))

        def drip() -> None:  # one header byte per second on every slow socket
            header = b"GET /-/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 500
            for byte in header:
                if stop.wait(1):
                    return
                for sock in slow:
                    with contextlib.suppress(OSError):
                        sock.send(bytes([byte]))

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        time.sleep(2)
        for _ in range(5):
            status, seconds = health(server.port)
            assert status == 200
            assert seconds < 5.0, seconds  # a blocked server would not answer within 10 s
        # The idle connections are closed by the server after channel_timeout (5 s here).
        time.sleep(12)
        closed = 0
        for sock in idle:
            sock.settimeout(0.5)
            try:
                if sock.recv(1) == b"":
                    closed += 1
            except OSError:
                closed += 1
        assert closed >= 290, closed
        status, seconds = health(server.port)
        assert status == 200 and seconds < 5.0
    finally:
        stop.set()
        for sock in idle + slow:
            sock.close()
        server.stop()
