"""Where stored bytes live: a local directory (the embedded default) or an object store
(S3-compatible or Azure Blob), chosen by ``seqcore.storage.backend``.

A backend knows keys (a stored file's ``path`` column, relative to the storage root or the
bucket) and nothing of the database. :class:`Backend` is what the storage service asks of
one; :func:`backend_from_settings` builds the one the settings name, or raises
:class:`BackendSettingsError` saying which setting is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seqcore.storage.backends.base import BACKENDS, Backend, BackendSettingsError

__all__ = ["BACKENDS", "Backend", "BackendSettingsError", "backend_from_settings"]


def backend_from_settings(settings: Mapping[str, Any], root: Path) -> Backend:
    """The backend ``seqcore.storage.backend`` names, configured from the other
    ``seqcore.storage.*`` settings; ``root`` is the local directory (the local backend's
    store, an object store's scratch space)."""
    kind = str(settings.get("seqcore.storage.backend") or "local")
    if kind == "local":
        from seqcore.storage.backends.local import LocalBackend

        return LocalBackend(root)
    if kind not in BACKENDS:
        raise BackendSettingsError(f"setting 'seqcore.storage.backend': {kind!r} is not one of "
                                   f"{', '.join(BACKENDS)}")
    from seqcore.storage.backends.objectstore import ObjectBackend

    return ObjectBackend.from_settings(kind, settings)
