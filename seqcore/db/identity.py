"""Row ids are never reused, on PostgreSQL and SQLite alike.

Clients and other installs keep links such as ``/api/users/7``; if a deleted row's id came
back for a new row, those links would name a different object. PostgreSQL's sequences
never hand a number out twice. SQLite, without ``AUTOINCREMENT``, gives a new row the
largest id plus one, so deleting the newest row lets its id return. Every table whose
primary key is one integer column is therefore created with ``AUTOINCREMENT`` on SQLite,
whoever creates it (``create_all``, a core or plugin migration's ``op.create_table``, a
batch migration's rebuild): :func:`never_reuse_ids` listens to every table's
``before_create``. Tables made before this rule are rebuilt by migration ``c0020``
(:func:`rebuild_with_autoincrement`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Integer, Table, event
from sqlalchemy.engine import Connection


def single_integer_key(table: Table) -> bool:
    """Whether the table's primary key is one integer column that SQLite's
    ``AUTOINCREMENT`` can apply to (not also a foreign key)."""
    columns = list(table.primary_key.columns)
    return (len(columns) == 1 and isinstance(columns[0].type, Integer)
            and not columns[0].foreign_keys)


@event.listens_for(Table, "before_create")
def never_reuse_ids(table: Table, connection: Any, **_: Any) -> None:
    """On SQLite, create ``table`` with ``AUTOINCREMENT`` when its key allows it."""
    if connection.dialect.name == "sqlite" and single_integer_key(table):
        table.dialect_kwargs["sqlite_autoincrement"] = True


def _autoincrement_sql(sql: str, column: str) -> str:
    """``sql`` (a ``CREATE TABLE`` as SQLite keeps it) with the key column declared
    ``PRIMARY KEY AUTOINCREMENT`` instead of a table-level ``PRIMARY KEY (column)``.
    :class:`ValueError` when the text is not in the shape SQLAlchemy writes, so a table
    is never rebuilt from a guess."""
    name = rf'(?:"{re.escape(column)}"|{re.escape(column)})'
    constraint = re.compile(rf',\s*(?:CONSTRAINT\s+\S+\s+)?PRIMARY KEY\s*\(\s*{name}\s*\)',
                            re.IGNORECASE)
    definition = re.compile(rf'(\(\s*|,\s*){name}(\s+INTEGER\s+NOT NULL)(?=\s*,)',
                            re.IGNORECASE)
    if len(constraint.findall(sql)) != 1 or len(definition.findall(sql)) != 1:
        raise ValueError(f"unexpected table definition: {sql}")
    sql = constraint.sub("", sql)
    return definition.sub(rf'\1"{column}"\2 PRIMARY KEY AUTOINCREMENT', sql)


def rebuild_with_autoincrement(connection: Connection) -> list[str]:
    """Rebuild every SQLite table whose key is one integer column and that lacks
    ``AUTOINCREMENT``, keeping its rows, columns, constraints, indexes and triggers
    (SQLite's own twelve-step procedure for table changes; foreign keys must be off, as
    :mod:`seqcore.migrations.env` sets them for migrations). Returns the tables rebuilt."""
    rebuilt = []
    tables = list(connection.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version' ORDER BY name"))
    for name, sql in tables:
        if "AUTOINCREMENT" in sql.upper():
            continue
        info = list(connection.exec_driver_sql(f'PRAGMA table_info("{name}")'))
        keys = [row for row in info if row[5]]
        if len(keys) != 1 or keys[0][2].upper() != "INTEGER":
            continue
        column = keys[0][1]
        if any(row[3] == column for row in connection.exec_driver_sql(
                f'PRAGMA foreign_key_list("{name}")')):
            continue
        extras = [row[0] for row in connection.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', "
            "'trigger') AND sql IS NOT NULL", (name,))]
        temporary = f"_autoincrement_{name}"
        created = _autoincrement_sql(sql, column)
        created = re.sub(r'^CREATE TABLE\s+(?:"[^"]+"|\S+)', f'CREATE TABLE "{temporary}"',
                         created, count=1)
        connection.exec_driver_sql(created)
        names = ", ".join(f'"{row[1]}"' for row in info)
        connection.exec_driver_sql(
            f'INSERT INTO "{temporary}" ({names}) SELECT {names} FROM "{name}"')
        connection.exec_driver_sql(f'DROP TABLE "{name}"')
        connection.exec_driver_sql(f'ALTER TABLE "{temporary}" RENAME TO "{name}"')
        for statement in extras:
            connection.exec_driver_sql(statement)
        rebuilt.append(name)
    return rebuilt


@contextmanager
def rebuild_kept(connection: Connection, table: str) -> Iterator[None]:
    """Keep what SQLite loses when a batch migration rebuilds ``table``: its highest id
    ever handed out and its triggers.

    ``op.batch_alter_table`` (when SQLite cannot alter in place) copies the rows into a new
    table, whose ``AUTOINCREMENT`` counter then starts from the largest id still present (a
    deleted row's id would come back), and drops the old table's triggers with it (the
    revocation generation's, :mod:`seqcore.migrations.versions.c0010_auth_generation`, would
    stop firing). Wrap the batch in this to put both back. Nothing to do on PostgreSQL."""
    if connection.dialect.name != "sqlite":
        yield
        return
    before = connection.exec_driver_sql(
        "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).scalar()
    triggers = [(name, sql) for name, sql in connection.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
        (table,))]
    yield
    present = {name for (name,) in connection.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", (table,))}
    for name, sql in triggers:
        if name not in present:
            connection.exec_driver_sql(sql)
    if before is None:
        return
    after = connection.exec_driver_sql(
        "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).scalar()
    if after is None:
        connection.exec_driver_sql(
            "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, before))
    elif after < before:
        connection.exec_driver_sql(
            "UPDATE sqlite_sequence SET seq = ? WHERE name = ?", (before, table))


__all__ = [
    "never_reuse_ids",
    "rebuild_kept",
    "rebuild_with_autoincrement",
    "single_integer_key",
]
