"""fast5: the FAST5 object table.

Revision ID: f50001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "f50001"
down_revision = None
branch_labels = ("fast5",)
depends_on = "c0003"


def upgrade() -> None:
    op.create_table(
        "fast5_object",
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.Column("fast5_type", sa.String(16), nullable=False),
        sa.ForeignKeyConstraint(["object_id"], ["sequencing_object.id"], ondelete="CASCADE",
                                name="fk_fast5_object_object_id_sequencing_object"),
        sa.PrimaryKeyConstraint("object_id", name="pk_fast5_object"),
    )


def downgrade() -> None:
    op.drop_table("fast5_object")
