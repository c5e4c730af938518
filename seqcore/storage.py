"""File storage: streamed writes that hash as they go, atomic placement, and cleanup tied to
the database transaction.

A file is written to a temporary name inside the storage root while its SHA-256 and size are
computed, then renamed into place. The rename happens before the transaction commits; a
:class:`TransactionFiles` joined to the transaction deletes the placed files if it aborts,
so a failed request leaves no orphan file, and deletes files removed from the database only
once that removal has committed.
"""

from __future__ import annotations

import hashlib
import os
import queue
import secrets
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import transaction
from pyramid.config import Configurator
from pyramid.request import Request

# Blocks at least this large are hashed in the writer's companion thread, at most this many
# waiting at a time (uploads arrive in blocks of up to 1 MiB).
HASH_IN_THREAD_FROM = 64 * 1024
HASH_QUEUE = 16


class StorageError(Exception):
    """A file could not be stored (disk full, permissions)."""


class FileTooLarge(Exception):
    """More bytes arrived than the configured limit allows."""


def safe_basename(name: str) -> str | None:
    """The last component of a client's file name (clients send absolute paths, sometimes
    with backslashes), or ``None`` if nothing usable is left."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if base in ("", ".", "..") or "\x00" in base:
        return None
    return base


class StorageWriter:
    """Receives one file's bytes, hashing and counting them; nothing is visible in storage
    until :meth:`place` renames the temporary file into its final location.

    SHA-256 is the costliest step of receiving an upload (about as much CPU as receiving,
    parsing and writing together), so it runs in a companion thread fed through a short
    queue: hashlib releases the GIL on large blocks, and the hash of one block overlaps with
    receiving and writing the next. The queue holds at most :data:`HASH_QUEUE` blocks, so
    memory stays flat; blocks are immutable (or copied), so the hash is of what was written.
    """

    def __init__(self, storage: Storage, file_name: str, limit: int | None = None) -> None:
        self.storage = storage
        self.file_name = file_name
        self.limit = limit
        self.size = 0
        self._sha = hashlib.sha256()
        self._hashing: queue.Queue[bytes | memoryview | None] | None = None
        self._hasher: threading.Thread | None = None
        self._digest: str | None = None
        tmp_dir = storage.root / "tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        self.tmp_path = tmp_dir / f"upload-{secrets.token_hex(12)}"
        self._fh: BinaryIO | None = open(self.tmp_path, "wb")  # noqa: SIM115
        self.placed: str | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.size += len(data)
        if self.limit is not None and self.size > self.limit:
            raise FileTooLarge(self.limit)
        if not (isinstance(data, bytes) or (isinstance(data, memoryview) and data.readonly)):
            data = bytes(data)  # the caller may reuse its buffer before the hash gets to it
        assert self._fh is not None
        self._fh.write(data)
        if len(data) < HASH_IN_THREAD_FROM and self._hasher is None:
            self._sha.update(data)
            return
        if self._hashing is None:
            self._hashing = queue.Queue(maxsize=HASH_QUEUE)
            self._hasher = threading.Thread(target=self._hash, name="sha256", daemon=True)
            self._hasher.start()
        self._hashing.put(data)

    def _hash(self) -> None:
        assert self._hashing is not None
        while (block := self._hashing.get()) is not None:
            self._sha.update(block)

    def _stop_hashing(self) -> None:
        if self._hasher is not None:
            assert self._hashing is not None
            self._hashing.put(None)
            self._hasher.join()
            self._hasher = None

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    @property
    def sha256(self) -> str:
        """The hex digest of everything written (waits for the hashing thread)."""
        if self._digest is None:
            self._stop_hashing()
            self._digest = self._sha.hexdigest()
        return self._digest

    def close(self) -> None:
        """No more bytes: finish the hash and close the file."""
        self._stop_hashing()
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def discard(self) -> None:
        """Forget the file (bad upload): remove the temporary file."""
        self.close()
        self.tmp_path.unlink(missing_ok=True)

    def place(self, manager: transaction.TransactionManager) -> str:
        """Move the file into storage; returns its path relative to the storage root.

        The file is removed again if ``manager``'s current transaction aborts.
        """
        self.close()
        relative = f"{secrets.token_hex(1)}/{secrets.token_hex(10)}/{self.file_name}"
        final = self.storage.root / relative
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.tmp_path, final)
        self.placed = relative
        self.storage.guard(manager).created([relative])
        return relative


class Storage:
    """The local-directory storage backend (the embedded default)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def writer(self, file_name: str, limit: int | None = None) -> StorageWriter:
        return StorageWriter(self, file_name, limit)

    def path(self, relative: str) -> Path:
        """The absolute path of a stored file; refuses anything outside the root."""
        full = (self.root / relative).resolve()
        if self.root not in full.parents:
            raise StorageError(f"{relative!r} is outside the storage root")
        return full

    def open(self, relative: str) -> BinaryIO:
        return open(self.path(relative), "rb")

    def store_file(self, source: Path, file_name: str, manager: transaction.TransactionManager
                   ) -> tuple[str, str, int]:
        """Copy a local file into storage (worker outputs); ``(path, sha256, size)``."""
        writer = self.writer(file_name)
        try:
            with open(source, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    writer.write(chunk)
            return writer.place(manager), writer.sha256, writer.size
        except BaseException:
            writer.discard()
            raise

    def remove_now(self, relatives: Iterable[str]) -> None:
        for relative in relatives:
            try:
                full = self.path(relative)
            except StorageError:
                continue
            full.unlink(missing_ok=True)
            # Each file has a directory of its own: remove it and its parent when empty.
            for directory in (full.parent, full.parent.parent):
                try:
                    directory.rmdir()
                except OSError:
                    break

    def remove_after_commit(self, relatives: Iterable[str],
                            manager: transaction.TransactionManager) -> None:
        """Delete these files once the current transaction commits (never if it aborts)."""
        self.guard(manager).removed(list(relatives))

    def guard(self, manager: transaction.TransactionManager) -> TransactionFiles:
        """The participant of ``manager``'s current transaction (joined on first use)."""
        txn = manager.get()
        data = txn.data(self) if _has_data(txn, self) else None
        if data is None:
            data = TransactionFiles(self, manager)
            txn.join(data)
            txn.set_data(self, data)
        return data


def _has_data(txn: Any, key: object) -> bool:
    try:
        txn.data(key)
    except KeyError:
        return False
    return True


class TransactionFiles:
    """A transaction participant that keeps storage and database in step."""

    def __init__(self, storage: Storage, manager: Any) -> None:
        self.storage = storage
        self.transaction_manager = manager
        self._created: list[str] = []
        self._removed: list[str] = []

    def created(self, relatives: list[str]) -> None:
        self._created.extend(relatives)

    def removed(self, relatives: list[str]) -> None:
        self._removed.extend(relatives)

    # IDataManager
    def abort(self, txn: Any) -> None:
        self.storage.remove_now(self._created)
        self._created = []
        self._removed = []

    def tpc_begin(self, txn: Any) -> None:
        pass

    def commit(self, txn: Any) -> None:
        pass

    def tpc_vote(self, txn: Any) -> None:
        pass

    def tpc_finish(self, txn: Any) -> None:
        self.storage.remove_now(self._removed)
        self._created = []
        self._removed = []

    def tpc_abort(self, txn: Any) -> None:
        self.abort(txn)

    def sortKey(self) -> str:
        return "~seqcore.storage"  # after the database, so files go only once rows are gone


def get_storage(request: Request) -> Storage:
    return request.registry["seqcore.storage"]


def includeme(config: Configurator) -> None:
    settings = config.get_settings()
    config.registry["seqcore.storage"] = Storage(settings["seqcore.storage.path"])
    config.add_request_method(get_storage, "storage", reify=True)
