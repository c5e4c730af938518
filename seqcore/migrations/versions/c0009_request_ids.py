"""The request id that created a sequencing object or an analysis submission.

The processing and analysis workers log with it, so a request's log lines and those of the
work it started can be found together (``docs/operations.md``, "Logs").

Revision ID: c0009
Revises: c0008
"""

import sqlalchemy as sa
from alembic import op

revision = "c0009"
down_revision = "c0008"
branch_labels = None
depends_on = None

TABLES = ("sequencing_object", "analysis_submission")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("request_id", sa.String(64), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("request_id")
