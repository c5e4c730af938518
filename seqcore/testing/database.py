"""Creating, migrating and emptying test databases."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import URL, Engine, make_url

from seqcore.db import Base, get_engine

URL_VARIABLE = "SEQCORE_TEST_DATABASE_URL"


def _named(name: str) -> str:
    """``name`` with the pytest-xdist worker's id in front (unless it is that id)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"{worker}_{name}" if worker and name != worker else name


def _server(url: URL) -> Engine:
    return create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")


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
    name = f"{url.database or 'seqcore_test'}_{name}"
    admin = _server(url)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


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
        target = tmp_dir / f"seqcore-test-{_named(name)}.sqlite"
        copy_sqlite(Path(url.database), target)
        return f"sqlite:///{target}"
    fresh = make_url(test_database_url(tmp_dir, name))
    admin = _server(url)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{fresh.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{fresh.database}" TEMPLATE "{url.database}"'))
    admin.dispose()
    return fresh.render_as_string(hide_password=False)


def empty_all_tables(engine: Engine) -> None:
    """Delete every row (children first); the schema and migration stamp stay."""
    existing = set(inspect(engine).get_table_names())
    tables = [t for t in reversed(Base.metadata.sorted_tables) if t.name in existing]
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


def make_engine(url: str) -> Engine:
    return get_engine(url)
