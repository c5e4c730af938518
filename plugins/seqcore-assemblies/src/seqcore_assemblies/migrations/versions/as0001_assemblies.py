"""assemblies: the assembly table.

Revision ID: as0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "as0001"
down_revision = None
branch_labels = ("assemblies",)
depends_on = "c0003"


def upgrade() -> None:
    op.create_table(
        "assemblies_assembly",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["sample_id"], ["sample.id"], ondelete="CASCADE",
                                name="fk_assemblies_assembly_sample_id_sample"),
        sa.ForeignKeyConstraint(["file_id"], ["sequence_file.id"], ondelete="CASCADE",
                                name="fk_assemblies_assembly_file_id_sequence_file"),
        sa.PrimaryKeyConstraint("id", name="pk_assemblies_assembly"),
    )
    op.create_index("ix_assemblies_assembly_sample_id", "assemblies_assembly", ["sample_id"])


def downgrade() -> None:
    op.drop_index("ix_assemblies_assembly_sample_id", table_name="assemblies_assembly")
    op.drop_table("assemblies_assembly")
