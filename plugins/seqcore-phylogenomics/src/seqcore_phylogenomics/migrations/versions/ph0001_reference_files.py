"""phylogenomics: project reference files and the reference of each submission.

Revision ID: ph0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "ph0001"
down_revision = None
branch_labels = ("phylogenomics",)
depends_on = "c0003"


def upgrade() -> None:
    op.create_table(
        "phylogenomics_reference_file",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE",
                                name="fk_phylogenomics_reference_file_project_id_project"),
        sa.ForeignKeyConstraint(["file_id"], ["sequence_file.id"], ondelete="CASCADE",
                                name="fk_phylogenomics_reference_file_file_id_sequence_file"),
        sa.PrimaryKeyConstraint("id", name="pk_phylogenomics_reference_file"),
    )
    op.create_index("ix_phylogenomics_reference_file_project_id",
                    "phylogenomics_reference_file", ["project_id"])
    op.create_table(
        "phylogenomics_submission_reference",
        sa.Column("submission_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("reference", sa.String(length=64), nullable=False),
        sa.Column("path", sa.String(length=1024), nullable=False),
        sa.PrimaryKeyConstraint("submission_id", name="pk_phylogenomics_submission_reference"),
    )


def downgrade() -> None:
    op.drop_table("phylogenomics_submission_reference")
    op.drop_index("ix_phylogenomics_reference_file_project_id",
                  table_name="phylogenomics_reference_file")
    op.drop_table("phylogenomics_reference_file")
