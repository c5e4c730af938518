"""Usernames and e-mail addresses unique regardless of letter case.

Adds ``user.username_key`` and ``user.email_key`` (``seqcore.models.user.name_key``: NFKC,
Unicode case folding, SHA-256) with a unique index each.

Existing accounts that differ only in letter case (``Alice`` and ``alice``) cannot be
merged or renamed by a migration without locking someone out, so the upgrade refuses, before
it changes anything, and lists them: rename one of each pair (``PATCH /api/users/{id}`` with
the previous version, or SQL), then run ``seqcore db upgrade`` again.

Revision ID: c0007
Revises: c0006
Create Date: 2026-11-25 11:20:00
"""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from seqcore.models.user import name_key

revision = "c0007"
down_revision = "c0006"
branch_labels = None
depends_on = None

USERS = sa.table("user", sa.column("id", sa.Integer), sa.column("username", sa.String),
                 sa.column("email", sa.String), sa.column("username_key", sa.String),
                 sa.column("email_key", sa.String))


def _case_duplicates(rows: Sequence[Any]) -> list[str]:
    """One line per group of accounts whose username or e-mail differ only in case."""
    problems = []
    for field in ("username", "email"):
        groups: dict[str, list] = defaultdict(list)
        for row in rows:
            groups[name_key(getattr(row, field))].append(row)
        for group in groups.values():
            if len(group) > 1:
                problems.append(f"{field}: " + ", ".join(
                    f"{getattr(r, field)!r} (user id {r.id})" for r in group))
    return problems


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(USERS.c.id, USERS.c.username, USERS.c.email)).all()
    problems = _case_duplicates(rows)
    if problems:
        raise RuntimeError(
            "Usernames and e-mail addresses are now unique regardless of letter case, and "
            "these accounts differ only in case:\n  " + "\n  ".join(problems) + "\nRename "
            "one of each (PATCH /api/users/{id} with the previous seqcore version, or SQL), "
            "then run `seqcore db upgrade` again. Nothing was changed.")
    sqlite = bind.dialect.name == "sqlite"
    for column in ("username_key", "email_key"):
        # SQLite adds a NOT NULL column only with a default; it is never used (the
        # application sets both keys on every write).
        op.add_column("user", sa.Column(column, sa.String(length=64), nullable=not sqlite,
                                        server_default="" if sqlite else None))
    for row in rows:
        bind.execute(USERS.update().where(USERS.c.id == row.id).values(
            username_key=name_key(row.username), email_key=name_key(row.email)))
    if not sqlite:
        for column in ("username_key", "email_key"):
            op.alter_column("user", column, existing_type=sa.String(length=64),
                            nullable=False)
    op.create_index("uq_user_username_key", "user", ["username_key"], unique=True)
    op.create_index("uq_user_email_key", "user", ["email_key"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_user_email_key", table_name="user")
    op.drop_index("uq_user_username_key", table_name="user")
    op.drop_column("user", "email_key")
    op.drop_column("user", "username_key")
