"""PKCE (RFC 7636): an authorization code keeps the ``code_challenge`` (and its method) sent
with the authorization request, for the token exchange to check the ``code_verifier``.

Revision ID: c0024
Revises: c0023
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0024"
down_revision = "c0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: no table is rebuilt.
    op.add_column("oauth_authorization_code",
                  sa.Column("code_challenge", sa.String(length=128), nullable=True))
    op.add_column("oauth_authorization_code",
                  sa.Column("code_challenge_method", sa.String(length=8), nullable=True))


def downgrade() -> None:
    table = "oauth_authorization_code"
    with rebuild_kept(op.get_bind(), table), op.batch_alter_table(table) as batch_op:
        batch_op.drop_column("code_challenge_method")
        batch_op.drop_column("code_challenge")
