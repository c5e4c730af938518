"""seqcore: a Pyramid framework and service for microbial sequencing data.

Plugin authors import from :mod:`seqcore.plugin` (the public plugin API, ``hookimpl``
included) and, in their tests, :mod:`seqcore.testing` (the test kit); nothing else.
"""

from importlib.metadata import PackageNotFoundError, version

import pluggy

# The distribution that carries this package (the name "seqcore" on the public package
# index is another project's): version look-ups and the wheel checks ask for it by this name.
DISTRIBUTION = "seqcore-server"

hookimpl = pluggy.HookimplMarker("seqcore")
hookspec = pluggy.HookspecMarker("seqcore")

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

