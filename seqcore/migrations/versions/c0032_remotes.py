"""Remote APIs: ``remote_api`` (installs registered by administrators), ``remote_connection``
(each user's tokens there), ``remote_authorization`` (connections under way) and
``project_sync`` (local projects mirroring remote ones).

Revision ID: c0032
Revises: c0031
"""

import sqlalchemy as sa
from alembic import op

revision = "c0032"
down_revision = "c0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "remote_api",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("base_url", sa.String(length=1024), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("graphql_url", sa.String(length=1024), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("client_secret", sa.String(length=255), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_remote_api")),
        sa.UniqueConstraint("name", name=op.f("uq_remote_api_name")),
    )
    op.create_table(
        "remote_connection",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("remote_api_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("access_token", sa.Text(), nullable=False),
        sa.Column("refresh_token", sa.Text(), nullable=True),
        sa.Column("expires", sa.DateTime(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("refreshed", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["remote_api_id"], ["remote_api.id"],
                                name=op.f("fk_remote_connection_remote_api_id_remote_api"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_remote_connection_user_id_user"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_remote_connection")),
        sa.UniqueConstraint("remote_api_id", "user_id",
                            name=op.f("uq_remote_connection_remote_api_id")),
    )
    op.create_table(
        "remote_authorization",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("remote_api_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("code_verifier", sa.String(length=128), nullable=False),
        sa.Column("redirect_uri", sa.String(length=1024), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("expires", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["remote_api_id"], ["remote_api.id"],
                                name=op.f("fk_remote_authorization_remote_api_id_remote_api"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_remote_authorization_user_id_user"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_remote_authorization")),
        sa.UniqueConstraint("state_hash", name=op.f("uq_remote_authorization_state_hash")),
    )
    op.create_table(
        "project_sync",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("remote_api_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("remote_url", sa.String(length=1024), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("remote_hash", sa.String(length=128), nullable=True),
        sa.Column("last_sync", sa.DateTime(), nullable=True),
        sa.Column("next_sync", sa.DateTime(), nullable=True),
        sa.Column("started", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"],
                                name=op.f("fk_project_sync_project_id_project"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["remote_api_id"], ["remote_api.id"],
                                name=op.f("fk_project_sync_remote_api_id_remote_api"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"],
                                name=op.f("fk_project_sync_user_id_user"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_project_sync")),
    )


def downgrade() -> None:
    op.drop_table("project_sync")
    op.drop_table("remote_authorization")
    op.drop_table("remote_connection")
    op.drop_table("remote_api")
