"""The trace (W3C ``traceparent``) of the request that created a sequencing object, an
analysis submission, a data export or an NCBI submission, so the worker that takes it up
continues that trace (``docs/operations.md``, "Traces"). Empty when traces are off.

Revision ID: c0030
Revises: c0029
"""

import sqlalchemy as sa
from alembic import op

revision = "c0030"
down_revision = "c0029"
branch_labels = None
depends_on = None

TABLES = ("sequencing_object", "analysis_submission", "data_export", "ncbi_submission")


def upgrade() -> None:
    # A nullable column: a plain ALTER TABLE ... ADD COLUMN on both databases.
    for table in TABLES:
        op.add_column(table, sa.Column("trace_context", sa.String(length=64), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("trace_context")
