"""Transactions that begin at the first write, on PostgreSQL as on SQLite.

psycopg sends ``BEGIN`` before the first statement on a connection, in a round trip of its
own, and the request's end sends ``COMMIT`` or ``ROLLBACK``, another one, even for a request
that only read: a ``GET`` of a project spent two of its four round trips on a transaction
that held nothing. SQLite's Python driver already works as this module makes psycopg work:
it opens a transaction just before the first statement that writes, and reads run without
one (:mod:`seqcore.db.locks` and the GraphQL mutations rely on that).

So the engine's PostgreSQL connections are in the driver's autocommit mode, and
:func:`begin_before_writes`, listening before every statement, sends ``BEGIN`` on the
statement's connection when no transaction is open and the statement is not a plain read.
From there the connection is in a transaction as before, and the usual commit or rollback
(SQLAlchemy's, at the request's end) ends it: psycopg's ``commit()`` and ``rollback()`` end
whatever transaction is open, in autocommit mode too.

Reads run before the first write see what they would have seen inside the transaction:
seqcore's sessions run at READ COMMITTED, where each statement reads what was committed when
it started anyway, and a plain read takes no row lock. What is a plain read is decided
conservatively, from the statement's text: a ``SELECT`` (or ``WITH ... SELECT``) naming
none of ``INSERT``, ``UPDATE``, ``DELETE``, ``MERGE``, ``SHARE`` (``FOR SHARE``) and no
``LOCK`` (``FOR UPDATE`` is caught by ``UPDATE``, advisory locks by ``LOCK``), and not read
through a server-side cursor (those live in a transaction). Anything else, ``SAVEPOINT``
and DDL included, begins the transaction first; a read mistaken for a write only costs the
``BEGIN`` it always cost.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

_SELECT = re.compile(r"\s*\(?\s*(SELECT|WITH)\b", re.IGNORECASE)
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|SHARE)\b|LOCK", re.IGNORECASE)

_READS: dict[str, bool] = {}  # statement text -> plain read (statements repeat: compiled once)
_READS_LIMIT = 5000


def plain_read(statement: str) -> bool:
    """Whether ``statement`` only reads and locks nothing (see the module)."""
    known = _READS.get(statement)
    if known is None:
        known = bool(_SELECT.match(statement)) and _WRITES.search(statement) is None
        if len(_READS) >= _READS_LIMIT:
            _READS.clear()
        _READS[statement] = known
    return known


def defers_transactions(url: Any) -> bool:
    """Whether the database at ``url`` (a :class:`sqlalchemy.engine.URL`) gets transactions
    begun at the first write from this module: PostgreSQL through psycopg."""
    return url.get_backend_name() == "postgresql" and url.get_driver_name() == "psycopg"


def defer_transactions(engine: Engine) -> None:
    """Make ``engine`` (created with ``isolation_level="AUTOCOMMIT"``) begin each
    transaction at its first write."""
    from psycopg.pq import TransactionStatus

    idle = TransactionStatus.IDLE

    def begin_before_writes(conn: Any, cursor: Any, statement: str, parameters: Any,
                            context: Any, executemany: bool) -> tuple[str, Any]:
        """``BEGIN`` before a statement that is not a plain read, or that streams, when the
        connection has no transaction open."""
        dbapi_connection = cursor.connection
        if dbapi_connection.info.transaction_status == idle:
            streams = context is not None and context.execution_options.get("stream_results")
            if streams or not plain_read(statement):
                dbapi_connection.execute("BEGIN")
        return statement, parameters

    # A plain read needs nothing from this listener: seqcore.db.prepared may run one on the
    # driver's cursor without it (IGNORES_PLAIN_READS there). Registered with retval, so that
    # the engine keeps this very function, which carries the mark, rather than a wrapper.
    begin_before_writes.seqcore_ignores_plain_reads = True  # type: ignore[attr-defined]
    event.listen(engine, "before_cursor_execute", begin_before_writes, retval=True)
