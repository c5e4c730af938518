"""Which worker owns an analysis submission (``owner``: the worker whose work directory holds
its job, ``seqcore.worker.name``) and when that worker last said it was alive
(``owner_seen``), so only the owner follows the job and another worker prepares it again
once the owner has not been seen for a lease (``docs/operations.md``, "Several machines").
Null for submissions prepared before: any worker follows those, as before.

Revision ID: c0033
Revises: c0032
"""

import sqlalchemy as sa
from alembic import op

revision = "c0033"
down_revision = "c0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable columns: a plain ALTER TABLE ... ADD COLUMN on both databases.
    op.add_column("analysis_submission",
                  sa.Column("owner", sa.String(length=255), nullable=True))
    op.add_column("analysis_submission", sa.Column("owner_seen", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("analysis_submission", schema=None) as batch_op:
        batch_op.drop_column("owner_seen")
        batch_op.drop_column("owner")
