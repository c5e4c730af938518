"""Every account's personal namespace has a PUID (``user.namespace_puid``, ``INXT_USR_...``),
as IRIDA Next's ``Namespace.puid`` is never null.

Existing accounts get theirs from their creation time, in creation order, entered in the
register like every other PUID (migration ``c0011``'s rule), so new ones never repeat them.

Revision ID: c0022
Revises: c0021
"""

from collections.abc import Sequence
from datetime import UTC
from typing import Any

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept
from seqcore.models.puid import USER_NAMESPACE, date_part, format_puid, unit_of_day

revision = "c0022"
down_revision = "c0021"
branch_labels = None
depends_on = None


def _backfill(connection: sa.Connection) -> list[str]:
    rows: Sequence[Any] = connection.execute(
        sa.select(sa.column("id"), sa.column("created", sa.DateTime()))
        .select_from(sa.table("user")).order_by(sa.column("created"), sa.column("id"))).all()
    issued: list[str] = []
    last: tuple[str, int] | None = None
    for row_id, created in rows:
        when = created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)
        day, unit = date_part(when), unit_of_day(when)
        if last is not None and last[0] == day and unit <= last[1]:
            unit = last[1] + 1
        last = (day, unit)
        value = format_puid(USER_NAMESPACE, day, unit)
        connection.execute(sa.text('UPDATE "user" SET namespace_puid = :value WHERE id = :id'),
                           {"value": value, "id": row_id})
        issued.append(value)
    return issued


def upgrade() -> None:
    connection = op.get_bind()
    with op.batch_alter_table("user") as batch_op:
        batch_op.add_column(sa.Column("namespace_puid", sa.String(32), nullable=True))
    issued = _backfill(connection)
    if issued:
        op.bulk_insert(sa.table("puid", sa.column("value", sa.String(32))),
                       [{"value": value} for value in issued])
    # SQLite rebuilds the table for these: its id counter and triggers must survive.
    with rebuild_kept(connection, "user"), op.batch_alter_table("user") as batch_op:
        batch_op.alter_column("namespace_puid", existing_type=sa.String(32), nullable=False)
        batch_op.create_unique_constraint(op.f("uq_user_namespace_puid"), ["namespace_puid"])


def downgrade() -> None:
    """The column goes; its values stay in the register, so they are never issued again."""
    with rebuild_kept(op.get_bind(), "user"), op.batch_alter_table("user") as batch_op:
        batch_op.drop_constraint(op.f("uq_user_namespace_puid"), type_="unique")
        batch_op.drop_column("namespace_puid")
