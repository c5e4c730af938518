"""Addresses from which an account signed in (``sign_in_success``): failures elsewhere never
lock the account out there.

Revision ID: c0021
Revises: c0020
"""

import sqlalchemy as sa
from alembic import op

revision = "c0021"
down_revision = "c0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_success",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("last", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_sign_in_success_user_id_user"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_success")),
        sa.UniqueConstraint("user_id", "address", name=op.f("uq_sign_in_success_user_id")),
    )
    op.create_index(op.f("ix_sign_in_success_last"), "sign_in_success", ["last"],
                    unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_sign_in_success_last"), table_name="sign_in_success")
    op.drop_table("sign_in_success")
