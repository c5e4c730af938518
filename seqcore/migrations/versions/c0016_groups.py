"""Groups: nested namespaces (``namespace_group`` and the closure ``group_hierarchy``), their
members with IRIDA Next's access levels, shares of groups and projects with groups, and the
group a project lives in (``project.group_id``).

Revision ID: c0016
Revises: c0015
"""

import sqlalchemy as sa
from alembic import op

revision = "c0016"
down_revision = "c0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "namespace_group",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("puid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("path", sa.String(length=255), nullable=False),
        sa.Column("full_path", sa.String(length=255), nullable=False),
        sa.Column("full_name", sa.String(length=2048), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["parent_id"], ["namespace_group.id"],
                                name=op.f("fk_namespace_group_parent_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_namespace_group")),
        sa.UniqueConstraint("full_path", name=op.f("uq_namespace_group_full_path")),
        sa.UniqueConstraint("puid", name=op.f("uq_namespace_group_puid")),
    )
    op.create_index(op.f("ix_namespace_group_parent_id"), "namespace_group", ["parent_id"],
                    unique=False)
    op.create_table(
        "group_hierarchy",
        sa.Column("ancestor_id", sa.Integer(), nullable=False),
        sa.Column("descendant_id", sa.Integer(), nullable=False),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["ancestor_id"], ["namespace_group.id"],
                                name=op.f("fk_group_hierarchy_ancestor_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["descendant_id"], ["namespace_group.id"],
                                name=op.f("fk_group_hierarchy_descendant_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("ancestor_id", "descendant_id", name=op.f("pk_group_hierarchy")),
    )
    op.create_index(op.f("ix_group_hierarchy_descendant_id"), "group_hierarchy",
                    ["descendant_id"], unique=False)
    op.create_table(
        "group_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("access_level", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["group_id"], ["namespace_group.id"],
                                name=op.f("fk_group_member_group_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_group_member_user_id_user"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_group_member")),
        sa.UniqueConstraint("group_id", "user_id", name=op.f("uq_group_member_group_id")),
    )
    op.create_index(op.f("ix_group_member_group_id"), "group_member", ["group_id"],
                    unique=False)
    op.create_index(op.f("ix_group_member_user_id"), "group_member", ["user_id"], unique=False)
    op.create_table(
        "group_share",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("shared_group_id", sa.Integer(), nullable=True),
        sa.Column("project_id", sa.Integer(), nullable=True),
        sa.Column("access_level", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.CheckConstraint("(shared_group_id IS NULL) <> (project_id IS NULL)",
                           name=op.f("ck_group_share_one_target")),
        sa.ForeignKeyConstraint(["group_id"], ["namespace_group.id"],
                                name=op.f("fk_group_share_group_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["shared_group_id"], ["namespace_group.id"],
                                name=op.f("fk_group_share_shared_group_id_namespace_group"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_group_share_project_id_project"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_group_share")),
        sa.UniqueConstraint("group_id", "shared_group_id", name="uq_group_share_shared_group"),
        sa.UniqueConstraint("group_id", "project_id", name="uq_group_share_project"),
    )
    op.create_index(op.f("ix_group_share_group_id"), "group_share", ["group_id"], unique=False)
    op.create_index(op.f("ix_group_share_shared_group_id"), "group_share", ["shared_group_id"],
                    unique=False)
    op.create_index(op.f("ix_group_share_project_id"), "group_share", ["project_id"],
                    unique=False)
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_project_group_id"), ["group_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_project_group_id_namespace_group"),
                                    "namespace_group", ["group_id"], ["id"],
                                    ondelete="RESTRICT")


def downgrade() -> None:
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_project_group_id_namespace_group"),
                                 type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_project_group_id"))
        batch_op.drop_column("group_id")
    op.drop_table("group_share")
    op.drop_table("group_member")
    op.drop_table("group_hierarchy")
    op.drop_table("namespace_group")
