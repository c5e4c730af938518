"""Persistent unique ids (``seqcore.models.puid``): the register of every PUID issued, and a
``puid`` on every project and sample.

Existing projects and samples get theirs from their creation time, in creation order, and
every value is entered in the register, so new ones never repeat them.

Revision ID: c0011
Revises: c0010
"""

from collections.abc import Sequence
from datetime import UTC
from typing import Any

import sqlalchemy as sa
from alembic import op

from seqcore.models.puid import PROJECT, SAMPLE, date_part, format_puid, unit_of_day

revision = "c0011"
down_revision = "c0010"
branch_labels = None
depends_on = None

TABLES = {"project": PROJECT, "sample": SAMPLE}


def _backfill(connection: sa.Connection, table: str, kind: str) -> list[str]:
    rows: Sequence[Any] = connection.execute(
        sa.select(sa.column("id"), sa.column("created", sa.DateTime()))
        .select_from(sa.table(table)).order_by(sa.column("created"), sa.column("id"))).all()
    issued: list[str] = []
    last: tuple[str, int] | None = None
    for row_id, created in rows:
        when = created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)
        day, unit = date_part(when), unit_of_day(when)
        if last is not None and last[0] == day and unit <= last[1]:
            unit = last[1] + 1
        last = (day, unit)
        value = format_puid(kind, day, unit)
        connection.execute(sa.text(f'UPDATE "{table}" SET puid = :value WHERE id = :id'),
                           {"value": value, "id": row_id})
        issued.append(value)
    return issued


def upgrade() -> None:
    register = op.create_table(
        "puid",
        sa.Column("value", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("value", name=op.f("pk_puid")),
    )
    connection = op.get_bind()
    for table, kind in TABLES.items():
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("puid", sa.String(32), nullable=True))
        issued = _backfill(connection, table, kind)
        if issued:
            op.bulk_insert(register, [{"value": value} for value in issued])
        with op.batch_alter_table(table) as batch_op:
            batch_op.alter_column("puid", existing_type=sa.String(32), nullable=False)
            batch_op.create_unique_constraint(op.f(f"uq_{table}_puid"), ["puid"])


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_constraint(op.f(f"uq_{table}_puid"), type_="unique")
            batch_op.drop_column("puid")
    op.drop_table("puid")
