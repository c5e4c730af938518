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
