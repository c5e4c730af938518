"""Backups of a deployment, their restoration, and the check of storage against the database.

A backup directory holds one snapshot of the deployment:

* ``database.sqlite`` (SQLite's online backup API: a consistent copy while the server runs)
  or ``database.pgdump`` (``pg_dump`` in its custom format, for ``pg_restore``);
* ``files/``, the stored files under their storage paths;
* ``manifest.json``: the database kind, seqcore's version, and every stored file with its
  size and SHA-256, written last, so a directory whose manifest is present is complete.

Consistency: the database is copied first and the list of files is read from that copy (on
PostgreSQL from the very snapshot ``pg_dump`` exports, through ``pg_export_snapshot``), so
the files are exactly those the copied rows refer to. Stored files never change under their
path (a new revision is a new path), so a file is copied once: a second backup into the same
directory copies only the files it does not already hold with the same size and
modification time, and drops those the database no longer refers to, after the new
manifest is in place.

Export bundles are not backed up: they are made again from the data. A restore therefore
marks every ``READY`` export ``EXPIRED`` (its download would be gone), and ``check`` reports a
``READY`` export whose bundle is not in storage.

Every stored file is a ``sequence_file`` row (:mod:`seqcore.governance.purge`): its ``path`` and,
once the worker has decompressed an upload, the upload kept at ``original_path``; the upload's
SHA-256 is recorded in ``upload_sha256``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy import create_engine, inspect, text, update
from sqlalchemy.engine import URL, make_url

from seqcore import __version__
from seqcore.db import utcnow
from seqcore.exports.jobs import BUNDLE_DIRECTORY
from seqcore.models.export import DataExport, ExportState
from seqcore.storage.backends.base import Backend
from seqcore.storage.service import RUN_DIRECTORY

MANIFEST = "manifest.json"
FILES = "files"
SQLITE_DUMP = "database.sqlite"
POSTGRES_DUMP = "database.pgdump"
# Where uploads are written before they are placed (seqcore.storage.service.StorageWriter): files
# in flight, not stored files.
TEMPORARY_DIRECTORY = "tmp"
STORED_FILES = "SELECT path, original_path, size, upload_sha256 FROM sequence_file"
READY_EXPORTS = "SELECT id, path FROM data_export WHERE state = :ready ORDER BY id"
BLOCK = 1 << 20


class BackupError(Exception):
    """A backup, restore or check could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class StoredFile:
    """One file the database refers to: its storage path, and what is recorded of it."""

    path: str
    size: int | None = None
    sha256: str | None = None


@dataclass
class BackupReport:
    directory: Path
    database: str
    files: int = 0
    copied: int = 0
    copied_bytes: int = 0
    removed: int = 0


@dataclass
class CheckReport:
    """What ``seqcore check`` found; empty lists mean storage and database agree."""

    checked: int = 0
    missing: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    unreferenced: list[str] = field(default_factory=list)
    #: ``READY`` exports whose bundle is not in storage, as ``export <id> (<path>)``.
    bundleless: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return ([f"missing: {p}" for p in self.missing]
                + [f"checksum or size differs: {p}" for p in self.mismatched]
                + [f"unreferenced: {p}" for p in self.unreferenced]
                + [f"ready export without its bundle: {p}" for p in self.bundleless])


T = TypeVar("T")


class Track(Protocol):
    """Wraps a long loop to show its progress (the command line's bar on a terminal); the
    domain only says how many steps there are and what they are."""

    def __call__(self, items: Sequence[T], label: str) -> Iterable[T]: ...


def untracked(items: Sequence[T], label: str) -> Iterable[T]:
    """No progress shown (scripts, tests, the worker)."""
    return items


def stored_files(rows: Iterable[tuple[Any, ...]]) -> dict[str, StoredFile]:
    """The stored files of ``sequence_file`` rows (path, original_path, size, sha256). The
    size is that of ``path``; the checksum that of the upload (``original_path`` once the
    upload was decompressed, else ``path``)."""
    found: dict[str, StoredFile] = {}
    for path, original, size, sha in rows:
        if original:
            found[original] = StoredFile(original, None, sha)
            found.setdefault(path, StoredFile(path, size, None))
        elif path:
            found[path] = StoredFile(path, size, sha)
    return found


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing a path that leaves ``root`` (a damaged manifest)."""
    full = (root / relative).resolve()
    if not full.is_relative_to(root.resolve()):
        raise BackupError(f"refusing a stored path outside storage: {relative!r}")
    return full


# -- the database --------------------------------------------------------------------------

def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory SQLite database cannot be backed up or restored")
    return Path(url.database)


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A libpq connection URI for the command-line tools, and the environment carrying the
    password (never on a command line, where ``ps`` shows it)."""
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _major(version: str) -> int:
    """The major version in ``pg_dump --version``'s ``pg_dump (PostgreSQL) 15.20 (...)``."""
    match = re.search(r"\(PostgreSQL\)\s+(\d+)", version) or re.search(r"(\d+)", version)
    return int(match.group(1)) if match else 0


def check_client_version(tool: str, server_version_num: int) -> None:
    """``pg_dump`` and ``pg_restore`` must be at least the server's major version."""
    try:
        done = subprocess.run([tool, "--version"], capture_output=True, text=True,
                              check=True)
    except (OSError, subprocess.CalledProcessError) as err:
        raise BackupError(f"{tool} is needed for a PostgreSQL deployment (Debian: "
                          f"postgresql-client): {err}") from None
    client = _major(done.stdout)
    server = server_version_num // 10000
    if client < server:
        raise BackupError(f"{tool} {client} is older than the PostgreSQL {server} server; "
                          f"install postgresql-client-{server}")


def _backup_sqlite(url: URL, target: Path) -> dict[str, StoredFile]:
    """Copy the database to ``target``'s ``.partial`` name; the files it refers to."""
    source_path = _sqlite_path(url)
    if not source_path.is_file():
        raise BackupError(f"no database at {source_path}")
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    copy = sqlite3.connect(partial)
    try:
        source.backup(copy)
        files = stored_files(copy.execute(STORED_FILES).fetchall())
    except sqlite3.Error as err:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot back up {source_path} ({err}); is it a seqcore database "
                          "(seqcore db upgrade)?") from None
    finally:
        copy.close()
        source.close()
    return files


def _backup_postgres(url: URL, target: Path) -> dict[str, StoredFile]:
    """Dump the database to ``target``'s ``.partial`` name; the files it refers to."""
    engine = create_engine(url, isolation_level="REPEATABLE READ")
    uri, env = _libpq(url)
    partial = target.with_suffix(".partial")
    try:
        with engine.connect() as conn:
            check_client_version("pg_dump", int(conn.execute(
                text("SHOW server_version_num")).scalar_one()))
            # The dump and the file list come from one snapshot, held open by this
            # transaction while pg_dump reads it.
            snapshot = conn.execute(text("SELECT pg_export_snapshot()")).scalar_one()
            if "sequence_file" not in inspect(conn).get_table_names():
                raise BackupError("the database has no tables: run seqcore db upgrade")
            files = stored_files(conn.execute(text(STORED_FILES)).all())
            done = subprocess.run(["pg_dump", "--format=custom", "--no-owner",
                                   f"--snapshot={snapshot}", f"--file={partial}", uri],
                                  env=env, capture_output=True, text=True, check=False)
            conn.rollback()
    finally:
        engine.dispose()
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {done.stderr.strip()}")
    return files


# -- backup --------------------------------------------------------------------------------

def read_manifest(directory: Path) -> dict[str, Any] | None:
    path = directory / MANIFEST
    if not path.is_file():
        return None
    try:
        return cast("dict[str, Any] | None", json.loads(path.read_text()))
    except ValueError as err:
        raise BackupError(f"{path} is not a backup manifest: {err}") from None


def _write_json(path: Path, value: Any) -> None:
    partial = path.with_suffix(".partial")
    with open(partial, "w") as handle:
        json.dump(value, handle, indent=1, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def _copy(source: Path, target: Path) -> str:
    """Copy ``source`` to ``target`` (through a temporary name), returning the SHA-256 of
    the copy. The kernel copies (``copy_file_range``, a reflink where the file system has
    them); hashing the copy, still in the page cache, checks what was written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    shutil.copy2(source, partial)
    digest = sha256_of(partial)
    os.replace(partial, target)
    return digest


def backup(database_url: str, storage_root: str | Path, directory: str | Path,
           track: Track = untracked) -> BackupReport:
    """Write a snapshot of the deployment into ``directory`` (made if missing, updated
    incrementally if it holds an earlier backup)."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    storage = Path(storage_root)
    url = make_url(database_url)
    previous = read_manifest(target) or {}
    if url.get_backend_name() == "sqlite":
        dump, files = SQLITE_DUMP, _backup_sqlite(url, target / SQLITE_DUMP)
    elif url.get_backend_name() == "postgresql":
        dump, files = POSTGRES_DUMP, _backup_postgres(url, target / POSTGRES_DUMP)
    else:
        raise BackupError(f"cannot back up a {url.get_backend_name()} database")
    try:
        entries, report = _copy_files(files, storage, target, previous.get("files", {}),
                                      track)
    except BaseException:
        (target / dump).with_suffix(".partial").unlink(missing_ok=True)
        raise
    report.database = dump
    known = previous.get("files", {})
    # The new database copy replaces the old one only now that its files are all there, and
    # just before the manifest that lists them; one sync puts everything on disk first
    # (cheaper than one per file).
    os.sync()
    os.replace((target / dump).with_suffix(".partial"), target / dump)
    other_dump = POSTGRES_DUMP if dump == SQLITE_DUMP else SQLITE_DUMP
    _write_json(target / MANIFEST, {"format": 1, "seqcore": __version__, "database": dump,
                                    "files": entries})
    (target / other_dump).unlink(missing_ok=True)
    for relative in set(known) - set(entries):
        _inside(target / FILES, relative).unlink(missing_ok=True)
        report.removed += 1
    return report


def _copy_files(files: dict[str, StoredFile], storage: Path, target: Path,
                known: dict[str, Any], track: Track = untracked
                ) -> tuple[dict[str, dict[str, Any]], BackupReport]:
    """Copy the files not already in the backup; their manifest entries."""
    report = BackupReport(target, "", files=len(files))
    entries: dict[str, dict[str, Any]] = {}
    for relative in track(sorted(files), "backing up stored files"):
        source = _inside(storage, relative)
        copy = _inside(target / FILES, relative)
        try:
            stat = source.stat()
        except FileNotFoundError:
            raise BackupError(
                f"stored file {relative} is missing from storage (deleted since the "
                "database was copied, or lost: run seqcore check); nothing was "
                "replaced in the backup's manifest") from None
        entry = known.get(relative)
        if (entry and copy.is_file() and entry.get("size") == stat.st_size
                and entry.get("mtime_ns") == stat.st_mtime_ns
                and copy.stat().st_size == stat.st_size):
            entries[relative] = entry
            continue
        sha = _copy(source, copy)
        report.copied += 1
        report.copied_bytes += stat.st_size
        entries[relative] = {"sha256": sha, "size": stat.st_size,
                             "mtime_ns": stat.st_mtime_ns}
    return entries, report


# -- restore -------------------------------------------------------------------------------

def _database_is_empty(url: URL) -> bool:
    if url.get_backend_name() == "sqlite":
        path = _sqlite_path(url)
        if not path.exists() or path.stat().st_size == 0:
            return True
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return not inspect(conn).get_table_names()
    finally:
        engine.dispose()


def _storage_is_empty(storage: Path) -> bool:
    return not storage.exists() or not any(p.is_file() for p in storage.rglob("*"))


def restore(database_url: str, storage_root: str | Path, directory: str | Path,
            track: Track = untracked) -> int:
    """Restore the backup in ``directory`` into an empty deployment: a database without
    tables and a storage directory without files. Returns the number of files restored."""
    source = Path(directory)
    manifest = read_manifest(source)
    if manifest is None:
        raise BackupError(f"{source} holds no backup ({MANIFEST} is missing)")
    url = make_url(database_url)
    storage = Path(storage_root)
    if not _database_is_empty(url):
        raise BackupError("the database is not empty: restore only into a new deployment "
                          "(an empty database and storage directory)")
    if not _storage_is_empty(storage):
        raise BackupError(f"the storage directory {storage} is not empty: restore only "
                          "into a new deployment")
    files = manifest.get("files", {})
    for relative, entry in files.items():  # all present and intact before anything is written
        copy = _inside(source / FILES, relative)
        if not copy.is_file() or copy.stat().st_size != entry["size"]:
            raise BackupError(f"the backup lacks {relative} or it is damaged; nothing "
                              "was restored")
    dump = source / manifest["database"]
    if manifest["database"] == SQLITE_DUMP and url.get_backend_name() == "sqlite":
        database = _sqlite_path(url)
        database.parent.mkdir(parents=True, exist_ok=True)
        src = sqlite3.connect(f"file:{dump}?mode=ro", uri=True)
        dst = sqlite3.connect(database)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
    elif manifest["database"] == POSTGRES_DUMP and url.get_backend_name() == "postgresql":
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                check_client_version("pg_restore", int(conn.execute(
                    text("SHOW server_version_num")).scalar_one()))
        finally:
            engine.dispose()
        uri, env = _libpq(url)
        done = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error",
                               "--single-transaction", f"--dbname={uri}", str(dump)],
                              env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BackupError(f"pg_restore failed: {done.stderr.strip()}")
    else:
        raise BackupError(f"this backup holds a {manifest['database']} database; the "
                          f"deployment uses {url.get_backend_name()}")
    for relative in track(list(files), "restoring stored files"):
        entry = files[relative]
        target = _inside(storage, relative)
        sha = _copy(_inside(source / FILES, relative), target)
        if sha != entry["sha256"]:
            raise BackupError(f"{relative} in the backup does not match its checksum")
    os.sync()
    _expire_bundleless_exports(url)
    return len(files)


def _expire_bundleless_exports(url: URL) -> int:
    """Mark the restored ``READY`` exports ``EXPIRED``: a backup holds no bundles (they are
    made again from the data by asking for a new export), so a ready export would promise a
    download that is gone. Returns how many changed."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            if "data_export" not in inspect(conn).get_table_names():
                return 0
            return conn.execute(update(DataExport).where(
                DataExport.state == ExportState.READY.value).values(
                state=ExportState.EXPIRED.value, path=None, modified=utcnow())).rowcount
    finally:
        engine.dispose()


# -- check ---------------------------------------------------------------------------------

def _files_on_disk(storage: Path) -> Iterator[str]:
    for path in storage.rglob("*"):
        relative = path.relative_to(storage)
        if relative.parts[0] in (TEMPORARY_DIRECTORY, BUNDLE_DIRECTORY) or not path.is_file():
            continue
        yield relative.as_posix()


def check(database_url: str, storage_root: str | Path,
          track: Track = untracked, backend: Backend | None = None) -> CheckReport:
    """Every stored file the database refers to is in storage with its recorded size and
    checksum, and storage holds no file the database does not refer to. With an object-store
    ``backend``, its objects are checked (each read once to hash it)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and not _sqlite_path(url).is_file():
        raise BackupError(f"no database at {_sqlite_path(url)}")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if "sequence_file" not in inspect(conn).get_table_names():
                raise BackupError("the database has no tables: run seqcore db upgrade")
            files = stored_files(conn.execute(text(STORED_FILES)).all())
            ready = (conn.execute(text(READY_EXPORTS), {"ready": ExportState.READY.value}
                                  ).all()
                     if "data_export" in inspect(conn).get_table_names() else [])
    finally:
        engine.dispose()
    if backend is not None and backend.kind != "local":
        return _check_objects(backend, files, ready, track)
    storage = Path(storage_root)
    report = CheckReport()
    for relative in track(sorted(files), "checking stored files"):
        stored = files[relative]
        full = _inside(storage, relative)
        report.checked += 1
        if not full.is_file():
            report.missing.append(relative)
        elif ((stored.size is not None and full.stat().st_size != stored.size)
              or (stored.sha256 is not None and sha256_of(full) != stored.sha256)):
            report.mismatched.append(relative)
    if storage.exists():
        report.unreferenced = sorted(set(_files_on_disk(storage)) - set(files))
    report.bundleless = [f"export {export_id} ({path})" for export_id, path in ready
                         if not path or not _inside(storage, path).is_file()]
    return report



def _check_objects(backend: Backend, files: dict[str, StoredFile],
                   ready: Sequence[Any], track: Track) -> CheckReport:
    """:func:`check` of an object store: each object's size, then its SHA-256 read back."""
    from seqcore.storage.migrate import sha256_of as object_sha256

    report = CheckReport()
    for relative in track(sorted(files), "checking stored objects"):
        stored = files[relative]
        report.checked += 1
        size = backend.size(relative)
        if size is None:
            report.missing.append(relative)
        elif ((stored.size is not None and size != stored.size)
              or (stored.sha256 is not None and object_sha256(backend, relative)
                  != stored.sha256)):
            report.mismatched.append(relative)
    exported = {path for _, path in ready if path}
    report.unreferenced = sorted(
        key for key in backend.stored_keys()
        if key not in files and key not in exported
        and key.split("/", 1)[0] not in (TEMPORARY_DIRECTORY, BUNDLE_DIRECTORY, RUN_DIRECTORY))
    report.bundleless = [f"export {export_id} ({path})" for export_id, path in ready
                         if not path or backend.size(path) is None]
    return report
