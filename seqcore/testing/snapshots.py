"""A test database's rows and storage, taken once and put back for each test that starts from
them.

A fixture that builds the same world for hundreds of parametrized tests (accounts, projects,
files, analyses) spends most of each test making it through the factories. It can build it
once per pytest-xdist worker, take a :class:`Snapshot`, and for every later test put the
snapshot back into the database and storage the kit's ``engine`` fixture emptied: the same
rows with the same ids, the same sequence positions and the same stored files, so the test
cannot tell the two apart. The rows travel in the database's own form (SQLite's values as
its driver returns them, PostgreSQL's ``COPY`` text), never through the models' types.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from seqcore.db import Base


@dataclass
class Snapshot:
    """What :func:`take_snapshot` read: each table's rows (parents first), the sequences'
    positions, and a copy of the storage directory."""

    tables: list[tuple[str, list[str], Any]] = field(default_factory=list)
    sequences: list[tuple[str, int]] = field(default_factory=list)
    storage: Path | None = None


def _tables(engine: Engine) -> list[str]:
    existing = set(inspect(engine).get_table_names())
    return [t.name for t in Base.metadata.sorted_tables if t.name in existing]


def take_snapshot(engine: Engine, storage: Path) -> Snapshot:
    """The rows of every table the kit empties between tests, and the files under
    ``storage`` (copied to a directory removed when the process ends)."""
    snapshot = Snapshot()
    with engine.connect() as conn:
        for name in _tables(engine):
            if engine.dialect.name == "postgresql":
                data = _copy_out(conn, name)
                if data:
                    snapshot.tables.append((name, [], data))
                continue
            result = conn.exec_driver_sql(f'SELECT * FROM "{name}"')
            rows = [tuple(row) for row in result]
            if rows:
                snapshot.tables.append((name, list(result.keys()), rows))
        if engine.dialect.name == "postgresql":
            snapshot.sequences = [(str(name), int(value)) for name, value in conn.execute(text(
                "SELECT sequencename, last_value FROM pg_sequences "
                "WHERE schemaname = current_schema() AND last_value IS NOT NULL"))]
        elif conn.execute(text("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'")
                          ).first():
            snapshot.sequences = [(str(name), int(value)) for name, value in conn.execute(
                text("SELECT name, seq FROM sqlite_sequence"))]
        conn.rollback()
    if storage.exists():
        copy = Path(tempfile.mkdtemp(prefix="seqcore-snapshot-"))
        shutil.copytree(storage, copy, dirs_exist_ok=True)
        snapshot.storage = copy
        atexit.register(shutil.rmtree, copy, ignore_errors=True)
    return snapshot


def _copy_out(conn: Connection, name: str) -> bytes:
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor.copy(f'COPY "{name}" TO STDOUT') as copy:
        return b"".join(bytes(chunk) for chunk in copy)


def restore_snapshot(engine: Engine, snapshot: Snapshot, storage: Path) -> None:
    """Put ``snapshot`` back into the emptied database and storage: every row with its id,
    every sequence where it stood, every file."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            for name, _, data in snapshot.tables:
                with cursor.copy(f'COPY "{name}" FROM STDIN') as copy:
                    copy.write(data)
            for name, value in snapshot.sequences:
                conn.execute(text("SELECT setval(CAST(:name AS regclass), :value, true)"),
                             {"name": f'"{name}"', "value": value})
        else:
            # Rows that name others of their own table are checked at the commit.
            conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
            for name, columns, rows in snapshot.tables:
                listed = ", ".join(f'"{column}"' for column in columns)
                marks = ", ".join("?" for _ in columns)
                conn.exec_driver_sql(f'INSERT INTO "{name}" ({listed}) VALUES ({marks})', rows)
            if snapshot.sequences:
                conn.exec_driver_sql("DELETE FROM sqlite_sequence")
                conn.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)",
                                     snapshot.sequences)
    if snapshot.storage is not None:
        shutil.copytree(snapshot.storage, storage, dirs_exist_ok=True)
