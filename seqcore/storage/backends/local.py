"""The local-directory backend: every key a file under the storage root.

The storage service writes uploads into this directory itself (past the page cache, renamed
into place: :class:`seqcore.storage.service.StorageWriter`); this backend serves the other
operations, and the copies ``seqcore storage migrate`` makes into a directory.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

BLOCK = 1 << 20


class LocalBackend:
    kind = "local"

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def describe(self) -> str:
        return str(self.root)

    def path(self, key: str) -> Path:
        """The file of ``key``; ``ValueError`` for anything outside the root."""
        full = (self.root / key).resolve()
        if self.root not in full.parents:
            raise ValueError(f"{key!r} is outside the storage root")
        return full

    def uri(self, key: str) -> str:
        return str(self.path(key))

    def put_file(self, key: str, source: Path) -> None:
        with open(source, "rb") as fh, self.writer(key) as out:
            shutil.copyfileobj(fh, out, BLOCK)

    def writer(self, key: str) -> _LocalWriter:
        return _LocalWriter(self.path(key))

    def open(self, key: str) -> BinaryIO:
        return open(self.path(key), "rb")

    def size(self, key: str) -> int | None:
        try:
            return self.path(key).stat().st_size
        except (OSError, ValueError):
            return None

    def delete(self, key: str) -> None:
        try:
            full = self.path(key)
        except ValueError:
            return
        full.unlink(missing_ok=True)
        # Each file has a directory of its own: remove it and its parent when empty.
        for directory in (full.parent, full.parent.parent):
            if directory == self.root:
                break
            try:
                directory.rmdir()
            except OSError:
                break

    def stored_keys(self, prefix: str = "") -> Iterator[str]:
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root).as_posix()
            if path.is_file() and relative.startswith(prefix) and not relative.startswith(
                    "tmp/"):
                yield relative

    def signed_url(self, key: str, method: str, seconds: int) -> str | None:
        return None

    def download(self, key: str, target: Path) -> None:
        shutil.copyfile(self.path(key), target)


class _LocalWriter:
    """Writes a temporary file beside the target and renames it into place on close, so a
    half-written copy is never seen under its key."""

    def __init__(self, target: Path) -> None:
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = target.parent / f".partial-{secrets.token_hex(8)}"
        self._fh = open(self.tmp, "wb")  # noqa: SIM115 (closed by close or abort)

    def write(self, data: bytes | memoryview) -> int:
        return self._fh.write(data)

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()
            os.replace(self.tmp, self.target)

    def abort(self) -> None:
        self._fh.close()
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> _LocalWriter:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()
