"""seqcore: a Pyramid framework and service for microbial sequencing data.

Plugin authors import from :mod:`seqcore.plugin` (the public plugin API, ``hookimpl``
included) and, in their tests, :mod:`seqcore.testing` (the test kit); nothing else.
"""

from importlib.metadata import PackageNotFoundError, version

import pluggy

hookimpl = pluggy.HookimplMarker("seqcore")
hookspec = pluggy.HookspecMarker("seqcore")

try:
    __version__ = version("seqcore")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

