"""File storage: streamed writes that hash as they go, atomic placement, and cleanup tied to
the database transaction.

Where the bytes live is the backend's business (:mod:`seqcore.storage.backends`: the local
directory, the default, or an object store). With the local directory, a file is written to a
temporary name inside the storage root while its SHA-256 and size are computed, then renamed
into place. With an object store, it streams into its final key as a multipart upload (memory
stays flat) that becomes visible only when complete; the key is its place.

Placing happens before the transaction commits; a :class:`TransactionFiles` joined to the
transaction deletes the placed files if it aborts, so a failed request leaves no orphan file,
and deletes files removed from the database only once that removal has committed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

import transaction
from pyramid.config import Configurator
from pyramid.request import Request
from zope.interface import implementer

from seqcore.services import IStorage
from seqcore.storage.backends import Backend, BackendSettingsError, backend_from_settings
from seqcore.storage.backends.local import LocalBackend
from seqcore.storage.directwrite import DirectFile, write_all

# Blocks at least this large are written and hashed by the writer's companion threads, at
# most this many waiting for each (uploads arrive in blocks of up to 1 MiB).
COMPANION_FROM = 64 * 1024
COMPANION_QUEUE = 16


class StorageError(Exception):
    """A file could not be stored (disk full, permissions)."""


class FileTooLarge(Exception):
    """More bytes arrived than the configured limit allows."""


#: Where an executor keeps a run's own objects in an object store while the run lasts (a WES
#: run's samplesheet, the outputs its engine writes into the store): no stored file of the
#: database, so ``seqcore check`` does not count them as unreferenced.
RUN_DIRECTORY = "runs"

# The longest file name, in UTF-8 bytes, that a file system takes for one path component
# (ext4, XFS, btrfs, ZFS all stop at 255); an upload's name beyond it is refused.
FILE_NAME_LIMIT = 255


def safe_basename(name: str) -> str | None:
    """The last component of a client's file name (clients send absolute paths, sometimes
    with backslashes), or ``None`` if nothing usable is left."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if base in ("", ".", "..") or "\x00" in base:
        return None
    return base


def name_too_long(file_name: str) -> bool:
    """Whether ``file_name`` is longer than one path component may be."""
    return len(file_name.encode("utf-8", "surrogatepass")) > FILE_NAME_LIMIT


def disk_name(file_name: str) -> str:
    """The name a file gets on disk: the client's name with control characters (line breaks,
    tabs, escapes) as ``_``, cut to :data:`FILE_NAME_LIMIT` bytes.

    The database keeps the client's name exactly; the disk gets one that shell tools, log
    lines and backups handle without surprises. Each file has a directory of its own, so two
    names that map to one disk name never meet.
    """
    cleaned = "".join("_" if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in file_name)
    encoded = cleaned.encode("utf-8", "surrogatepass")[:FILE_NAME_LIMIT]
    cleaned = encoded.decode("utf-8", "ignore").strip()
    return cleaned if cleaned not in ("", ".", "..") else "file"


def object_name(file_name: str) -> str:
    """The last part of a file's key in an object store: its disk name with every character
    but ASCII letters, digits, ``.``, ``-`` and ``_`` as ``_``. Keys then need no escaping in
    signed URLs (Azure's signatures of escaped names are not read alike by every server);
    the database keeps the client's name, and downloads carry it."""
    return "".join(c if c.isascii() and (c.isalnum() or c in ".-_") else "_"
                   for c in disk_name(file_name))


Block = bytes | memoryview


class _Companion:
    """A thread that applies ``consume`` to each block handed to it, in order.

    At most :data:`COMPANION_QUEUE` blocks wait, so memory stays flat; :meth:`put` blocks
    while the queue is full. The first exception ``consume`` raises is kept, ends the
    thread's work (later blocks are dropped), and is raised by the next :meth:`put` or by
    :meth:`close`, so the caller sees it in its own thread.
    """

    def __init__(self, name: str, consume: Callable[[Block], None]) -> None:
        self._consume = consume
        self._queue: queue.Queue[Block | None] = queue.Queue(maxsize=COMPANION_QUEUE)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (block := self._queue.get()) is not None:
            if self.error is None:
                try:
                    self._consume(block)
                except BaseException as err:  # handed to the caller's thread
                    self.error = err

    def put(self, block: Block) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put(block)

    def close(self) -> None:
        """Wait for the blocks handed over so far; raises what ``consume`` raised."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if self.error is not None:
            raise self.error


class StorageWriter:
    """Receives one file's bytes, hashing and counting them; nothing is visible in storage
    until :meth:`place` renames the temporary file into its final location.

    SHA-256 is the costliest step of receiving an upload, and writing is the next. Once
    blocks are large, each therefore runs in a companion thread of its own, fed in order
    through a short queue: both release the GIL, so on two or more cores receiving, writing
    and hashing overlap instead of taking turns. Large files are written past the page cache
    (:mod:`seqcore.storage.directwrite`): no kernel copy per byte, no eviction of what others cache,
    and the bytes reach the device as they arrive rather than at the next ``sync``. Blocks
    are immutable (or copied), so what is hashed is what was written. A failure to write
    (disk full) is raised as :class:`StorageError` by the next :meth:`write` or by
    :meth:`close`.

    :meth:`on_written` lets a reader follow the file as it grows (an upload's gzip check).
    """

    #: Where a reader can follow the file as it grows (an object store's writer has none).
    tmp_path: Path | None

    def __init__(self, storage: Storage, file_name: str, limit: int | None = None) -> None:
        self.storage = storage
        self.file_name = file_name
        self.limit = limit
        self.size = 0
        self.written = 0
        self._sha = hashlib.sha256()
        self._writing: _Companion | None = None
        self._direct: DirectFile | None = None
        self._hashing: _Companion | None = None
        self._listeners: list[Callable[[int], None]] = []
        self._digest: str | None = None
        tmp_dir = storage.root / "tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        self.tmp_path = tmp_dir / f"upload-{secrets.token_hex(12)}"
        self._fd: int | None = os.open(self.tmp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                                       0o644)
        self.placed: str | None = None

    def on_written(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(n)`` each time the file on disk has grown to ``n`` bytes (from
        the writing thread, once blocks are large)."""
        self._listeners.append(listener)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.size += len(data)
        if self.limit is not None and self.size > self.limit:
            raise FileTooLarge(self.limit)
        if not (isinstance(data, bytes) or (isinstance(data, memoryview) and data.readonly)):
            data = bytes(data)  # the caller may reuse its buffer before the threads get to it
        try:
            if len(data) < COMPANION_FROM and self._writing is None:
                self._write(data)
                self._sha.update(data)
                return
            if self._writing is None:
                assert self._fd is not None
                self._direct = DirectFile.open(self._fd, self.written, self._flushed)
                self._writing = _Companion("storage-write", self._write_large)
                self._hashing = _Companion("sha256", self._sha.update)
            assert self._hashing is not None
            self._writing.put(data)
            self._hashing.put(data)
        except OSError as err:
            raise StorageError(f"{self.file_name} could not be written: "
                               f"{err.strerror or err}") from None

    def _write(self, data: Block) -> None:
        assert self._fd is not None
        write_all(self._fd, data)
        self._flushed(self.written + len(data))

    def _write_large(self, data: Block) -> None:
        if self._direct is None:
            self._write(data)
        else:
            self._direct.write(data)

    def _flushed(self, size: int) -> None:
        self.written = size
        for listener in self._listeners:
            listener(size)

    def _stop_companions(self) -> None:
        writing, hashing, direct = self._writing, self._hashing, self._direct
        self._writing = self._hashing = None
        try:
            if writing is not None:
                writing.close()  # drains the queue, through self._direct
            if direct is not None:
                direct.finish()
        except OSError as err:
            raise StorageError(f"{self.file_name} could not be written: "
                               f"{err.strerror or err}") from None
        finally:
            self._direct = None
            if direct is not None:
                direct.close()
            if hashing is not None:
                hashing.close()

    @property
    def sha256(self) -> str:
        """The hex digest of everything written (waits for the hashing thread)."""
        if self._digest is None:
            self._stop_companions()
            self._digest = self._sha.hexdigest()
        return self._digest

    def close(self) -> None:
        """No more bytes: wait for the companions, finish the hash and close the file."""
        try:
            self._stop_companions()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def discard(self) -> None:
        """Forget the file (bad upload): remove the temporary file."""
        try:
            self.close()
        except StorageError:
            pass  # the file goes anyway
        finally:
            assert self.tmp_path is not None
            self.tmp_path.unlink(missing_ok=True)

    def place(self, manager: transaction.TransactionManager) -> str:
        """Move the file into storage; returns its path relative to the storage root.

        The file is removed again if ``manager``'s current transaction aborts.
        """
        self.close()
        relative = f"{secrets.token_hex(1)}/{secrets.token_hex(10)}/{disk_name(self.file_name)}"
        final = self.storage.root / relative
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            assert self.tmp_path is not None
            os.replace(self.tmp_path, final)
        except OSError as err:
            self.storage.remove_now([relative])  # the directories made for it, if empty
            raise StorageError(f"{self.file_name} could not be stored: "
                               f"{err.strerror or err}") from None
        self.placed = relative
        self.storage.guard(manager).created([relative])
        return relative


class ObjectWriter:
    """Receives one file's bytes straight into an object store, hashing and counting them.

    The bytes go to the file's final key as a multipart upload (parts of
    :data:`~seqcore.storage.backends.objectstore.PART` bytes, a few in flight: flat memory),
    which the store makes visible only when :meth:`close` completes it; a writer discarded
    before that leaves no object (the upload is aborted), one discarded after is deleted.
    As :class:`StorageWriter`, uploading and hashing run in companion threads.
    """

    tmp_path: Path | None = None

    def __init__(self, storage: Storage, file_name: str, limit: int | None = None) -> None:
        self.storage = storage
        self.file_name = file_name
        self.limit = limit
        self.size = 0
        self.written = 0
        self.key = f"{secrets.token_hex(1)}/{secrets.token_hex(10)}/{object_name(file_name)}"
        self._sha = hashlib.sha256()
        self._digest: str | None = None
        self._out: Any = storage.backend.writer(self.key)
        self._uploading: _Companion | None = _Companion("storage-upload", self._upload)
        self._hashing: _Companion | None = _Companion("sha256", self._sha.update)
        self._completed = False
        self.placed: str | None = None

    def on_written(self, listener: Callable[[int], None]) -> None:
        """Nothing to follow: content checks read the bytes as they arrive instead."""

    def _upload(self, data: Block) -> None:
        self._out.write(data)
        self.written += len(data)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.size += len(data)
        if self.limit is not None and self.size > self.limit:
            raise FileTooLarge(self.limit)
        if not (isinstance(data, bytes) or (isinstance(data, memoryview) and data.readonly)):
            data = bytes(data)
        if self._uploading is None or self._hashing is None:
            raise StorageError(f"{self.file_name}: written after it was closed")
        try:
            self._uploading.put(data)
            self._hashing.put(data)
        except Exception as err:
            raise StorageError(f"{self.file_name} could not be stored: {err}") from None

    def _stop_companions(self) -> None:
        uploading, hashing = self._uploading, self._hashing
        self._uploading = self._hashing = None
        try:
            if uploading is not None:
                uploading.close()
        except Exception as err:
            raise StorageError(f"{self.file_name} could not be stored: {err}") from None
        finally:
            if hashing is not None:
                hashing.close()

    @property
    def sha256(self) -> str:
        if self._digest is None:
            self._stop_companions()
            self._digest = self._sha.hexdigest()
        return self._digest

    def close(self) -> None:
        """No more bytes: complete the multipart upload (the object appears)."""
        self._stop_companions()
        if not self._completed:
            try:
                self._out.close()
            except Exception as err:
                raise StorageError(f"{self.file_name} could not be stored: {err}") from None
            self._completed = True

    def discard(self) -> None:
        """Forget the file: abort the upload, or delete the object if it was completed."""
        with contextlib.suppress(Exception):
            self._stop_companions()
        if self._completed:
            self.storage.backend.delete(self.key)
        self._out = None  # an upload never completed is aborted when its writer goes

    def place(self, manager: transaction.TransactionManager) -> str:
        """The object is its place: complete it and tie it to ``manager``'s transaction."""
        self.close()
        self.placed = self.key
        self.storage.guard(manager).created([self.key])
        return self.key


#: What :meth:`Storage.writer` hands out, whichever the backend.
Writer = StorageWriter | ObjectWriter


@implementer(IStorage)
class Storage:
    """The storage service: stored files by key, in the backend the settings chose (the
    local directory by default). ``root`` is the local directory: the local backend's store,
    and an object store's scratch space for staged copies."""

    def __init__(self, root: str | Path, backend: Backend | None = None) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.backend: Backend = backend if backend is not None else LocalBackend(self.root)
        #: Whether stored files are files under :attr:`root` (:meth:`path` answers).
        self.is_local = self.backend.kind == "local"
        self.signed_url_seconds = 900

    def writer(self, file_name: str, limit: int | None = None) -> Writer:
        if self.is_local:
            return StorageWriter(self, file_name, limit)
        return ObjectWriter(self, file_name, limit)

    def path(self, relative: str) -> Path:
        """The absolute path of a stored file; refuses anything outside the root, and every
        file of an object store (ask for :meth:`local_copy` instead)."""
        if not self.is_local:
            raise StorageError(f"{relative!r} is in {self.backend.describe()}, not on a local "
                               "disk: ask for a local copy")
        full = (self.root / relative).resolve()
        if self.root not in full.parents:
            raise StorageError(f"{relative!r} is outside the storage root")
        return full

    def location(self, relative: str) -> str:
        """Where a stored file is, for representations that name it (IRIDA's ``file``
        field): its absolute path in a local directory, ``s3://bucket/key`` or
        ``azure://container/key`` in an object store."""
        if self.is_local:
            return str(self.path(relative))
        return self.backend.uri(relative)

    @contextlib.contextmanager
    def local_copy(self, relative: str) -> Iterator[Path]:
        """A local file holding a stored file's bytes, for code that needs a path (a tool
        run on it): the file itself in a local directory, a staged copy (removed afterwards)
        from an object store."""
        if self.is_local:
            yield self.path(relative)
            return
        stage = self.root / "tmp" / f"stage-{secrets.token_hex(8)}"
        stage.mkdir(parents=True)
        target = stage / disk_name(relative.rsplit("/", 1)[-1])
        try:
            try:
                self.backend.download(relative, target)
            except FileNotFoundError:
                raise StorageError(f"{relative!r} is missing from "
                                   f"{self.backend.describe()}") from None
            yield target
        finally:
            target.unlink(missing_ok=True)
            stage.rmdir()

    def stage(self, relative: str, directory: Path) -> Path:
        """A local file holding a stored file's bytes for as long as ``directory`` lives (an
        analysis's inputs): the file itself in a local directory, else a copy made under
        ``directory`` (by key, so two inputs of one name do not meet)."""
        if self.is_local:
            return self.path(relative)
        target = (directory / relative).resolve()
        if directory.resolve() not in target.parents:
            raise StorageError(f"{relative!r} cannot be staged under {directory}")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.backend.download(relative, target)
        except FileNotFoundError:
            raise StorageError(f"{relative!r} is missing from "
                               f"{self.backend.describe()}") from None
        return target

    def open(self, relative: str) -> BinaryIO:
        """A stored file's bytes as a stream (a file, or the object read in blocks)."""
        if self.is_local:
            return open(self.path(relative), "rb")
        try:
            return self.backend.open(relative)
        except FileNotFoundError:
            raise StorageError(f"{relative!r} is missing from "
                               f"{self.backend.describe()}") from None

    def size(self, relative: str) -> int | None:
        """The stored size of a file, ``None`` if it is not stored."""
        return self.backend.size(relative)

    def signed_url(self, relative: str, method: str = "GET",
                   seconds: int | None = None) -> str | None:
        """A URL of the object store that reads (``GET``) or writes (``PUT``) the file for
        ``seconds`` (``seqcore.storage.signed_url_seconds`` by default) without other
        credentials; ``None`` for a local directory (its bytes go through seqcore)."""
        return self.backend.signed_url(relative, method, seconds or self.signed_url_seconds)

    def put_run_file(self, run: str, name: str, source: Path) -> str:
        """Copy a local file to ``runs/<run>/<name>`` of an object store (a run's input that
        its engine reads through a signed URL); its key. Removed with :meth:`remove_run`."""
        if self.is_local:
            raise StorageError("a local directory keeps no run files: hand over the path")
        key = f"{RUN_DIRECTORY}/{object_name(run)}/{name}"
        self.backend.put_file(key, source)
        return key

    def run_keys(self, run: str, under: str = "") -> list[str]:
        """The keys of a run's objects (``under`` a directory of it, such as ``output``)."""
        prefix = f"{RUN_DIRECTORY}/{object_name(run)}/{under.strip('/') + '/' if under else ''}"
        return sorted(self.backend.stored_keys(prefix))

    def remove_run(self, run: str) -> None:
        """Delete a run's objects once it has ended (its outputs collected)."""
        self.remove_now(self.run_keys(run))

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
        if not self.is_local:
            for relative in relatives:
                self.backend.delete(relative)
            return
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


def storage_from_settings(settings: Any) -> Storage:
    """The storage service the settings describe; :class:`BackendSettingsError` names a bad
    setting."""
    root = Path(settings["seqcore.storage.path"])
    storage = Storage(root, backend_from_settings(settings, root.resolve()))
    storage.signed_url_seconds = int(settings.get("seqcore.storage.signed_url_seconds") or 900)
    return storage


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
        return "~seqcore.storage.service"  # after the database, so files go only once rows are gone


def get_storage(request: Request) -> Storage:
    """``request.storage``: the :class:`~seqcore.services.IStorage` service."""
    return cast("Storage", request.find_service(IStorage, context=None))


def includeme(config: Configurator) -> None:
    from pyramid.exceptions import ConfigurationError

    settings = config.get_settings()
    try:
        storage = storage_from_settings(settings)
    except BackendSettingsError as err:
        raise ConfigurationError(str(err)) from None
    config.register_service(storage, IStorage)
    config.add_request_method(get_storage, "storage", reify=True)
