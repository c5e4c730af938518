"""Engines and sessions, with SQLite tuned for a small embedded deployment."""

from __future__ import annotations

from typing import Any

import transaction
import zope.sqlalchemy
from pyramid.config import Configurator
from pyramid.request import Request
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from seqcore.services import IDatabaseEngine, ISessionFactory


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    # WAL lets the worker write while the web process reads; foreign keys are off by
    # default in SQLite and every cascade in the schema relies on them.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def get_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine; SQLite connections get WAL, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        kwargs.setdefault("connect_args", {"check_same_thread": False})
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def get_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


def session_for(
    session_factory: sessionmaker[Session], manager: transaction.TransactionManager
) -> Session:
    """A session joined to ``manager``: committed or aborted with the transaction."""
    session = session_factory()
    zope.sqlalchemy.register(session, transaction_manager=manager)
    return session


def _request_db(request: Request) -> Session:
    return session_for(request.find_service(ISessionFactory, context=None), request.tm)


def includeme(config: Configurator) -> None:
    """Engine from ``sqlalchemy.url`` (or an engine passed in as ``seqcore.engine`` by
    tests) and its session factory as services, pyramid_tm with an explicit manager, and
    ``request.db``."""
    settings = config.get_settings()
    engine = settings.get("seqcore.engine") or get_engine(settings["sqlalchemy.url"])
    config.register_service(engine, IDatabaseEngine)
    config.register_service(get_session_factory(engine), ISessionFactory)
    settings["tm.manager_hook"] = "pyramid_tm.explicit_manager"
    config.include("pyramid_tm")
    config.add_request_method(_request_db, "db", reify=True)
