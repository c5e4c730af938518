"""Analysis submissions, inputs, sharing, outputs and automated analyses.

Revision ID: c0005
Revises: c0004
Create Date: 2026-11-22 11:05:53.253379
"""

import sqlalchemy as sa
from alembic import op

revision = "c0005"
down_revision = "c0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("analysis_type", sa.String(length=64), nullable=False),
        sa.Column("workflow_id", sa.String(length=255), nullable=False),
        sa.Column("submitter_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column("cleaned_state", sa.String(length=32), nullable=False),
        sa.Column("priority", sa.String(length=8), nullable=False),
        sa.Column("priority_rank", sa.Integer(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("update_samples", sa.Boolean(), nullable=False),
        sa.Column("automated", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("executor", sa.String(length=64), nullable=True),
        sa.Column("remote_workflow_id", sa.String(length=255), nullable=True),
        sa.Column("remote_input_data_id", sa.String(length=1024), nullable=True),
        sa.Column("work_dir", sa.Text(), nullable=True),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["submitter_id"],
            ["user.id"],
            name=op.f("fk_analysis_submission_submitter_id_user"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analysis_submission")),
    )
    with op.batch_alter_table("analysis_submission", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_analysis_type"), ["analysis_type"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_analysis_submission_state"), ["state"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_submitter_id"), ["submitter_id"], unique=False
        )

    op.create_table(
        "automated_analysis",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("analysis_type", sa.String(length=64), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
            name=op.f("fk_automated_analysis_project_id_project"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_automated_analysis")),
        sa.UniqueConstraint(
            "project_id", "analysis_type", name=op.f("uq_automated_analysis_project_id")
        ),
    )
    with op.batch_alter_table("automated_analysis", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_automated_analysis_project_id"), ["project_id"], unique=False
        )

    op.create_table(
        "analysis_output",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("file_id", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["sequence_file.id"],
            name=op.f("fk_analysis_output_file_id_sequence_file"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["analysis_submission.id"],
            name=op.f("fk_analysis_output_submission_id_analysis_submission"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analysis_output")),
        sa.UniqueConstraint("submission_id", "key", name=op.f("uq_analysis_output_submission_id")),
    )
    with op.batch_alter_table("analysis_output", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analysis_output_submission_id"), ["submission_id"], unique=False
        )

    op.create_table(
        "analysis_submission_project",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
            name=op.f("fk_analysis_submission_project_project_id_project"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["analysis_submission.id"],
            name=op.f("fk_analysis_submission_project_submission_id_analysis_submission"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analysis_submission_project")),
        sa.UniqueConstraint(
            "submission_id", "project_id", name=op.f("uq_analysis_submission_project_submission_id")
        ),
    )
    with op.batch_alter_table("analysis_submission_project", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_project_project_id"), ["project_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_project_submission_id"),
            ["submission_id"],
            unique=False,
        )

    op.create_table(
        "analysis_submission_input",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["object_id"],
            ["sequencing_object.id"],
            name=op.f("fk_analysis_submission_input_object_id_sequencing_object"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["analysis_submission.id"],
            name=op.f("fk_analysis_submission_input_submission_id_analysis_submission"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analysis_submission_input")),
        sa.UniqueConstraint(
            "submission_id", "object_id", name=op.f("uq_analysis_submission_input_submission_id")
        ),
    )
    with op.batch_alter_table("analysis_submission_input", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_input_object_id"), ["object_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_analysis_submission_input_submission_id"),
            ["submission_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("analysis_submission_input", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_submission_input_submission_id"))
        batch_op.drop_index(batch_op.f("ix_analysis_submission_input_object_id"))

    op.drop_table("analysis_submission_input")
    with op.batch_alter_table("analysis_submission_project", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_submission_project_submission_id"))
        batch_op.drop_index(batch_op.f("ix_analysis_submission_project_project_id"))

    op.drop_table("analysis_submission_project")
    with op.batch_alter_table("analysis_output", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_output_submission_id"))

    op.drop_table("analysis_output")
    with op.batch_alter_table("automated_analysis", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_automated_analysis_project_id"))

    op.drop_table("automated_analysis")
    with op.batch_alter_table("analysis_submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_submission_submitter_id"))
        batch_op.drop_index(batch_op.f("ix_analysis_submission_state"))
        batch_op.drop_index(batch_op.f("ix_analysis_submission_analysis_type"))

    op.drop_table("analysis_submission")
