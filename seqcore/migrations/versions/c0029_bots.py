"""Bot accounts: ``user.account_type`` (IRIDA Next's user_type: ``human`` or a bot kind) and
``namespace_bot`` (which project or group made each bot, at which access level).

Revision ID: c0029
Revises: c0028
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0029"
down_revision = "c0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: every existing account is a person.
    op.add_column("user", sa.Column("account_type", sa.String(length=32), nullable=False,
                                    server_default="human"))
    op.create_table(
        "namespace_bot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("access_level", sa.Integer(), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("(project_id IS NULL) <> (group_id IS NULL)",
                           name=op.f("ck_namespace_bot_one_namespace")),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_namespace_bot_user_id_user"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_namespace_bot_project_id_project"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["namespace_group.id"],
                                name=op.f("fk_namespace_bot_group_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by_id"], ["user.id"],
                                name=op.f("fk_namespace_bot_created_by_id_user"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_namespace_bot")),
        sa.UniqueConstraint("user_id", name=op.f("uq_namespace_bot_user_id")),
    )
    op.create_index(op.f("ix_namespace_bot_project_id"), "namespace_bot", ["project_id"])
    op.create_index(op.f("ix_namespace_bot_group_id"), "namespace_bot", ["group_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_namespace_bot_group_id"), table_name="namespace_bot")
    op.drop_index(op.f("ix_namespace_bot_project_id"), table_name="namespace_bot")
    op.drop_table("namespace_bot")
    with rebuild_kept(op.get_bind(), "user"), op.batch_alter_table("user") as batch_op:
        batch_op.drop_column("account_type")
