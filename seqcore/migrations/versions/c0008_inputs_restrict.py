"""Sequencing objects that an analysis used cannot be deleted, by the database too.

Revision ID: c0008
Revises: c0007
"""

from alembic import op

revision = "c0008"
down_revision = "c0007"
branch_labels = None
depends_on = None

TABLE = "analysis_submission_input"
NAME = "fk_analysis_submission_input_object_id_sequencing_object"


def _object_key(ondelete: str) -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.drop_constraint(NAME, type_="foreignkey")
        batch_op.create_foreign_key(NAME, "sequencing_object", ["object_id"], ["id"],
                                    ondelete=ondelete)


def upgrade() -> None:
    _object_key("RESTRICT")


def downgrade() -> None:
    _object_key("CASCADE")
