"""NCBI submissions: the submission, its samples and runs, the record of uploaded files, and
the provenance of metadata an NCBI submission wrote (``metadata_entry.ncbi_submission_id``).

Revision ID: c0015
Revises: c0011
"""

import sqlalchemy as sa
from alembic import op

revision = "c0015"
down_revision = "c0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ncbi_submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("submitter_id", sa.Integer(), nullable=True),
        sa.Column("bio_project", sa.String(length=64), nullable=False),
        sa.Column("organization", sa.String(length=255), nullable=False),
        sa.Column("namespace", sa.String(length=255), nullable=False),
        sa.Column("release_date", sa.Date(), nullable=True),
        sa.Column("package", sa.String(length=255), nullable=True),
        sa.Column("contact", sa.JSON(), nullable=False),
        sa.Column("attribute_fields", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column("ncbi_id", sa.String(length=64), nullable=True),
        sa.Column("directory", sa.String(length=1024), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("polled", sa.DateTime(), nullable=True),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
            name=op.f("fk_ncbi_submission_project_id_project"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submitter_id"],
            ["user.id"],
            name=op.f("fk_ncbi_submission_submitter_id_user"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ncbi_submission")),
    )
    op.create_index(
        op.f("ix_ncbi_submission_project_id"), "ncbi_submission", ["project_id"], unique=False
    )
    op.create_index(op.f("ix_ncbi_submission_state"), "ncbi_submission", ["state"], unique=False)
    op.create_table(
        "ncbi_submission_sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=True),
        sa.Column("sample_name", sa.String(length=255), nullable=False),
        sa.Column("spuid", sa.String(length=255), nullable=False),
        sa.Column("bio_sample", sa.String(length=64), nullable=True),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("library_name", sa.String(length=255), nullable=False),
        sa.Column("library_strategy", sa.String(length=64), nullable=False),
        sa.Column("library_source", sa.String(length=64), nullable=False),
        sa.Column("library_selection", sa.String(length=64), nullable=False),
        sa.Column("library_construction_protocol", sa.Text(), nullable=True),
        sa.Column("instrument_model", sa.String(length=255), nullable=False),
        sa.Column("write_back", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("accession", sa.String(length=64), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["sample.id"],
            name=op.f("fk_ncbi_submission_sample_sample_id_sample"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["ncbi_submission.id"],
            name=op.f("fk_ncbi_submission_sample_submission_id_ncbi_submission"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ncbi_submission_sample")),
        sa.UniqueConstraint(
            "submission_id", "position", name=op.f("uq_ncbi_submission_sample_submission_id")
        ),
    )
    op.create_index(
        op.f("ix_ncbi_submission_sample_sample_id"),
        "ncbi_submission_sample",
        ["sample_id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_ncbi_submission_sample_submission_id"),
        "ncbi_submission_sample",
        ["submission_id"],
        unique=False,
    )
    op.create_table(
        "ncbi_submission_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sample_row_id", sa.Integer(), nullable=False),
        sa.Column("object_id", sa.Integer(), nullable=True),
        sa.Column("spuid", sa.String(length=255), nullable=False),
        sa.Column("layout", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("accession", sa.String(length=64), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["object_id"],
            ["sequencing_object.id"],
            name=op.f("fk_ncbi_submission_run_object_id_sequencing_object"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["sample_row_id"],
            ["ncbi_submission_sample.id"],
            name=op.f("fk_ncbi_submission_run_sample_row_id_ncbi_submission_sample"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ncbi_submission_run")),
    )
    op.create_index(
        op.f("ix_ncbi_submission_run_object_id"), "ncbi_submission_run", ["object_id"], unique=False
    )
    op.create_index(
        op.f("ix_ncbi_submission_run_sample_row_id"),
        "ncbi_submission_run",
        ["sample_row_id"],
        unique=False,
    )
    op.create_table(
        "ncbi_upload_file",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("file_id", sa.Integer(), nullable=True),
        sa.Column("remote_name", sa.String(length=255), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("uploaded", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["sequence_file.id"],
            name=op.f("fk_ncbi_upload_file_file_id_sequence_file"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["ncbi_submission_run.id"],
            name=op.f("fk_ncbi_upload_file_run_id_ncbi_submission_run"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["ncbi_submission.id"],
            name=op.f("fk_ncbi_upload_file_submission_id_ncbi_submission"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ncbi_upload_file")),
        sa.UniqueConstraint(
            "submission_id", "remote_name", name=op.f("uq_ncbi_upload_file_submission_id")
        ),
    )
    op.create_index(
        op.f("ix_ncbi_upload_file_file_id"), "ncbi_upload_file", ["file_id"], unique=False
    )
    op.create_index(
        op.f("ix_ncbi_upload_file_run_id"), "ncbi_upload_file", ["run_id"], unique=False
    )
    op.create_index(
        op.f("ix_ncbi_upload_file_submission_id"),
        "ncbi_upload_file",
        ["submission_id"],
        unique=False,
    )
    with op.batch_alter_table("metadata_entry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ncbi_submission_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_metadata_entry_ncbi_submission_id_ncbi_submission"),
            "ncbi_submission",
            ["ncbi_submission_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("metadata_entry", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_metadata_entry_ncbi_submission_id_ncbi_submission"), type_="foreignkey"
        )
        batch_op.drop_column("ncbi_submission_id")
    op.drop_index(op.f("ix_ncbi_upload_file_submission_id"), table_name="ncbi_upload_file")
    op.drop_index(op.f("ix_ncbi_upload_file_run_id"), table_name="ncbi_upload_file")
    op.drop_index(op.f("ix_ncbi_upload_file_file_id"), table_name="ncbi_upload_file")
    op.drop_table("ncbi_upload_file")
    op.drop_index(op.f("ix_ncbi_submission_run_sample_row_id"), table_name="ncbi_submission_run")
    op.drop_index(op.f("ix_ncbi_submission_run_object_id"), table_name="ncbi_submission_run")
    op.drop_table("ncbi_submission_run")
    op.drop_index(
        op.f("ix_ncbi_submission_sample_submission_id"), table_name="ncbi_submission_sample"
    )
    op.drop_index(op.f("ix_ncbi_submission_sample_sample_id"), table_name="ncbi_submission_sample")
    op.drop_table("ncbi_submission_sample")
    op.drop_index(op.f("ix_ncbi_submission_state"), table_name="ncbi_submission")
    op.drop_index(op.f("ix_ncbi_submission_project_id"), table_name="ncbi_submission")
    op.drop_table("ncbi_submission")
