"""How values look on the wire.

``epoch_ms`` lives in :mod:`seqcore.parsing.timestamps` (the domain records histories with it); it
is re-exported here for the views that import it from the REST layer.
"""

from __future__ import annotations

from seqcore.parsing.timestamps import epoch_ms

__all__ = ["epoch_ms"]
