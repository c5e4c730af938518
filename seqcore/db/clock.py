"""The database's own clock, in UTC, as a SQL expression comparable with stored timestamps.

Conditions that depend on the time (a membership that expired) are built once and kept
(:mod:`seqcore.security.access` caches its statements, :mod:`seqcore.db.prepared` compiles
and binds them once), so "now" cannot be a parameter bound when the statement is built: it
must be evaluated by the database at every execution. :class:`utc_now` compiles to each
backend's clock in the form :class:`seqcore.db.base.UTCDateTime` stores: PostgreSQL's
``timestamp without time zone`` in UTC, SQLite's ``YYYY-MM-DD HH:MM:SS.ffffff`` text (so
text comparison orders it with stored values; SQLite's clock has millisecond precision).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement


class utc_now(FunctionElement[Any]):
    """Now, in UTC, by the database's clock (the same machine's clock as Python's
    :func:`seqcore.db.utcnow` wherever seqcore runs beside its database)."""

    type = DateTime()
    inherit_cache = True


@compiles(utc_now)
def _default(element: utc_now, compiler: Any, **kw: Any) -> str:
    return "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')"


@compiles(utc_now, "sqlite")
def _sqlite(element: utc_now, compiler: Any, **kw: Any) -> str:
    return "(strftime('%Y-%m-%d %H:%M:%f', 'now') || '000')"
