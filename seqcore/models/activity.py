"""The audit trail: one append-only table of what changed, who changed it and when.

``activity`` holds one row per domain write operation; ``activity_subject`` says which
projects and samples each row concerns (an operation may touch several: a bulk metadata
write, a transfer between projects). Neither has foreign keys: the trail outlives what it
describes (a deleted project keeps its history). Triggers refuse ``UPDATE`` and ``DELETE``
on both, on PostgreSQL and SQLite alike (:data:`GUARDS`); the migration installs them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.db import Base, utcnow


class Activity(Base):
    __tablename__ = "activity"
    __table_args__ = (Index("ix_activity_created", "created"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    created: Mapped[datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(64), index=True)
    #: ``user`` (a session), ``client`` (an OAuth client's bearer token), ``token`` (a
    #: personal access token), ``analysis``, ``ncbi`` (an NCBI submission) or ``service``.
    actor_type: Mapped[str] = mapped_column(String(16))
    actor_user_id: Mapped[int | None] = mapped_column(Integer, default=None)
    actor_name: Mapped[str | None] = mapped_column(String(255), default=None)
    actor_client_id: Mapped[str | None] = mapped_column(String(255), default=None)
    actor_token_id: Mapped[int | None] = mapped_column(Integer, default=None)
    actor_submission_id: Mapped[int | None] = mapped_column(Integer, default=None)
    request_id: Mapped[str | None] = mapped_column(String(64), default=None)
    #: ``[{"on", "id", "action" | "field", "before", "after", ...}]``
    changes: Mapped[Any] = mapped_column(JSON, default=list)

    subjects: Mapped[list[ActivitySubject]] = relationship()


class ActivitySubject(Base):
    __tablename__ = "activity_subject"

    id: Mapped[int] = mapped_column(primary_key=True)
    activity_id: Mapped[int] = mapped_column(ForeignKey("activity.id"), index=True)
    project_id: Mapped[int | None] = mapped_column(Integer, default=None, index=True)
    sample_id: Mapped[int | None] = mapped_column(Integer, default=None, index=True)


APPEND_ONLY = ("activity", "activity_subject")

#: Statements installing the guards, by dialect.
GUARDS: dict[str, list[str]] = {
    "sqlite": [
        f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
        for table in APPEND_ONLY for verb in ("UPDATE", "DELETE")],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION seqcore_append_only() RETURNS trigger AS $$ BEGIN "
        "RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END; $$ LANGUAGE plpgsql",
        *[f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
          "FOR EACH ROW EXECUTE FUNCTION seqcore_append_only()" for table in APPEND_ONLY]],
}

#: Statements removing them (a downgrade; the test kit while it empties the tables).
UNGUARDS: dict[str, list[str]] = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {table}_no_{verb.lower()}"
               for table in APPEND_ONLY for verb in ("UPDATE", "DELETE")],
    "postgresql": [*[f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"
                     for table in APPEND_ONLY],
                   "DROP FUNCTION IF EXISTS seqcore_append_only()"],
}
