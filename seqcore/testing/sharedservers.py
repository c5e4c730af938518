"""Live servers started once and shared by the tests of a session (``shared_live_servers``).

A :func:`seqcore.testing.server.live_server` costs seconds before its first request: a copy
of the migrated database, a ``seqcore`` process for each account and OAuth client, then a
server process that imports seqcore and every plugin. A module that starts one per test pays
that per test, and every module starting the same kind of server pays it again. Tests that
only read what a server was prepared with, or that each create accounts, clients and projects
of their own (named after the test), can share one server instead: the session-scoped
fixture ``shared_live_servers`` hands out started servers by name, preparing and starting
each once per session (once per pytest-xdist worker) and stopping them all at its end.

A test that changes what others rely on (a setting, an account they use, the server's
process) takes a server of its own from ``live_server`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from seqcore.testing.server import LiveServer, live_server


class SharedServers:
    """Started servers by name; ``get(name, prepare, server=..., **settings)`` makes one the
    first time it is asked for: ``live_server(root / name, **settings)``, then
    ``prepare(server)`` (accounts and clients through its ``cli``, before it serves), then
    ``start(server)``. Asking again for a name with other settings is an error: two modules
    would otherwise each believe the server is theirs as they described it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._servers: dict[str, tuple[tuple[object, ...], LiveServer]] = {}

    def get(self, name: str, prepare: Callable[[LiveServer], None] | None = None, *,
            server: str = "waitress", **settings: str) -> LiveServer:
        described = (server, tuple(sorted(settings.items())),
                     getattr(prepare, "__qualname__", None))
        known = self._servers.get(name)
        if known is not None:
            if known[0] != described:
                raise ValueError(f"the shared server {name!r} was started with other settings "
                                 f"or preparation: {known[0]} (now {described})")
            return known[1]
        started = live_server(self.root / name, **settings)
        if prepare is not None:
            prepare(started)
        started.start(server)
        self._servers[name] = (described, started)
        return started

    def stop_all(self) -> None:
        for _, started in self._servers.values():
            started.stop()
        self._servers.clear()
