"""Engines and sessions, with SQLite tuned for a small embedded deployment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import transaction
import zope.sqlalchemy
import zope.sqlalchemy.datamanager
from pyramid.config import Configurator
from pyramid.request import Request
from sqlalchemy import create_engine, event
from sqlalchemy.engine import CursorResult, Engine, Result, make_url
from sqlalchemy.orm import Session, sessionmaker

from seqcore.db.deferred import defer_transactions, defers_transactions
from seqcore.observability import tracing
from seqcore.services import IDatabaseEngine, ISessionFactory


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    # WAL lets the worker write while the web process reads; foreign keys are off by
    # default in SQLite and every cascade in the schema relies on them.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def rowcount(result: Result[Any]) -> int:
    """The number of rows an UPDATE or DELETE matched, which the compare-and-set updates
    (claims, state moves) test. ``Session.execute`` is annotated to return a ``Result``; for
    such a statement it is a ``CursorResult``, the class that has ``rowcount``."""
    return cast("CursorResult[Any]", result).rowcount


def get_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine; SQLite connections get WAL, foreign keys and a busy timeout;
    PostgreSQL's (psycopg) open a transaction only at the first write, as SQLite's driver
    does (:mod:`seqcore.db.deferred`); its statements are traced when traces are on."""
    if url.startswith("sqlite"):
        kwargs.setdefault("connect_args", {"check_same_thread": False})
    deferred = defers_transactions(make_url(url)) and "isolation_level" not in kwargs
    if deferred:
        kwargs["isolation_level"] = "AUTOCOMMIT"
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if deferred:
        defer_transactions(engine)
    tracing.instrument_engine(engine)  # SQL spans, when traces are on
    return engine


def pool_options(settings: Any) -> dict[str, int]:
    """Connection-pool size for a server database, from the threads each web process runs:
    ``seqcore.db.pool_size`` when set, else two connections per thread (a request holds one;
    a streamed collection takes one more after its transaction has ended), so no thread
    waits for a connection another thread of its process holds."""
    threads = int(settings.get("seqcore.threads") or 4)
    size = int(settings.get("seqcore.db.pool_size") or 0) or 2 * threads
    return {"pool_size": size, "max_overflow": int(settings.get("seqcore.db.max_overflow", 10))}


SETTINGS_KEY = "seqcore.settings"


def get_session_factory(engine: Engine, settings: Mapping[str, Any] | None = None
                        ) -> sessionmaker[Session]:
    """Sessions on ``engine``; given the application's ``settings``, each session carries
    them in ``info[SETTINGS_KEY]`` for domain code that needs a setting wherever it runs (a
    request, the worker)."""
    info = None if settings is None else {SETTINGS_KEY: settings}
    return sessionmaker(bind=engine, expire_on_commit=False, info=info)


TM_KEY = "seqcore.transaction_manager"


class _JoinTheSessionsManager(zope.sqlalchemy.datamanager.ZopeTransactionEvents):
    """zope.sqlalchemy's session events, listening once on every :class:`Session` and
    finding the transaction manager in ``session.info`` (put there by :func:`session_for`).

    Registering zope.sqlalchemy's listeners on each new session costs seven
    ``event.listen`` calls per request (a quarter of a small request's time); sessions
    without a manager in ``info`` are left alone.
    """

    def __init__(self) -> None:
        super().__init__()

    def _manager(self, session: Session) -> Any:
        return session.info.get(TM_KEY)

    def after_begin(self, session: Session, transaction: Any, connection: Any) -> None:
        manager = self._manager(session)
        if manager is not None:
            zope.sqlalchemy.datamanager.join_transaction(session, transaction_manager=manager)

    def after_attach(self, session: Session, instance: Any) -> None:
        manager = self._manager(session)
        if manager is not None:
            zope.sqlalchemy.datamanager.join_transaction(session, transaction_manager=manager)

    def after_flush(self, session: Session, flush_context: Any) -> None:
        manager = self._manager(session)
        if manager is not None:
            zope.sqlalchemy.mark_changed(session, manager)

    def after_bulk_update(self, update_context: Any) -> None:
        self.after_flush(update_context.session, None)

    def after_bulk_delete(self, delete_context: Any) -> None:
        self.after_flush(delete_context.session, None)

    def before_commit(self, session: Session) -> None:
        manager = self._manager(session)
        if manager is not None:
            assert (session.in_nested_transaction() or manager.get().status ==
                    zope.sqlalchemy.datamanager.ZopeStatus.COMMITTING), \
                "Transaction must be committed using the transaction manager"

    def do_orm_execute(self, execute_state: Any) -> None:
        if execute_state.is_orm_statement and (execute_state.is_update or
                                               execute_state.is_insert or
                                               execute_state.is_delete):
            self.after_flush(execute_state.session, None)


_JOIN = _JoinTheSessionsManager()
for _name in ("after_begin", "after_attach", "after_flush", "after_bulk_update",
              "after_bulk_delete", "before_commit", "do_orm_execute"):
    event.listen(Session, _name, getattr(_JOIN, _name))


def session_for(
    session_factory: sessionmaker[Session], manager: transaction.TransactionManager
) -> Session:
    """A session joined to ``manager``: committed or aborted with the transaction."""
    session = session_factory()
    session.info[TM_KEY] = manager
    return session


def _request_db(request: Request) -> Session:
    # The factory is looked up once per application, not per request (find_service builds
    # a per-request container each time).
    registry = request.registry
    factory = registry.get(FACTORY_KEY)
    if factory is None:
        factory = registry[FACTORY_KEY] = request.find_service(ISessionFactory, context=None)
    session = session_for(factory, request.tm)
    # Who acts in this session's writes (the audit trail reads the caller from it).
    session.info["seqcore.request"] = request
    return session


FACTORY_KEY = "seqcore.session_factory"
ENGINE_KEY = "seqcore.engine_service"


def request_engine(request: Request) -> Engine:
    """The application's engine (the ``IDatabaseEngine`` service), looked up once per
    application: ``request.find_service`` builds the request's service container, a third
    of the work of a streamed collection's view."""
    registry = request.registry
    engine = registry.get(ENGINE_KEY)
    if engine is None:
        engine = registry[ENGINE_KEY] = request.find_service(IDatabaseEngine, context=None)
    return cast(Engine, engine)


def includeme(config: Configurator) -> None:
    """Engine from ``sqlalchemy.url`` (or an engine passed in as ``seqcore.engine`` by
    tests) and its session factory as services, pyramid_tm with an explicit manager, and
    ``request.db``."""
    settings = config.get_settings()
    engine = settings.get("seqcore.engine")
    if engine is None:
        url = settings["sqlalchemy.url"]
        engine = get_engine(url, **({} if url.startswith("sqlite") else pool_options(settings)))
    config.register_service(engine, IDatabaseEngine)
    config.register_service(get_session_factory(engine, settings), ISessionFactory)
    settings["tm.manager_hook"] = "pyramid_tm.explicit_manager"
    config.include("pyramid_tm")
    config.add_request_method(_request_db, "db", reify=True)
