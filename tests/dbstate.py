"""What the database holds, to show that a refused request wrote nothing."""

from typing import Any

from sqlalchemy import inspect, select

from seqcore.db.base import Base

# Columns that record that a credential was used, not data a request could have changed.
USAGE_COLUMNS = {("personal_access_token", "last_used_at")}


def snapshot(db: Any) -> dict[str, list[str]]:
    """Every row of every table (but :data:`USAGE_COLUMNS`), each table's rows sorted.

    Only the tables this database has: other tests map plugins' models (a migration test's
    own plugin) whose tables this test's database was never given.
    """
    db.expire_all()
    rows = {}
    with db.bind.connect() as conn:
        existing = set(inspect(conn).get_table_names())
        for table in Base.metadata.sorted_tables:
            if table.name not in existing:
                continue
            columns = [c for c in table.columns if (table.name, c.name) not in USAGE_COLUMNS]
            rows[table.name] = sorted(map(repr, conn.execute(select(*columns)).all()))
    return rows
