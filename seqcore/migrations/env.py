"""Alembic environment for seqcore and its plugins.

It ships inside the package, so an installed seqcore migrates without a source checkout.
Alembic runs it through :mod:`seqcore.db.migrations`, which fills in the URL and every plugin's
version location and hands over the plugin manager (``config.attributes["pm"]``) so that
autogenerate sees the plugins' tables too. Tests may hand in an engine through
``config.attributes["engine"]``.
"""

from alembic import context
from sqlalchemy import pool

import seqcore.models  # noqa: F401  (registers the core tables on the metadata)
from seqcore.db import Base, get_engine

config = context.config
target_metadata = Base.metadata

pm = config.attributes.get("pm")
if pm is not None:
    # Importing a plugin's models is what maps them onto the shared metadata.
    pm.hook.register_models()


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = config.attributes.get("engine")
    if engine is None:
        url = config.get_main_option("sqlalchemy.url")
        if url is None:
            raise RuntimeError("the migration environment has no sqlalchemy.url")
        engine = get_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # SQLite changes a table by rebuilding it (batch mode, seqcore.db.identity):
            # dropping the old table with foreign keys on would run its ON DELETE actions
            # on every row that refers to it. Off for the migration (outside any
            # transaction, where SQLite takes the pragma), checked and on again after.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            # SQLite cannot ALTER most things; batch mode rebuilds tables instead.
            render_as_batch=sqlite,
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
        if sqlite:
            broken = list(connection.exec_driver_sql("PRAGMA foreign_key_check"))
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
            if broken:
                raise RuntimeError(f"foreign keys broken by the migration: {broken[:10]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
