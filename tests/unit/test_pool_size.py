"""The PostgreSQL connection pool follows the threads of a web process."""

from __future__ import annotations

import os

import pytest

from seqcore.db.session import pool_options
from seqcore.framework.settings import resolve_settings

pytestmark = pytest.mark.database_independent


def test_two_connections_per_thread_by_default() -> None:
    assert pool_options({"seqcore.threads": 6, "seqcore.db.pool_size": 0,
                         "seqcore.db.max_overflow": 10}) == {"pool_size": 12,
                                                             "max_overflow": 10}


def test_an_explicit_pool_size_wins() -> None:
    assert pool_options({"seqcore.threads": 6, "seqcore.db.pool_size": 3,
                         "seqcore.db.max_overflow": 2}) == {"pool_size": 3, "max_overflow": 2}


def test_threads_come_from_the_variable_gunicorn_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(os.environ, "SEQCORE_THREADS", "8")
    settings = resolve_settings({})
    assert settings["seqcore.threads"] == 8
    assert pool_options(settings)["pool_size"] == 16


def test_the_engine_gets_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("psycopg")
    from seqcore.config import configure
    from seqcore.services import IDatabaseEngine, registry_service

    monkeypatch.setitem(os.environ, "SEQCORE_THREADS", "3")
    config = configure({"sqlalchemy.url": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                        "seqcore.session.secret": "x"})
    config.commit()
    engine = registry_service(config.registry, IDatabaseEngine)
    assert engine.pool.size() == 6
    assert engine.pool._max_overflow == 10
