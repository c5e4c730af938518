"""What the live-server tests ask a server while they load it."""

from __future__ import annotations

import socket
import time


def health(port: int, timeout: float = 10) -> tuple[int, float]:
    """``GET /-/health`` on a fresh connection: the status, and how long the answer took."""
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"GET /-/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = sock.recv(64)
    return int(answer.split()[1]), time.perf_counter() - started
