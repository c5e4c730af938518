"""Holding a row until the transaction ends, on PostgreSQL and SQLite alike."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session


def lock_row(db: Session, model: Any, row_id: int) -> None:
    """Hold ``model``'s row ``row_id`` until the transaction ends.

    PostgreSQL: ``SELECT ... FOR UPDATE``; a second request waits there, then (read
    committed) sees what the first committed, and a row inserted meanwhile that refers to
    this one waits too (its foreign-key check needs a lock this one excludes). SQLite has no
    row locks, SQLAlchemy drops ``FOR UPDATE`` there, and its driver opens a transaction only
    at the first write, so every earlier read saw an unlocked database: a no-op ``UPDATE``
    takes SQLite's single write lock (the busy timeout queues the others) and starts the
    transaction, so every read after it sees the latest commit and nobody else writes until
    this one ends.
    """
    if db.get_bind().dialect.name == "sqlite":
        db.execute(update(model).where(model.id == row_id).values(id=model.id)
                   .execution_options(synchronize_session=False))
    else:
        db.execute(select(model.id).where(model.id == row_id).with_for_update())
