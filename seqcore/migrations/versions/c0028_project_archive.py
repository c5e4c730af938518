"""Archived projects: ``project.archived_at`` is when the project was archived (read-only,
left out of default listings), null while it is live.

Revision ID: c0028
Revises: c0027
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0028"
down_revision = "c0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: no table is rebuilt.
    op.add_column("project", sa.Column("archived_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with rebuild_kept(op.get_bind(), "project"), op.batch_alter_table("project") as batch_op:
        batch_op.drop_column("archived_at")
