"""Creating, migrating and emptying test databases."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine, make_url

from seqcore.db import Base, get_engine

URL_VARIABLE = "SEQCORE_TEST_DATABASE_URL"


def test_database_url(tmp_dir: Path, name: str) -> str:
    """A fresh database for ``name`` (the session's own is named after its pytest-xdist
    worker, ``main`` without xdist; a test needing a second one names its purpose). Under
    xdist the worker's id is part of every other name too, so two workers never drop each
    other's database on a shared PostgreSQL server."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and name != worker:
        name = f"{worker}_{name}"
    base = os.environ.get(URL_VARIABLE)
    if not base:
        return f"sqlite:///{tmp_dir / f'seqcore-test-{name}.sqlite'}"
    url = make_url(base)
    name = f"{url.database or 'seqcore_test'}_{name}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def empty_all_tables(engine: Engine) -> None:
    """Delete every row (children first); the schema and migration stamp stay."""
    existing = set(inspect(engine).get_table_names())
    tables = [t for t in reversed(Base.metadata.sorted_tables) if t.name in existing]
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            names = ", ".join(f'"{t.name}"' for t in tables)
            conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            for table in tables:
                conn.execute(table.delete())
            has_seq = conn.execute(text(
                "SELECT name FROM sqlite_master WHERE name='sqlite_sequence'")).first()
            if has_seq:
                conn.execute(text("DELETE FROM sqlite_sequence"))


def make_engine(url: str) -> Engine:
    return get_engine(url)
