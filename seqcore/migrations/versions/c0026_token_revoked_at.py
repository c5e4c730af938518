"""A personal access token's ``revoked_at``: revoked tokens are deleted
``seqcore.tokens.cleanup_after_days`` after it. Tokens already revoked count as revoked at
the upgrade, so they are kept that long from now rather than deleted at once.

Revision ID: c0026
Revises: c0025
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0026"
down_revision = "c0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: no table is rebuilt.
    op.add_column("personal_access_token",
                  sa.Column("revoked_at", sa.DateTime(), nullable=True))
    token = sa.table("personal_access_token", sa.column("revoked", sa.Boolean()),
                     sa.column("revoked_at", sa.DateTime()))
    op.execute(token.update().where(token.c.revoked.is_(True))
               .values(revoked_at=datetime.now(UTC).replace(tzinfo=None, microsecond=0)))


def downgrade() -> None:
    table = "personal_access_token"
    with rebuild_kept(op.get_bind(), table), op.batch_alter_table(table) as batch_op:
        batch_op.drop_column("revoked_at")
