"""Data governance: a project's declared metadata fields (type, check, restriction level),
metadata templates, the trash of deleted samples and files, the append-only activity trail
(guarded by triggers that refuse UPDATE and DELETE), and the account that wrote each
metadata value (its provenance).

Revision ID: c0018
Revises: c0015
"""

import sqlalchemy as sa
from alembic import op

from seqcore.models.activity import GUARDS, UNGUARDS

revision = "c0018"
down_revision = "c0017"
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


    op.create_table(
        "activity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("actor_type", sa.String(length=16), nullable=False),
        sa.Column("actor_user_id", sa.Integer(), nullable=True),
        sa.Column("actor_name", sa.String(length=255), nullable=True),
        sa.Column("actor_client_id", sa.String(length=255), nullable=True),
        sa.Column("actor_token_id", sa.Integer(), nullable=True),
        sa.Column("actor_submission_id", sa.Integer(), nullable=True),
        sa.Column("request_id", sa.String(length=64), nullable=True),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_activity")),
    )
    op.create_index("ix_activity_created", "activity", ["created"])
    op.create_index(op.f("ix_activity_kind"), "activity", ["kind"])
    op.create_table(
        "activity_subject",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("activity_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("sample_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["activity_id"], ["activity.id"],
                                name=op.f("fk_activity_subject_activity_id_activity")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_activity_subject")),
    )
    for column in ("activity_id", "project_id", "sample_id"):
        op.create_index(op.f(f"ix_activity_subject_{column}"), "activity_subject", [column])
    for statement in GUARDS[op.get_bind().dialect.name]:
        op.execute(statement)
    with op.batch_alter_table("metadata_entry") as batch:
        batch.add_column(sa.Column("writer_id", sa.Integer(), nullable=True))
    op.create_table(
        "trash_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("sample_id", sa.Integer(), nullable=True),
        sa.Column("object_id", sa.Integer(), nullable=True),
        sa.Column("label", sa.String(length=255), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.Column("paths", sa.JSON(), nullable=False),
        sa.Column("deleted_by", sa.Integer(), nullable=True),
        sa.Column("deleted", sa.DateTime(), nullable=False),
        sa.Column("expires", sa.DateTime(), nullable=False),
        sa.Column("restored", sa.DateTime(), nullable=True),
        sa.Column("purged", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_trash_entry")),
    )
    op.create_index("ix_trash_entry_expires", "trash_entry", ["expires"])
    op.create_index(op.f("ix_trash_entry_project_id"), "trash_entry", ["project_id"])


def downgrade() -> None:
    op.drop_table("trash_entry")
    with op.batch_alter_table("metadata_entry") as batch:
        batch.drop_column("writer_id")
    for statement in UNGUARDS[op.get_bind().dialect.name]:
        op.execute(statement)
    op.drop_table("activity_subject")
    op.drop_table("activity")
    op.drop_table("metadata_template_field")
    op.drop_table("metadata_template")
    op.drop_table("metadata_field")
