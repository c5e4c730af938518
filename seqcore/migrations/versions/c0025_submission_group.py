"""Workflow executions launched in a group's namespace: an analysis submission remembers the
group (``group_id``, null for a project's launch, set null if the group is deleted).

Revision ID: c0025
Revises: c0024
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0025"
down_revision = "c0024"
branch_labels = None
depends_on = None

TABLE = "analysis_submission"


def upgrade() -> None:
    with rebuild_kept(op.get_bind(), TABLE), op.batch_alter_table(TABLE) as batch_op:
        batch_op.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_analysis_submission_group_id_namespace_group"),
                                    "namespace_group", ["group_id"], ["id"],
                                    ondelete="SET NULL")
        batch_op.create_index(batch_op.f("ix_analysis_submission_group_id"), ["group_id"],
                              unique=False)


def downgrade() -> None:
    with rebuild_kept(op.get_bind(), TABLE), op.batch_alter_table(TABLE) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_submission_group_id"))
        batch_op.drop_constraint(batch_op.f("fk_analysis_submission_group_id_namespace_group"),
                                 type_="foreignkey")
        batch_op.drop_column("group_id")
