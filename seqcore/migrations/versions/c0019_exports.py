"""Data exports (``data_export``): bundles of a project's data prepared by the worker.

Revision ID: c0019
Revises: c0015
"""

import sqlalchemy as sa
from alembic import op

revision = "c0019"
down_revision = "c0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "data_export",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("requester_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("selection", sa.JSON(), nullable=False),
        sa.Column("path", sa.Text(), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=True),
        sa.Column("manifest", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.Column("ready_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_data_export_project_id_project"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["requester_id"], ["user.id"],
                                name=op.f("fk_data_export_requester_id_user"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_data_export")),
    )
    op.create_index(op.f("ix_data_export_project_id"), "data_export", ["project_id"])
    op.create_index(op.f("ix_data_export_requester_id"), "data_export", ["requester_id"])
    op.create_index(op.f("ix_data_export_state"), "data_export", ["state"])
    op.create_index(op.f("ix_data_export_expires_at"), "data_export", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_data_export_expires_at"), table_name="data_export")
    op.drop_index(op.f("ix_data_export_state"), table_name="data_export")
    op.drop_index(op.f("ix_data_export_requester_id"), table_name="data_export")
    op.drop_index(op.f("ix_data_export_project_id"), table_name="data_export")
    op.drop_table("data_export")
