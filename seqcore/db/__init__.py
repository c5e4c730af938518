"""Database access: the declarative base, engines, and the per-request session.

Every request gets ``request.db``, a session joined to the request's transaction by
zope.sqlalchemy, so pyramid_tm commits it when the view succeeds and rolls it back on any
error: a failed request leaves no half-written rows.
"""

from seqcore.db import identity  # noqa: F401  (ids never reused: SQLite AUTOINCREMENT)
from seqcore.db.base import AnySelect, Base, utcnow
from seqcore.db.session import (
    get_engine,
    get_session_factory,
    includeme,
    request_engine,
    rowcount,
    session_for,
)

__all__ = ["AnySelect", "Base", "get_engine", "get_session_factory", "includeme",
           "request_engine", "rowcount", "session_for", "utcnow"]
