"""The revocation generation: one row that triggers change whenever a token, a client or an
account changes in a way that alters checking a bearer token, so that web workers caching
those checks notice on the next request (``seqcore.models.revocation``).

Revision ID: c0010
Revises: c0009
"""

import sqlalchemy as sa
from alembic import op

revision = "c0010"
down_revision = "c0009"
branch_labels = None
depends_on = None

# Columns whose change alters checking a bearer token, by table (seqcore.models.revocation);
# deleting a row of these tables counts too.
WATCHED = {
    "oauth_token": ("revoked", "scopes", "expires", "access_hash", "user_id", "client_id"),
    "oauth_client": ("revoked", "lenient", "client_id"),
    "user": ("enabled", "system_role", "username"),
}

# Recreated with a random value if a test emptied the table, so it never repeats a value.
PG_FUNCTION = """
CREATE FUNCTION seqcore_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO auth_generation (id, value) VALUES (1, (random() * 1e15)::bigint)
    ON CONFLICT (id) DO UPDATE SET value = auth_generation.value + 1;
    RETURN NULL;
END $$
"""
SQLITE_BODY = ("INSERT INTO auth_generation (id, value) "
               "VALUES (1, abs(random() % 1000000000000000)) "
               "ON CONFLICT (id) DO UPDATE SET value = value + 1;")


def _triggers() -> list[tuple[str, str, str]]:
    """(trigger name, table, event) for every watched change."""
    found = []
    for table, columns in WATCHED.items():
        found.append((f"seqcore_auth_{table}_update", table,
                      f"UPDATE OF {', '.join(columns)}"))
        found.append((f"seqcore_auth_{table}_delete", table, "DELETE"))
    return found


def upgrade() -> None:
    table = op.create_table(
        "auth_generation",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )
    op.bulk_insert(table, [{"id": 1, "value": 0}])
    postgresql = op.get_bind().dialect.name == "postgresql"
    if postgresql:
        op.execute(PG_FUNCTION)
    for name, table_name, event in _triggers():
        quoted = f'"{table_name}"'
        if postgresql:
            # Deferred: the generation row is locked at commit, after everything else.
            op.execute(f"CREATE CONSTRAINT TRIGGER {name} AFTER {event} ON {quoted} "
                       "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
                       "EXECUTE FUNCTION seqcore_auth_changed()")
        else:
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {quoted} "
                       f"BEGIN {SQLITE_BODY} END")


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for name, table_name, _ in _triggers():
        if postgresql:
            op.execute(f'DROP TRIGGER IF EXISTS {name} ON "{table_name}"')
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    if postgresql:
        op.execute("DROP FUNCTION IF EXISTS seqcore_auth_changed()")
    op.drop_table("auth_generation")
