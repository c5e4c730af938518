"""Sequencing runs, stored files, sequencing objects and QC records.

Revision ID: c0003
Revises: c0002
Create Date: 2026-11-22 10:45:12.477505
"""

import sqlalchemy as sa
from alembic import op

revision = "c0003"
down_revision = "c0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sequence_file",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("file_name", sa.String(length=1024), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("upload_sha256", sa.String(length=64), nullable=True),
        sa.Column("original_path", sa.Text(), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sequence_file")),
    )
    op.create_table(
        "qc_record",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.Column("engine", sa.String(length=255), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["sequence_file.id"],
            name=op.f("fk_qc_record_file_id_sequence_file"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_qc_record")),
        sa.UniqueConstraint("file_id", name=op.f("uq_qc_record_file_id")),
    )
    op.create_table(
        "sequencing_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("sequencer_type", sa.String(length=255), nullable=False),
        sa.Column("layout_type", sa.String(length=32), nullable=False),
        sa.Column("upload_status", sa.String(length=32), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name=op.f("fk_sequencing_run_user_id_user"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sequencing_run")),
    )
    op.create_table(
        "sequencing_object",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("processing_state", sa.String(length=32), nullable=False),
        sa.Column("file_processor", sa.String(length=255), nullable=True),
        sa.Column("processing_error", sa.Text(), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["sequencing_run.id"],
            name=op.f("fk_sequencing_object_run_id_sequencing_run"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["sample.id"],
            name=op.f("fk_sequencing_object_sample_id_sample"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sequencing_object")),
    )
    with op.batch_alter_table("sequencing_object", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sequencing_object_processing_state"), ["processing_state"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_sequencing_object_run_id"), ["run_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_sequencing_object_sample_id"), ["sample_id"], unique=False
        )

    op.create_table(
        "sequencing_object_file",
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["sequence_file.id"],
            name=op.f("fk_sequencing_object_file_file_id_sequence_file"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["object_id"],
            ["sequencing_object.id"],
            name=op.f("fk_sequencing_object_file_object_id_sequencing_object"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("object_id", "position", name=op.f("pk_sequencing_object_file")),
        sa.UniqueConstraint("file_id", name=op.f("uq_sequencing_object_file_file_id")),
    )


def downgrade() -> None:
    op.drop_table("sequencing_object_file")
    with op.batch_alter_table("sequencing_object", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sequencing_object_sample_id"))
        batch_op.drop_index(batch_op.f("ix_sequencing_object_run_id"))
        batch_op.drop_index(batch_op.f("ix_sequencing_object_processing_state"))

    op.drop_table("sequencing_object")
    op.drop_table("sequencing_run")
    op.drop_table("qc_record")
    op.drop_table("sequence_file")
