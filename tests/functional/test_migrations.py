"""Migrations: the core branch and a plugin's branch upgrade and downgrade independently."""

from sqlalchemy import inspect

from seqcore.db import get_engine
from seqcore.db.migrations import downgrade, heads, upgrade
from seqcore.plugins import build_plugin_manager
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

    from seqcore import core_plugin
    from seqcore.db import Base

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
