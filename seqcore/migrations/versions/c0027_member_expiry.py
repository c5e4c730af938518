"""Membership expiry: ``expires_at`` on project and group memberships (a UTC timestamp,
``NULL`` for none), after which the membership grants nothing and the worker removes it.

Revision ID: c0027
Revises: c0026
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0027"
down_revision = "c0026"
branch_labels = None
depends_on = None

TABLES = ("project_member", "group_member")


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: no table is rebuilt.
    for table in TABLES:
        op.add_column(table, sa.Column("expires_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    connection = op.get_bind()
    for table in TABLES:
        with rebuild_kept(connection, table), op.batch_alter_table(table) as batch_op:
            batch_op.drop_column("expires_at")
