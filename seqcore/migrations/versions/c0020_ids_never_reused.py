"""Ids are never reused on SQLite: every table keyed by one integer column gets
``AUTOINCREMENT`` (PostgreSQL's sequences never reuse a number; nothing to do there).

Tables created from now on get it when they are created (:mod:`seqcore.db.identity`); this
revision rebuilds those that exist, plugins' tables included. Ids handed out and deleted
before it cannot be known any more; from here on none comes back.

Revision ID: c0020
Revises: c0018
"""

from alembic import op

from seqcore.db.identity import rebuild_with_autoincrement

revision = "c0020"
down_revision = "c0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name == "sqlite":
        rebuild_with_autoincrement(connection)


def downgrade() -> None:
    """``AUTOINCREMENT`` stays: it changes no column and no answer, and taking it away
    would let ids come back."""
