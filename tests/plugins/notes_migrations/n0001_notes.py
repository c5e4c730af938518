"""Notes plugin: the notes table.

Revision ID: n0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "n0001"
down_revision = None
branch_labels = ("notes",)
depends_on = "c0001"


def upgrade() -> None:
    op.create_table(
        "notes_note",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.Integer(),
                  sa.ForeignKey("project.id", ondelete="CASCADE",
                                name="fk_notes_note_project_id_project"), nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("notes_note")
