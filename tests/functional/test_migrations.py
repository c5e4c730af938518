"""Migrations: the core branch and a plugin's branch upgrade and downgrade independently."""

from sqlalchemy import inspect

from seqcore.db import get_engine
from seqcore.db.migrations import downgrade, heads, upgrade
from seqcore.framework.plugins import build_plugin_manager
from tests.plugins import notes


def test_plugin_branch_upgrades_with_core_and_downgrades_alone(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.sqlite'}"
    settings = {"sqlalchemy.url": url}
    core_heads = set(heads(settings, build_plugin_manager(settings, plugins=[])))
    pm = build_plugin_manager(settings, plugins=[notes])
    assert set(heads(settings, pm)) == core_heads | {"n0001"}
    upgrade(settings, pm)
    engine = get_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert {"user", "project", "oauth_token", "notes_note"} <= tables
    downgrade(settings, pm, "notes@base")
    tables = set(inspect(engine).get_table_names())
    assert "notes_note" not in tables
    assert {"user", "project"} <= tables
    engine.dispose()


def test_core_schema_matches_models(app_config, engine):
    """The migrations build exactly the tables the core's models describe."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import MetaData

    from seqcore.db import Base
    from seqcore.framework import core_plugin

    # Only the core's tables: plugins imported by other tests add theirs to the metadata.
    core = MetaData(naming_convention=Base.metadata.naming_convention)
    for model in core_plugin.register_models():
        model.__table__.to_metadata(core)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), core)
    # Other tests may migrate this database with installed plugins (a live `seqcore serve`):
    # their tables and those tables' indexes are not the core's business here.
    def plugins_own(d):
        return isinstance(d, tuple) and (
            d[0] == "remove_table"
            or (d[0] == "remove_index" and d[1].table.name not in core.tables))

    assert [d for d in diff if not plugins_own(d)] == []


def test_the_ncbi_revision_upgrades_and_downgrades_keeping_metadata(tmp_path):
    """c0015 adds the NCBI tables and the provenance column of metadata entries, and takes
    them away again, on SQLite and PostgreSQL, leaving the metadata as it was."""
    from sqlalchemy import text

    from seqcore.testing import database as test_databases

    url = test_databases.test_database_url(tmp_path, "ncbi_revision")
    settings = {"sqlalchemy.url": url}
    pm = build_plugin_manager(settings, plugins=[])
    engine = get_engine(url)
    upgrade(settings, pm, engine=engine, target="c0011")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO sample (name, created, puid) "
                          "VALUES ('s', '2026-01-01 00:00:00', 'INXT_SAM_AAAAAAAAAA')"))
        sample_id = conn.scalar(text("SELECT id FROM sample"))
        conn.execute(text("INSERT INTO metadata_entry (sample_id, field, value, type, created)"
                          " VALUES (:s, 'host', 'human', 'text', '2026-01-01 00:00:00')"),
                     {"s": sample_id})
    upgrade(settings, pm, engine=engine)
    inspector = inspect(engine)
    assert {"ncbi_submission", "ncbi_submission_sample", "ncbi_submission_run",
            "ncbi_upload_file"} <= set(inspector.get_table_names())
    assert "ncbi_submission_id" in {c["name"] for c in inspector.get_columns("metadata_entry")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT field, value, ncbi_submission_id FROM metadata_entry")
                            ).all() == [("host", "human", None)]
    downgrade(settings, pm, "c0011")
    inspector = inspect(engine)
    assert "ncbi_submission" not in inspector.get_table_names()
    assert "ncbi_submission_id" not in {c["name"] for c in
                                        inspector.get_columns("metadata_entry")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT field, value FROM metadata_entry")).all() == [
            ("host", "human")]
    upgrade(settings, pm, engine=engine)
    assert "ncbi_submission" in inspect(engine).get_table_names()
    engine.dispose()


def test_accounts_that_existed_get_namespace_puids_in_creation_order(tmp_path):
    """c0022 gives every existing account's namespace a PUID from its creation time, in
    creation order, entered in the register (so none is issued again), on SQLite and
    PostgreSQL; SQLite's ids still never come back after the table's rebuild."""
    from sqlalchemy import text

    from seqcore.models.puid import decode, is_puid
    from seqcore.testing import database as test_databases

    url = test_databases.test_database_url(tmp_path, "user_namespace_puids")
    settings = {"sqlalchemy.url": url}
    pm = build_plugin_manager(settings, plugins=[])
    engine = get_engine(url)
    upgrade(settings, pm, engine=engine, target="c0021")

    def triggers() -> int:
        if engine.dialect.name != "sqlite":
            return 0
        with engine.connect() as conn:
            return int(conn.scalar(text("SELECT count(*) FROM sqlite_master WHERE "
                                        "type = 'trigger' AND tbl_name = 'user'")))

    before = triggers()
    assert before > 0 or engine.dialect.name != "sqlite"
    with engine.begin() as conn:
        for name, created in (("late", "2026-03-02 10:00:00"), ("early", "2026-03-01 09:00:00"),
                              ("same", "2026-03-01 09:00:00"), ("gone", "2026-03-03 00:00:00")):
            conn.execute(text(
                'INSERT INTO "user" (username, email, username_key, email_key, password_hash,'
                " first_name, last_name, enabled, system_role, user_type, locale, created)"
                " VALUES (:n, :e, :n, :e, 'x', 'A', 'B', true, 'ROLE_USER', 'TYPE_LOCAL',"
                " 'en', :c)"), {"n": name, "e": f"{name}@example.org", "c": created})
        conn.execute(text("""DELETE FROM "user" WHERE username = 'gone'"""))
    upgrade(settings, pm, engine=engine)
    with engine.connect() as conn:
        rows = dict(conn.execute(text('SELECT username, namespace_puid FROM "user"')).all())
        registered = set(conn.scalars(text("SELECT value FROM puid")))
    assert all(is_puid(value, "USR") for value in rows.values())
    assert set(rows.values()) <= registered
    assert rows["early"] < rows["same"] < rows["late"]  # base32 time sorts as text
    # The rebuild kept the account table's triggers (the revocation generation's).
    assert triggers() == before
    assert decode(rows["same"][-6:]) == decode(rows["early"][-6:]) + 1
    with engine.begin() as conn:
        conn.execute(text(
            'INSERT INTO "user" (username, email, username_key, email_key, password_hash,'
            " first_name, last_name, enabled, system_role, user_type, locale, created,"
            " namespace_puid) VALUES ('new', 'new@example.org', 'new', 'new', 'x', 'A', 'B',"
            " true, 'ROLE_USER', 'TYPE_LOCAL', 'en', '2026-03-04 00:00:00', 'INXT_USR_X')"))
        ids = list(conn.scalars(text('SELECT id FROM "user" ORDER BY id')))
    assert ids[-1] == 5  # the deleted account's id 4 is not handed out again
    downgrade(settings, pm, "c0021")
    assert "namespace_puid" not in {c["name"] for c in inspect(engine).get_columns("user")}
    engine.dispose()
