"""sequencefiles: the pair orientation table.

Revision ID: sf0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "sf0001"
down_revision = None
branch_labels = ("sequencefiles",)
depends_on = "c0003"


def upgrade() -> None:
    op.create_table(
        "sequencefiles_pair",
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.Column("forward_file_id", sa.Integer(), nullable=False),
        sa.Column("reverse_file_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["object_id"], ["sequencing_object.id"], ondelete="CASCADE",
                                name="fk_sequencefiles_pair_object_id_sequencing_object"),
        sa.ForeignKeyConstraint(["forward_file_id"], ["sequence_file.id"], ondelete="CASCADE",
                                name="fk_sequencefiles_pair_forward_file_id_sequence_file"),
        sa.ForeignKeyConstraint(["reverse_file_id"], ["sequence_file.id"], ondelete="CASCADE",
                                name="fk_sequencefiles_pair_reverse_file_id_sequence_file"),
        sa.PrimaryKeyConstraint("object_id", name="pk_sequencefiles_pair"),
    )


def downgrade() -> None:
    op.drop_table("sequencefiles_pair")
