"""Creating, migrating and emptying test databases."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine, make_url

from seqcore.db import Base, get_engine

URL_VARIABLE = "SEQCORE_TEST_DATABASE_URL"


def test_database_url(tmp_dir: Path, worker: str) -> str:
    """A fresh database for this test session (one per xdist worker)."""
    base = os.environ.get(URL_VARIABLE)
    if not base:
        return f"sqlite:///{tmp_dir / f'seqcore-test-{worker}.sqlite'}"
    url = make_url(base)
    name = f"{url.database or 'seqcore_test'}_{worker}"
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
