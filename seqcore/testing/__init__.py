"""seqcore's test kit, a pytest plugin (``pytest11`` entry point ``seqcore``).

Plugin authors get the same fixtures the core's own tests use:

* ``seqcore_plugins`` / ``seqcore_settings``: override to choose plugins and settings;
* ``engine``: a migrated database (SQLite file, or PostgreSQL when
  ``SEQCORE_TEST_DATABASE_URL`` is set), emptied after every test;
* ``app`` / ``testapp``: the WSGI app built by :func:`seqcore.config.configure`, and WebTest;
  ``build_app(plugins, **settings)`` builds another over the same database;
* ``factories``: users, OAuth clients, tokens and projects committed straight to the database;
* ``sql_counter``: counts SQL statements, for asserting a request's cost does not grow;
* ``graphql``: posts GraphQL documents with a personal access token (``as_user(user)``);
* ``upload_reads`` / ``run_analysis``: upload reads through the API and run an analysis on
  them to completion (:mod:`seqcore.testing.analyses`);
* ``swap_service``: replaces a service (``IQCEngine``, ``IStorage``...) for one test;
* ``shared_live_servers``: live servers started once per session and shared by name
  (:mod:`seqcore.testing.sharedservers`).

Contracts to subclass: :mod:`seqcore.testing.contracts` (``FileKindContract``,
``AnalysisPluginContract``).

Modules that reach no database (or only SQLite databases of their own) say so with
``pytest.mark.database_independent``; collection refuses the mark on any test that reaches the
suite's database (:mod:`seqcore.testing.databaseindependent`).

Every session records its log at DEBUG and fails when a secret it issued or sent appears
there (:mod:`seqcore.testing.logsecrets`; ``SEQCORE_LOG_SECRETS=0`` turns that off).

Modules to import: :mod:`seqcore.testing.server` (a real server on loopback),
:mod:`seqcore.testing.consistency` (no orphan row or file, no ownerless project) and
:mod:`seqcore.testing.fuzzing` (hostile requests for every registered route; needs
hypothesis, in the ``test`` extra).
"""

import pytest

from seqcore.framework.plugins import installed_plugin
from seqcore.testing.databaseindependent import refuse_misplaced
from seqcore.testing.fixtures import (
    app,
    app_config,
    azure_server,
    build_app,
    database_url,
    db,
    engine,
    factories,
    graphql,
    run_analysis,
    s3_server,
    seqcore_plugins,
    seqcore_settings,
    shared_live_servers,
    sql_counter,
    storage_backend_settings,
    testapp,
    upload_reads,
)

# The log-secrets check's hooks and autouse fixture (pytest finds them on this module;
# pytest_testnodedown is pytest-xdist's, optional: its controller gathers the workers' finds).
from seqcore.testing.logsecrets import _no_secret_in_logs as _no_secret_in_logs
from seqcore.testing.logsecrets import pytest_configure as _logsecrets_configure
from seqcore.testing.logsecrets import pytest_sessionfinish as pytest_sessionfinish
from seqcore.testing.logsecrets import pytest_terminal_summary as pytest_terminal_summary
from seqcore.testing.logsecrets import pytest_testnodedown as pytest_testnodedown
from seqcore.testing.services import replace_service, swap_service


def pytest_configure(config: pytest.Config) -> None:
    """Registers the kit's marker, so every suite using the kit may select on it (``.ci/run``
    passes ``-m "not database_independent"`` to each suite of its PostgreSQL pass), and
    starts the log-secrets check."""
    config.addinivalue_line(
        "markers", "database_independent: reaches no database, so .ci/run runs it in its "
        "SQLite pass only")
    _logsecrets_configure(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuses ``database_independent`` on a test that reaches the suite's database
    (:mod:`seqcore.testing.databaseindependent`), in every suite that uses the kit."""
    refuse_misplaced(items)


__all__ = [
    "app",
    "app_config",
    "azure_server",
    "build_app",
    "database_url",
    "db",
    "engine",
    "factories",
    "graphql",
    "installed_plugin",
    "replace_service",
    "run_analysis",
    "s3_server",
    "seqcore_plugins",
    "seqcore_settings",
    "shared_live_servers",
    "sql_counter",
    "storage_backend_settings",
    "swap_service",
    "testapp",
    "upload_reads",
]
