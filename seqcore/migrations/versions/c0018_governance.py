"""Data governance: a project's declared metadata fields (type, check, restriction level)
and metadata templates.

Revision ID: c0018
Revises: c0015
"""

import sqlalchemy as sa
from alembic import op

revision = "c0018"
down_revision = "c0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "metadata_field",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=True),
        sa.Column("pattern", sa.String(length=1024), nullable=True),
        sa.Column("restriction", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_metadata_field_project_id_project"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_metadata_field")),
        sa.UniqueConstraint("project_id", "name", name="uq_metadata_field_name"),
    )
    op.create_index(op.f("ix_metadata_field_project_id"), "metadata_field", ["project_id"])
    op.create_table(
        "metadata_template",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_metadata_template_project_id_project"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_metadata_template")),
        sa.UniqueConstraint("project_id", "name", name="uq_metadata_template_name"),
    )
    op.create_index(op.f("ix_metadata_template_project_id"), "metadata_template",
                    ["project_id"])
    op.create_table(
        "metadata_template_field",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("template_id", sa.Integer(), nullable=False),
        sa.Column("field_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["template_id"], ["metadata_template.id"],
                                name=op.f("fk_metadata_template_field_template_id_metadata_template"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["field_id"], ["metadata_field.id"],
                                name=op.f("fk_metadata_template_field_field_id_metadata_field"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_metadata_template_field")),
        sa.UniqueConstraint("template_id", "field_id", name="uq_metadata_template_field"),
    )
    op.create_index(op.f("ix_metadata_template_field_template_id"), "metadata_template_field",
                    ["template_id"])
    op.create_index(op.f("ix_metadata_template_field_field_id"), "metadata_template_field",
                    ["field_id"])


def downgrade() -> None:
    op.drop_table("metadata_template_field")
    op.drop_table("metadata_template")
    op.drop_table("metadata_field")
