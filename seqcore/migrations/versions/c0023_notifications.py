"""E-mail notifications: the outbox (``outgoing_mail``), the kinds each account turned off
(``notification_opt_out``), a submission's ``email_notification`` and a personal access
token's ``expiry_notified_at``.

Revision ID: c0023
Revises: c0022
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0023"
down_revision = "c0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outgoing_mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("recipient", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outgoing_mail")),
    )
    op.create_index(op.f("ix_outgoing_mail_next_attempt"), "outgoing_mail", ["next_attempt"])
    op.create_index(op.f("ix_outgoing_mail_sent_at"), "outgoing_mail", ["sent_at"])
    op.create_table(
        "notification_opt_out",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_notification_opt_out_user_id_user"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notification_opt_out")),
        sa.UniqueConstraint("user_id", "kind", name=op.f("uq_notification_opt_out_user_id")),
    )
    op.create_index(op.f("ix_notification_opt_out_user_id"), "notification_opt_out",
                    ["user_id"])
    # Plain ALTER TABLE ... ADD COLUMN on both databases: no table is rebuilt.
    op.add_column("analysis_submission", sa.Column(
        "email_notification", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("personal_access_token",
                  sa.Column("expiry_notified_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    connection = op.get_bind()
    for table, column in (("personal_access_token", "expiry_notified_at"),
                          ("analysis_submission", "email_notification")):
        with rebuild_kept(connection, table), op.batch_alter_table(table) as batch_op:
            batch_op.drop_column(column)
    op.drop_index(op.f("ix_notification_opt_out_user_id"), table_name="notification_opt_out")
    op.drop_table("notification_opt_out")
    op.drop_index(op.f("ix_outgoing_mail_sent_at"), table_name="outgoing_mail")
    op.drop_index(op.f("ix_outgoing_mail_next_attempt"), table_name="outgoing_mail")
    op.drop_table("outgoing_mail")
