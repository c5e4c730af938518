"""The revocation generation: one value, in the database, that changes whenever anything a
cached bearer-token check depends on changes.

Every web worker keeps the outcome of checking a bearer token in memory for a short while
(:mod:`seqcore.oauth.tokens`). So that revoking a token (or its client, or disabling,
renaming or re-roling its account, or deleting any of them) takes effect at once on every
worker, database triggers (migration ``c0010``) change the single row of
``auth_generation`` in the same transaction, whatever made the change: the application, the
command line, or SQL typed by hand. Every API request reads that row (one primary-key
lookup) before trusting its cache: a cached check is used only while the generation it was
made under is still the current one.

On PostgreSQL the triggers are deferred to the end of the transaction, so every writer
takes the row's lock last, just before committing: two revoking transactions queue on it
and cannot deadlock. SQLite has one writer at a time anyway.

If the row is missing (a test emptied every table), that is a generation too: the next
watched change puts the row back, with a random value so that it cannot repeat an earlier
one, and so still changes the generation.

Readers read the generation *before* the token row: if a revocation commits in between, the
token row read is already revoked (not cached), or the cache entry carries the old
generation and is dropped by the next request.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from seqcore.db import Base
from seqcore.db.prepared import PreparedRead

ROW_ID = 1
MISSING = -1  # the generation while the row is missing (values are never negative)

# Columns whose change alters the outcome of checking a bearer token, by table (deleting a
# row of these tables changes the generation too).
WATCHED: dict[str, tuple[str, ...]] = {
    "oauth_token": ("revoked", "scopes", "expires", "access_hash", "user_id", "client_id"),
    "oauth_client": ("revoked", "lenient", "client_id"),
    "user": ("enabled", "system_role", "username"),
}


class AuthGeneration(Base):
    """The single row holding the revocation generation (written by triggers only)."""

    __tablename__ = "auth_generation"

    id: Mapped[int] = mapped_column(primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


# Read on every API request: prepared (seqcore.db.prepared), not run through Core each time.
_GENERATION = PreparedRead(select(AuthGeneration.value).where(AuthGeneration.id == ROW_ID), ())


def generation_read() -> PreparedRead:
    """The prepared read of :func:`current_generation` (compiled at start-up by
    :func:`seqcore.config.compile_request_reads`)."""
    return _GENERATION


def current_generation(db: Session) -> int:
    """The generation now committed (one primary-key lookup); :data:`MISSING` without the
    row (the next watched change puts it back, with another value)."""
    rows = _GENERATION.all(db.connection())
    return MISSING if not rows or rows[0].value is None else int(rows[0].value)
