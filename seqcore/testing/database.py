"""Creating, migrating and emptying test databases."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from seqcore.db import Base, get_engine

URL_VARIABLE = "SEQCORE_TEST_DATABASE_URL"


def _named(name: str) -> str:
    """``name`` with the pytest-xdist worker's id in front (unless it is that id)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"{worker}_{name}" if worker and name != worker else name


def _server(url: URL) -> Engine:
    return create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")


def recreate_database(url: URL, template: str | None = None) -> None:
    """Drop the PostgreSQL database ``url`` names, if it exists (its connections closed), and
    create it again: empty, or a copy of ``template`` (``CREATE DATABASE ... TEMPLATE``;
    nothing may be connected to the template).

    Its sessions commit without waiting for the write-ahead log to reach the disk
    (``synchronous_commit = off``): a test database need not survive a power cut, and the
    suite commits tens of thousands of times, each otherwise an fsync on a shared disk. What
    a committed transaction shows to every other connection, the locks and the isolation
    are PostgreSQL's own either way."""
    admin = _server(url)
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)'))
            copy = f' TEMPLATE "{template}"' if template is not None else ""
            conn.execute(text(f'CREATE DATABASE "{url.database}"{copy}'))
            conn.execute(text(f'ALTER DATABASE "{url.database}" SET synchronous_commit = off'))
    finally:
        admin.dispose()


def test_database_url(tmp_dir: Path, name: str) -> str:
    """A fresh database for ``name`` (the session's own is named after its pytest-xdist
    worker, ``main`` without xdist; a test needing a second one names its purpose). Under
    xdist the worker's id is part of every other name too, so two workers never drop each
    other's database on a shared PostgreSQL server."""
    name = _named(name)
    base = os.environ.get(URL_VARIABLE)
    if not base:
        return f"sqlite:///{tmp_dir / f'seqcore-test-{name}.sqlite'}"
    url = make_url(base)
    url = url.set(database=f"{url.database or 'seqcore_test'}_{name}")
    recreate_database(url)
    return url.render_as_string(hide_password=False)


def copy_sqlite(source: Path, target: Path) -> None:
    """``target`` holds what the SQLite file ``source`` holds (SQLite's backup: whatever is
    still in a write-ahead log comes along)."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def copy_database(source: str, tmp_dir: Path, name: str) -> str:
    """A fresh database for ``name`` (named as :func:`test_database_url` names it) holding
    what ``source`` holds: a template migrated and filled once (with the ``seqcore``
    command, say) and copied for each test, instead of migrating for each. Nothing may be
    connected to ``source`` on PostgreSQL (``CREATE DATABASE ... TEMPLATE``)."""
    url = make_url(source)
    if url.get_backend_name() == "sqlite":
        if url.database is None:
            raise ValueError(f"{source} names no SQLite file to copy")
        target = tmp_dir / f"seqcore-test-{_named(name)}.sqlite"
        copy_sqlite(Path(url.database), target)
        return f"sqlite:///{target}"
    fresh = make_url(test_database_url(tmp_dir, name))
    recreate_database(fresh, template=url.database)
    return fresh.render_as_string(hide_password=False)


# On PostgreSQL: the tables TRUNCATE ... CASCADE would empty along with the named ones (every
# table whose foreign key refers to one of them, and so on).
_PG_CASCADE = """
WITH RECURSIVE reach(oid) AS (
    SELECT c.oid FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      AND c.relname = ANY(:names)
    UNION
    SELECT k.conrelid FROM pg_constraint k JOIN reach ON k.confrelid = reach.oid
    WHERE k.contype = 'f'
)
SELECT c.relname FROM pg_class c JOIN reach ON reach.oid = c.oid
"""
# The sequences TRUNCATE ... RESTART IDENTITY would restart (owned by a column of one of the
# tables), those used since they were last restarted, back to their start (is_called false,
# as RESTART leaves them).
_PG_RESTART_SEQUENCES = """
SELECT setval(s.oid, q.start_value, false)
FROM pg_class s
JOIN pg_sequences q ON q.schemaname = current_schema() AND q.sequencename = s.relname
JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid
    AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
JOIN pg_class t ON t.oid = d.refobjid
WHERE s.relkind = 'S' AND s.relnamespace = current_schema()::regnamespace
  AND q.last_value IS NOT NULL AND t.relname = ANY(:names)
"""


# Servers (URLs) where the quick way failed, left to TRUNCATE from then on.
_QUICK_REFUSED: set[str] = set()


def _occupied(conn: Connection, names: list[str]) -> list[str]:
    """Those of the tables ``names`` that hold a row."""
    probes = " UNION ALL ".join(
        f"SELECT {index} WHERE EXISTS (SELECT 1 FROM \"{name}\")"
        for index, name in enumerate(names))
    return [names[index] for index in conn.execute(text(probes)).scalars()]


def _empty_postgresql_quickly(engine: Engine, names: list[str]) -> bool:
    """What ``TRUNCATE names RESTART IDENTITY CASCADE`` does, for the tables a test wrote to
    only: the same locks (so a transaction still writing is waited for, and nothing writes
    until this commits), then DELETE without triggers (TRUNCATE fires none; the
    append-only guards and the revocation triggers stay installed) and the used sequences
    restarted. A test writes to a few tables, and TRUNCATE makes new files for every table
    and index it names: this takes a fraction of its time. False when it cannot (the role may
    not set session_replication_role, say: then it is not tried again on that server), or when
    a table is left with a row."""
    if engine.url.render_as_string(hide_password=True) in _QUICK_REFUSED:
        return False
    try:
        with engine.begin() as conn:
            cascade = list(conn.execute(text(_PG_CASCADE), {"names": names}).scalars())
            if not cascade:
                return True
            quoted = ", ".join(f'"{name}"' for name in cascade)
            conn.execute(text(f"LOCK TABLE {quoted} IN ACCESS EXCLUSIVE MODE"))
            conn.execute(text("SET LOCAL session_replication_role = replica"))
            for name in _occupied(conn, cascade):
                conn.execute(text(f'DELETE FROM "{name}"'))
            conn.execute(text("SET LOCAL session_replication_role = origin"))
            if _occupied(conn, cascade):
                raise RuntimeError("a table kept a row")
            conn.execute(text(_PG_RESTART_SEQUENCES), {"names": cascade})
    except DBAPIError:
        _QUICK_REFUSED.add(engine.url.render_as_string(hide_password=True))
        return False
    except RuntimeError:
        return False
    return True


def empty_all_tables(engine: Engine) -> None:
    """Delete every row (children first); the schema and migration stamp stay."""
    existing = set(inspect(engine).get_table_names())
    tables = [t for t in reversed(Base.metadata.sorted_tables) if t.name in existing]
    if engine.dialect.name == "postgresql" and _empty_postgresql_quickly(
            engine, [t.name for t in tables]):
        return
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            names = ", ".join(f'"{t.name}"' for t in tables)
            conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            # The trail's triggers refuse DELETE (TRUNCATE above passes them): lifted while
            # the kit empties the tables, then put back.
            from seqcore.models.activity import GUARDS, UNGUARDS

            guarded = "activity" in existing
            for statement in UNGUARDS["sqlite"] if guarded else ():
                conn.execute(text(statement))
            for table in tables:
                conn.execute(table.delete())
            for statement in GUARDS["sqlite"] if guarded else ():
                conn.execute(text(statement))
            has_seq = conn.execute(text(
                "SELECT name FROM sqlite_master WHERE name='sqlite_sequence'")).first()
            if has_seq:
                conn.execute(text("DELETE FROM sqlite_sequence"))


def _sqlite_without_fsync(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.close()


def make_engine(url: str) -> Engine:
    """The suite's engine, as the application makes it (:func:`seqcore.db.get_engine`), with
    SQLite's commits not waiting for the disk (``PRAGMA synchronous=OFF``): as on
    PostgreSQL (:func:`recreate_database`), a test database need not survive a power cut,
    and every other guarantee (WAL, foreign keys, locking) stays the application's."""
    engine = get_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_without_fsync)
    return engine
