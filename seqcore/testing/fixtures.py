"""The fixtures of :mod:`seqcore.testing`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from seqcore.services import IDatabaseEngine, ISessionFactory, registry_service
from seqcore.testing.analyses import AnalysisRunner, ReadsUploader
from seqcore.testing.database import empty_all_tables, make_engine, test_database_url
from seqcore.testing.factories import Factories
from seqcore.testing.logsecrets import SecretRecorder
from seqcore.testing.sharedservers import SharedServers


@pytest.fixture(scope="session")
def seqcore_plugins() -> list[object]:
    """Plugins to load besides the core. Override in a plugin's conftest.py."""
    return []


@pytest.fixture(scope="session")
def seqcore_settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Application settings for tests: cheap password hashing, a temporary storage dir, a
    fixed session secret, a generous GraphQL deadline."""
    return {
        "seqcore.storage.path": str(tmp_path_factory.mktemp("storage")),
        "seqcore.analysis.work_path": str(tmp_path_factory.mktemp("work")),
        "seqcore.password_hash.time_cost": 1,
        "seqcore.password_hash.memory_cost": 64,
        "seqcore.session.secret": "test-session-secret-not-for-production",
        # A busy test machine (two cores, two test workers, live servers beside them) can
        # stall one request for seconds; the deadline's own tests set theirs.
        "seqcore.graphql.max_seconds": 60,
    }


def _store_server(kind: str) -> Iterator[Any]:
    from seqcore.testing.objectstores import StoreUnavailable, start

    try:
        server = start(kind)
    except StoreUnavailable as err:
        pytest.skip(str(err))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Any]:
    """An S3-compatible server (moto) on loopback, for the session
    (:class:`seqcore.testing.objectstores.StoreServer`; ``settings()`` gives a new bucket)."""
    yield from _store_server("s3")


@pytest.fixture(scope="session")
def azure_server() -> Iterator[Any]:
    """Azure Blob storage (Azurite) on loopback, for the session."""
    yield from _store_server("azure")


@pytest.fixture(scope="session")
def shared_live_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    """Live servers started once per session (per pytest-xdist worker) and shared by name:
    ``shared_live_servers.get("name", prepare, **settings)``
    (:mod:`seqcore.testing.sharedservers`). Each test sharing one uses accounts, clients
    and projects of its own."""
    servers = SharedServers(tmp_path_factory.mktemp("shared-servers"))
    yield servers
    servers.stop_all()


@pytest.fixture(params=["local", "s3", "azure"])
def storage_backend_settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The ``seqcore.storage.*`` settings of each backend in turn: the local directory (no
    settings), a new S3 bucket, a new Azure container."""
    if request.param == "local":
        return {}
    server = request.getfixturevalue("s3_server" if request.param == "s3"
                                     else "azure_server")
    return dict(server.settings())


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return test_database_url(tmp_path_factory.mktemp("db"), worker)


@pytest.fixture(scope="session")
def app_config(seqcore_settings: dict[str, Any], seqcore_plugins: list[object],
               database_url: str) -> Any:
    """The configured (not yet committed) application, and its migrated database."""
    from seqcore.config import configure
    from seqcore.db.migrations import upgrade

    engine = make_engine(database_url)
    settings = {**seqcore_settings, "sqlalchemy.url": database_url, "seqcore.engine": engine}
    config = configure(settings, plugins=seqcore_plugins)
    upgrade(config.get_settings(), config.registry.pm, engine=engine)
    return config


@pytest.fixture(scope="session")
def app(app_config: Any) -> Any:
    return app_config.make_wsgi_app()


@pytest.fixture
def engine(app: Any, app_config: Any) -> Iterator[Engine]:
    """The test database's engine; every table, and the storage directory, are emptied after
    the test."""
    engine = registry_service(app_config.registry, IDatabaseEngine)
    yield engine
    empty_all_tables(engine)
    storage = Path(app_config.get_settings()["seqcore.storage.path"])
    for child in storage.iterdir() if storage.exists() else ():
        shutil.rmtree(child) if child.is_dir() else child.unlink()


@pytest.fixture
def build_app(seqcore_settings: dict[str, Any], seqcore_plugins: list[object],
              database_url: str, engine: Engine, app_config: Any) -> Any:
    """``build_app(plugins, **settings)``: another WebTest app over the same database and
    storage, with other plugins or settings (size limits, switches)."""
    from webtest import TestApp

    from seqcore.config import configure

    def build(plugins: list[object] | None = None, **settings: Any) -> Any:
        config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                            "seqcore.engine": engine, **settings},
                           plugins=seqcore_plugins if plugins is None else plugins)
        return TestApp(SecretRecorder(config.make_wsgi_app()),
                       extra_environ={"HTTP_HOST": "localhost"})

    return build


@pytest.fixture
def testapp(app: Any, engine: Engine) -> Any:
    """WebTest around the real application (real database, real security)."""
    from webtest import TestApp

    return TestApp(SecretRecorder(app), extra_environ={"HTTP_HOST": "localhost"})


@pytest.fixture
def factories(app_config: Any, engine: Engine) -> Factories:
    kinds = app_config.registry.get("seqcore.file_kinds", {}).values()
    return Factories(registry_service(app_config.registry, ISessionFactory),
                     app_config.get_settings(), {kind.name: kind for kind in kinds})


@pytest.fixture
def db(app_config: Any, engine: Engine) -> Iterator[Any]:
    """A plain session for reading what requests wrote."""
    session = registry_service(app_config.registry, ISessionFactory)()
    yield session
    session.close()


@pytest.fixture
def upload_reads(testapp: Any, app_config: Any) -> ReadsUploader:
    """``upload_reads(sample, headers, kind=None, files=None)``: a real multipart upload of
    one object (default: the first default analysis input kind, with its ``sample_files``),
    then the processing worker; returns :class:`seqcore.testing.analyses.UploadedReads`."""
    return ReadsUploader(testapp, app_config.registry)


@pytest.fixture
def run_analysis(testapp: Any, app_config: Any) -> AnalysisRunner:
    """``run_analysis(type, inputs, headers, parameters=None, timeout=300, **body)``:
    launches through the API, drives the submission on the configured executor until
    ``COMPLETED`` or ``ERROR``; returns :class:`seqcore.testing.analyses.AnalysisRun`."""
    return AnalysisRunner(testapp, app_config.registry)


class SQLCounter:
    """Counts statements the engine executes while active."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.count = 0
        self.statements: list[str] = []

    def _on_execute(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.count += 1
        self.statements.append(statement)

    def __enter__(self) -> SQLCounter:
        self.count = 0
        self.statements = []
        event.listen(self.engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(self, *exc: Any) -> None:
        event.remove(self.engine, "before_cursor_execute", self._on_execute)


@pytest.fixture
def sql_counter(engine: Engine) -> SQLCounter:
    return SQLCounter(engine)


class GraphQLClient:
    """Posts GraphQL documents to ``/api/graphql`` through WebTest.

    ``graphql(query, variables, headers=..., status=200)`` returns the decoded body;
    ``headers`` default to the last ones given to :meth:`as_user`.
    """

    def __init__(self, testapp: Any, factories: Factories) -> None:
        self.testapp = testapp
        self.factories = factories
        self.headers: dict[str, str] = {}

    def as_user(self, user: Any, scopes: tuple[str, ...] = ("read_api", "api")) -> GraphQLClient:
        self.headers = self.factories.graphql_headers(user, scopes)
        return self

    def __call__(self, query: str, variables: dict[str, Any] | None = None, *,
                 headers: dict[str, str] | None = None, status: int = 200,
                 operation_name: str | None = None) -> Any:
        body: dict[str, Any] = {"query": query}
        if variables is not None:
            body["variables"] = variables
        if operation_name is not None:
            body["operationName"] = operation_name
        response = self.testapp.post_json("/api/graphql", body, status=status,
                                          headers=self.headers if headers is None else headers)
        return response.json


@pytest.fixture
def graphql(testapp: Any, factories: Factories) -> GraphQLClient:
    """A GraphQL client: ``graphql.as_user(user)`` then ``graphql(query, variables)``."""
    return GraphQLClient(testapp, factories)
