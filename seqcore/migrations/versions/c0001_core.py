"""Core tables: accounts, OAuth2 clients and tokens, projects and memberships.

Revision ID: c0001
Revises:
Create Date: 2026-11-22 10:25:01.935010
"""

import sqlalchemy as sa
from alembic import op

revision = "c0001"
down_revision = None
branch_labels = ("seqcore",)
depends_on = None


def upgrade() -> None:

    op.create_table(
        "oauth_client",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("grant_types", sa.String(length=255), nullable=False),
        sa.Column("scopes", sa.String(length=255), nullable=False),
        sa.Column("redirect_uris", sa.Text(), nullable=False),
        sa.Column("access_token_seconds", sa.Integer(), nullable=False),
        sa.Column("refresh_token_seconds", sa.Integer(), nullable=True),
        sa.Column("lenient", sa.Boolean(), nullable=False),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_client")),
        sa.UniqueConstraint("client_id", name=op.f("uq_oauth_client_client_id")),
    )
    op.create_table(
        "project",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("remote_url", sa.String(length=1024), nullable=True),
        sa.Column("organism", sa.String(length=255), nullable=True),
        sa.Column("genome_size", sa.Integer(), nullable=True),
        sa.Column("minimum_coverage", sa.Integer(), nullable=True),
        sa.Column("maximum_coverage", sa.Integer(), nullable=True),
        sa.Column("sync_frequency", sa.String(length=32), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project")),
    )
    op.create_table(
        "user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("first_name", sa.String(length=255), nullable=False),
        sa.Column("last_name", sa.String(length=255), nullable=False),
        sa.Column("phone_number", sa.String(length=255), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("system_role", sa.String(length=32), nullable=False),
        sa.Column("user_type", sa.String(length=32), nullable=False),
        sa.Column("locale", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("modified", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user")),
        sa.UniqueConstraint("email", name=op.f("uq_user_email")),
        sa.UniqueConstraint("username", name=op.f("uq_user_username")),
    )
    op.create_table(
        "oauth_authorization_code",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("redirect_uri", sa.Text(), nullable=False),
        sa.Column("scopes", sa.String(length=255), nullable=False),
        sa.Column("expires", sa.DateTime(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["oauth_client.id"],
            name=op.f("fk_oauth_authorization_code_client_id_oauth_client"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name=op.f("fk_oauth_authorization_code_user_id_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_authorization_code")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_oauth_authorization_code_code_hash")),
    )
    op.create_table(
        "oauth_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("access_hash", sa.String(length=64), nullable=False),
        sa.Column("refresh_hash", sa.String(length=64), nullable=True),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("scopes", sa.String(length=255), nullable=False),
        sa.Column("expires", sa.DateTime(), nullable=False),
        sa.Column("refresh_expires", sa.DateTime(), nullable=True),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["oauth_client.id"],
            name=op.f("fk_oauth_token_client_id_oauth_client"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user.id"], name=op.f("fk_oauth_token_user_id_user"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_token")),
        sa.UniqueConstraint("access_hash", name=op.f("uq_oauth_token_access_hash")),
        sa.UniqueConstraint("refresh_hash", name=op.f("uq_oauth_token_refresh_hash")),
    )
    with op.batch_alter_table("oauth_token", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_oauth_token_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_oauth_token_user_id"), ["user_id"], unique=False)

    op.create_table(
        "project_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("metadata_role", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
            name=op.f("fk_project_member_project_id_project"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name=op.f("fk_project_member_user_id_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project_member")),
        sa.UniqueConstraint("project_id", "user_id", name=op.f("uq_project_member_project_id")),
    )
    with op.batch_alter_table("project_member", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_project_member_project_id"), ["project_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_project_member_user_id"), ["user_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("project_member", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_project_member_user_id"))
        batch_op.drop_index(batch_op.f("ix_project_member_project_id"))

    op.drop_table("project_member")
    with op.batch_alter_table("oauth_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_oauth_token_user_id"))
        batch_op.drop_index(batch_op.f("ix_oauth_token_client_id"))

    op.drop_table("oauth_token")
    op.drop_table("oauth_authorization_code")
    op.drop_table("user")
    op.drop_table("project")
    op.drop_table("oauth_client")
