"""seqcore: a Pyramid framework and service for microbial sequencing data.

Plugin authors import :data:`hookimpl` from here; everything else they need lives in
:mod:`seqcore.contrib` (what a plugin declares) and :mod:`seqcore.testing` (the test kit).
"""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("seqcore")
hookspec = pluggy.HookspecMarker("seqcore")

try:
    __version__ = version("seqcore")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"


def main(global_config: dict[str, Any] | None = None, **settings: Any):  # noqa: ANN201
    """PasteDeploy entry point (``pserve development.ini``): build the WSGI application."""
    from seqcore.config import configure

    ini = (global_config or {}).get("__file__")
    origin = f"ini file {ini}" if ini else "the PasteDeploy settings"
    return configure(settings, origin=origin).make_wsgi_app()
