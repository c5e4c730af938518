"""Authentication hardening: token families and one-time redemption, server-side web sessions.

Revision ID: c0006
Revises: c0005
Create Date: 2026-11-25 11:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "c0006"
down_revision = "c0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_token", schema=None) as batch_op:
        batch_op.add_column(sa.Column("family", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("refresh_spent", sa.DateTime(), nullable=True))
        batch_op.create_index(batch_op.f("ix_oauth_token_family"), ["family"], unique=False)
    with op.batch_alter_table("oauth_authorization_code", schema=None) as batch_op:
        batch_op.add_column(sa.Column("redeemed", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("family", sa.String(length=32), nullable=True))
    op.create_table(
        "web_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user.id"], name=op.f("fk_web_session_user_id_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_session_token_hash")),
    )
    with op.batch_alter_table("web_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_web_session_user_id"), ["user_id"], unique=False)
    # The client_credentials grant is no longer offered (docs/security.md): clients
    # registered with it keep their other grants.
    op.execute(sa.text(
        "UPDATE oauth_client SET grant_types = TRIM(REPLACE(REPLACE(' ' || grant_types || ' ',"
        " ' client_credentials ', ' '), '  ', ' ')) WHERE grant_types LIKE '%client_credentials%'"))


def downgrade() -> None:
    with op.batch_alter_table("web_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_web_session_user_id"))
    op.drop_table("web_session")
    with op.batch_alter_table("oauth_authorization_code", schema=None) as batch_op:
        batch_op.drop_column("family")
        batch_op.drop_column("redeemed")
    with op.batch_alter_table("oauth_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_oauth_token_family"))
        batch_op.drop_column("refresh_spent")
        batch_op.drop_column("family")
