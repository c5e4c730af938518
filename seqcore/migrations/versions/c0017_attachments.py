"""Attachments and direct uploads (IRIDA Next's files and blobs): ``direct_upload`` and
``attachment`` (``seqcore.models.attachment``), owned by a sample, a project, a workflow
execution or a group.

Revision ID: c0017
Revises: c0015
"""

import sqlalchemy as sa
from alembic import op

revision = "c0017"
down_revision = "c0019"
branch_labels = None
depends_on = None

OWNER_COLUMNS = ("sample_id", "project_id", "submission_id", "group_id")


def upgrade() -> None:
    op.create_table(
        "direct_upload",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=1024), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("byte_size", sa.BigInteger(), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("uploaded", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_direct_upload_user_id_user"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["file_id"], ["sequence_file.id"],
                                name=op.f("fk_direct_upload_file_id_sequence_file"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_direct_upload")),
        sa.UniqueConstraint("key", name=op.f("uq_direct_upload_key")),
    )
    op.create_index(op.f("ix_direct_upload_user_id"), "direct_upload", ["user_id"])
    one_owner = " + ".join(f"(CASE WHEN {c} IS NULL THEN 0 ELSE 1 END)"
                           for c in OWNER_COLUMNS) + " = 1"
    op.create_table(
        "attachment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("puid", sa.String(length=32), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=True),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.Column("object_id", sa.Integer(), nullable=True),
        sa.Column("download_key", sa.String(length=64), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.CheckConstraint(one_owner, name=op.f("ck_attachment_one_owner")),
        sa.ForeignKeyConstraint(["sample_id"], ["sample.id"],
                                name=op.f("fk_attachment_sample_id_sample"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_attachment_project_id_project"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["submission_id"], ["analysis_submission.id"],
                                name=op.f("fk_attachment_submission_id_analysis_submission"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["namespace_group.id"],
                                name=op.f("fk_attachment_group_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["file_id"], ["sequence_file.id"],
                                name=op.f("fk_attachment_file_id_sequence_file"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["object_id"], ["sequencing_object.id"],
                                name=op.f("fk_attachment_object_id_sequencing_object"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attachment")),
        sa.UniqueConstraint("puid", name=op.f("uq_attachment_puid")),
    )
    for column in (*OWNER_COLUMNS, "file_id", "object_id"):
        op.create_index(op.f(f"ix_attachment_{column}"), "attachment", [column])


def downgrade() -> None:
    op.drop_table("attachment")
    op.drop_table("direct_upload")
