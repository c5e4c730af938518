"""Samples, their projects, and metadata.

Revision ID: c0002
Revises: c0001
Create Date: 2026-11-22 10:35:40.792712
"""

import sqlalchemy as sa
from alembic import op

revision = "c0002"
down_revision = "c0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("organism", sa.String(length=255), nullable=True),
        sa.Column("isolate", sa.String(length=255), nullable=True),
        sa.Column("strain", sa.String(length=255), nullable=True),
        sa.Column("collected_by", sa.String(length=255), nullable=True),
        sa.Column("collection_date", sa.Date(), nullable=True),
        sa.Column("geographic_location_name", sa.String(length=255), nullable=True),
        sa.Column("isolation_source", sa.Text(), nullable=True),
        sa.Column("latitude", sa.String(length=32), nullable=True),
        sa.Column("longitude", sa.String(length=32), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sample")),
    )
    op.create_table(
        "metadata_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("field", sa.String(length=255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["sample.id"],
            name=op.f("fk_metadata_entry_sample_id_sample"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_metadata_entry")),
        sa.UniqueConstraint("sample_id", "field", name=op.f("uq_metadata_entry_sample_id")),
    )
    with op.batch_alter_table("metadata_entry", schema=None) as batch_op:
        batch_op.create_index("ix_metadata_entry_field", ["field"], unique=False)

    op.create_table(
        "project_sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("sample_name", sa.String(length=255), nullable=False),
        sa.Column("owner", sa.Boolean(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
            name=op.f("fk_project_sample_project_id_project"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["sample.id"],
            name=op.f("fk_project_sample_sample_id_sample"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project_sample")),
        sa.UniqueConstraint("project_id", "sample_id", name=op.f("uq_project_sample_project_id")),
        sa.UniqueConstraint("project_id", "sample_name", name="uq_project_sample_name"),
    )
    with op.batch_alter_table("project_sample", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_project_sample_sample_id"), ["sample_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("project_sample", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_project_sample_sample_id"))

    op.drop_table("project_sample")
    with op.batch_alter_table("metadata_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_metadata_entry_field")

    op.drop_table("metadata_entry")
    op.drop_table("sample")
