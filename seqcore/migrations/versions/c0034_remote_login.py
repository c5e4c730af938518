"""The remote account a connection signs in as (``remote_connection.remote_login``): the
e-mail sent with a personal access token to an IRIDA Next remote, whose GraphQL API takes
HTTP Basic ``e-mail:token`` and no OAuth2 bearer token. Null for OAuth2 connections.

Revision ID: c0034
Revises: c0033
"""

import sqlalchemy as sa
from alembic import op

revision = "c0034"
down_revision = "c0033"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A nullable column: a plain ALTER TABLE ... ADD COLUMN on both databases.
    op.add_column("remote_connection",
                  sa.Column("remote_login", sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("remote_connection", schema=None) as batch_op:
        batch_op.drop_column("remote_login")
