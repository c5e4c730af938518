"""Reads on every request's path, without SQLAlchemy's per-execution work.

Every API request reads the revocation generation and, for most paths, traverses through a
project: one small SELECT each. Through SQLAlchemy Core the project-with-ACL statement
(:meth:`seqcore.security.access.Rules.with_acl`: eight ``UNION ALL`` branches and 28 parameters)
cost 127 µs per execution against 31 µs on the driver's own cursor. Most of the difference is done
again on every execution although it never changes: hashing the statement's cache key (Python does
not keep a tuple's hash), processing the constant parameters, building the execution context and the
result's metadata. In process, ``GET /api/projects/{id}`` went from 836 to 631 µs with both
statements read as here (``bench/api.py``).

A :class:`PreparedRead` compiles its statement once per dialect, processes its constant
parameters once, and runs it on the DBAPI cursor of the connection it is given: the
session's, so the read belongs to the request's transaction as any other. Values come back
through the column types' own result processors, so a row holds what Core would have
returned; rows are named tuples with the statement's column keys.

On psycopg the statement is also turned, once, into PostgreSQL's own ``$1`` placeholders and
run on a raw cursor (:class:`psycopg.RawCursor`). Through a plain cursor, psycopg parses the
``%(name)s`` placeholders out of the statement again on every execution when the statement is
longer than it caches (4,096 bytes; the ACL statements are): that parsing was 14 % of the
server's CPU under ``bench/api.py --mix`` on PostgreSQL.

Only plain reads are prepared: on PostgreSQL they need no ``BEGIN``
(:mod:`seqcore.db.deferred`), and :func:`seqcore.db.deferred.plain_read` is checked when the
statement is compiled. Whoever else listens to the engine's cursor events (a test counting
statements, a profiler) would miss a statement run this way: while anyone does, the
statement goes through Core, so they see it.
"""

from __future__ import annotations

import re
import weakref
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.util import identity_key

from seqcore.db.deferred import plain_read

# A pyformat placeholder or an escaped percent sign, in a statement compiled for psycopg.
_PYFORMAT = re.compile(r"%\((?P<name>[^)]+)\)s|%%")

# Marks a cursor-event listener that has nothing to do for a plain read (set on the function).
IGNORES_PLAIN_READS = "seqcore_ignores_plain_reads"


def _watched(connection: Connection) -> bool:
    """Whether anyone but seqcore's own listeners watches the connection's statements."""
    dispatch = connection.dispatch
    if dispatch.after_cursor_execute:
        return True
    return any(not getattr(listener, IGNORES_PLAIN_READS, False)
               for listener in dispatch.before_cursor_execute)


@dataclass
class _Compiled:
    sql: str
    order: tuple[str, ...] | None  # parameter names by position; None: named parameters
    constants: dict[str, Any]  # the statement's own values, processed for the driver
    variables: dict[str, Callable[[Any], Any] | None]  # bound at execution, their processors
    results: list[Callable[[Any], Any] | None] | None = field(default=None)
    raw: bool = False  # ``sql`` has ``$n`` placeholders, for a psycopg raw cursor


def numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """``sql`` compiled with ``%(name)s`` placeholders, with PostgreSQL's ``$n`` instead (a
    name used twice keeps its number) and ``%%`` back to ``%``; and the names by number."""
    names: dict[str, int] = {}

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name is None:
            return "%"
        number = names.setdefault(name, len(names) + 1)
        return f"${number}"

    return _PYFORMAT.sub(replace, sql), tuple(names)


class PreparedRead:
    """A Core ``SELECT`` run as in the module's description; ``all(connection, **params)``
    returns its rows."""

    def __init__(self, statement: Select, variables: tuple[str, ...]) -> None:
        self.statement = statement
        self.variables = variables
        self.row: Any = namedtuple("Row", statement.selected_columns.keys())  # type: ignore[misc]
        self._by_dialect: weakref.WeakKeyDictionary[Dialect, _Compiled] = (
            weakref.WeakKeyDictionary())

    def compile_for(self, dialect: Dialect) -> None:
        """Compile the statement for ``dialect`` now, not on its first execution: a server
        does it while starting (:func:`seqcore.config.main`), since compiling an ACL
        statement takes tens of milliseconds that the first requests of every worker
        process would otherwise wait for."""
        if dialect not in self._by_dialect:
            self._by_dialect[dialect] = self._compile(dialect)

    def all(self, connection: Connection, **params: Any) -> list[Any]:
        if _watched(connection):
            make = self.row._make
            return [make(row) for row in connection.execute(self.statement, params)]
        fetched, results = self._fetch(connection, params)
        make = self.row._make
        return [make([value if process is None else process(value)
                      for process, value in zip(results, row, strict=True)])
                for row in fetched]

    def tuples(self, connection: Connection, **params: Any) -> list[tuple[Any, ...]]:
        """The rows as plain tuples, for a collection of thousands: the driver's own rows
        when no column has a result processor (a named tuple and a list per row cost a
        thousand-project collection a millisecond)."""
        if _watched(connection):
            return [tuple(row) for row in connection.execute(self.statement, params)]
        fetched, results = self._fetch(connection, params)
        if all(process is None for process in results):
            return [row if type(row) is tuple else tuple(row) for row in fetched]
        return [tuple(value if process is None else process(value)
                      for process, value in zip(results, row, strict=True))
                for row in fetched]

    def _fetch(self, connection: Connection, params: dict[str, Any]
               ) -> tuple[list[Any], list[Callable[[Any], Any] | None]]:
        """The driver's rows, and the result processor of each column."""
        compiled = self._by_dialect.get(connection.dialect)
        if compiled is None:
            compiled = self._by_dialect[connection.dialect] = self._compile(connection.dialect)
        values = dict(compiled.constants)
        for name, process in compiled.variables.items():
            value = params[name]
            values[name] = value if process is None else process(value)
        cursor: Any
        if compiled.raw:
            from psycopg import RawCursor

            cursor = RawCursor(cast("Any", connection.connection.dbapi_connection))
        else:
            cursor = connection.connection.cursor()
        try:
            cursor.execute(compiled.sql, values if compiled.order is None
                           else [values[name] for name in compiled.order])
            fetched = cursor.fetchall()
            results = compiled.results
            if results is None:
                results = compiled.results = self._result_processors(
                    connection.dialect, cursor.description)
        finally:
            cursor.close()
        return fetched, results

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self.statement.compile(dialect=dialect)
        if compiled.literal_execute_params or compiled.post_compile_params:
            raise ValueError("a prepared read takes no expanding or literal-execute parameter")
        if not plain_read(compiled.string):
            raise ValueError("only a plain read can be prepared")
        constants: dict[str, Any] = {}
        variables: dict[str, Callable[[Any], Any] | None] = {}
        for bind, name in compiled.bind_names.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if name in self.variables:
                variables[name] = process
            else:
                value = compiled.params[name]
                constants[name] = value if process is None else process(value)
        missing = set(self.variables) - set(variables)
        if missing:
            raise ValueError(f"the statement binds no {', '.join(sorted(missing))}")
        if dialect.driver == "psycopg" and not compiled.positional:
            sql, names = numbered(compiled.string)
            return _Compiled(sql, names, constants, variables, raw=True)
        order = tuple(compiled.positiontup) if compiled.positional else None  # type: ignore[arg-type]
        return _Compiled(compiled.string, order, constants, variables)

    def _result_processors(self, dialect: Dialect, description: Any
                           ) -> list[Callable[[Any], Any] | None]:
        columns = list(self.statement.selected_columns)
        return [column.type.dialect_impl(dialect).result_processor(dialect, entry[1])
                for column, entry in zip(columns, description, strict=True)]


def attach(db: Session, model: type, row: Any) -> Any:
    """The mapped ``model`` object for a row holding all of its table's columns (by key), in
    ``db`` without another query: the session's own copy if it has one (as an ORM query
    would return it), else one built from the row and attached as persistent and unchanged
    (changing it then writes an UPDATE, and its relationships load as a loaded object's
    would)."""
    if isinstance(row, model):
        return row
    columns = model.__table__.columns  # type: ignore[attr-defined]
    primary_key = tuple(getattr(row, column.key) for column in
                        model.__table__.primary_key.columns)  # type: ignore[attr-defined]
    key: tuple[type[Any], tuple[Any, ...], Any] = identity_key(model, primary_key)
    obj = db.identity_map.get(key)
    if obj is None:
        obj = model(**{column.key: getattr(row, column.key) for column in columns})
        make_transient_to_detached(obj)
        db.add(obj)
    return obj
