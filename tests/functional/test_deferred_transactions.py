"""Transactions begin at the first write (``seqcore.db.deferred`` on PostgreSQL, the driver
itself on SQLite): a request that only reads sends no BEGIN and no COMMIT, and one that writes
is as atomic as ever."""

from __future__ import annotations

import threading

import pytest
import transaction
from sqlalchemy import event, select, text

from seqcore.db import session_for
from seqcore.db.deferred import plain_read
from seqcore.db.locks import lock_row
from seqcore.models.project import Project
from seqcore.services import ISessionFactory, registry_service


def in_transaction(dbapi_connection) -> bool:
    """Whether the driver's connection has a transaction open (psycopg or sqlite3)."""
    if hasattr(dbapi_connection, "in_transaction"):  # sqlite3
        return bool(dbapi_connection.in_transaction)
    return dbapi_connection.info.transaction_status != 0  # psycopg: IDLE is 0


class Watch:
    """Each statement the engine runs, and whether a transaction was open once it ran
    (statements read through a server-side cursor, which lives in a transaction, apart)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.seen: list[tuple[str, bool]] = []
        self.streamed: list[str] = []

    def _after(self, conn, cursor, statement, parameters, context, executemany) -> None:
        if context.execution_options.get("stream_results"):
            self.streamed.append(statement)
        else:
            self.seen.append((statement, in_transaction(cursor.connection)))

    def __enter__(self) -> Watch:
        event.listen(self.engine, "after_cursor_execute", self._after)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(self.engine, "after_cursor_execute", self._after)


@pytest.mark.parametrize("path", ["/api/projects/{pid}", "/api/projects",
                                  "/api/projects/{pid}/samples", "/api/samples/{sid}"])
def test_a_request_that_reads_opens_no_transaction(testapp, factories, engine, path):
    owner = factories.user(username="reader")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="s1")
    headers = factories.headers(owner)
    testapp.get("/api", headers=headers)  # the first request may restore the generation row
    with Watch(engine) as watch:
        testapp.get(path.format(pid=project.id, sid=sample.id), headers=headers, status=200)
    assert watch.seen
    assert [s for s, open_ in watch.seen if open_] == []


def test_a_request_that_writes_writes_in_a_transaction(testapp, factories, engine):
    owner = factories.user(username="writer")
    headers = factories.headers(owner)
    with Watch(engine) as watch:
        testapp.post_json("/api/projects", {"name": "Written"}, headers=headers, status=201)
    writes = [(s, open_) for s, open_ in watch.seen if s.lstrip().upper().startswith("INSERT")]
    assert writes and all(open_ for _, open_ in writes)


def test_an_aborted_transaction_leaves_nothing(app_config, engine, db):
    factory = registry_service(app_config.registry, ISessionFactory)
    manager = transaction.TransactionManager(explicit=True)
    manager.begin()
    session = session_for(factory, manager)
    session.add(Project(name="first", namespace="test", path="first"))
    session.flush()
    session.add(Project(name="second", namespace="test", path="second"))
    session.flush()
    manager.abort()
    assert db.scalars(select(Project.name)).all() == []


def test_a_row_lock_is_held_until_the_transaction_ends(app_config, engine, factories):
    """``SELECT ... FOR UPDATE`` (PostgreSQL) is a write here: it begins the transaction, so
    the lock lasts until the commit; a second locker waits for it."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no row locks (seqcore.db.locks takes its write lock)")
    project = factories.project(owner=factories.user(username="locker"))
    factory = registry_service(app_config.registry, ISessionFactory)
    first = factory()
    lock_row(first, Project, project.id)
    got: list[str] = []

    def second() -> None:
        with engine.connect() as conn:
            conn.execute(text("SET lock_timeout = '20s'"))
            conn.execute(select(Project.id).where(Project.id == project.id).with_for_update())
            got.append("locked")
            conn.rollback()

    waiter = threading.Thread(target=second)
    waiter.start()
    waiter.join(1.0)
    assert got == []  # still waiting for the first transaction
    first.commit()
    waiter.join(20)
    assert got == ["locked"]
    first.close()


@pytest.mark.parametrize("statement, reads", [
    ("SELECT project.id FROM project WHERE project.id = %(id)s", True),
    ("\n  select 1", True),
    ("WITH RECURSIVE g(id) AS (SELECT 1) SELECT id FROM g", True),
    ("(SELECT 1) UNION ALL (SELECT 2)", True),
    ("SELECT project.id FROM project WHERE project.id = %(id)s FOR UPDATE", False),
    ("SELECT project.id FROM project FOR NO KEY UPDATE", False),
    ("SELECT project.id FROM project FOR KEY SHARE", False),
    ("SELECT pg_advisory_xact_lock(1)", False),
    ("WITH gone AS (DELETE FROM project RETURNING id) SELECT id FROM gone", False),
    ("INSERT INTO project (name) VALUES (%(name)s)", False),
    ("UPDATE project SET name = 'x'", False),
    ("DELETE FROM project", False),
    ("SAVEPOINT sa_savepoint_1", False),
    ("CREATE TABLE t (id integer)", False),
    ("TRUNCATE project", False),
    ("SET lock_timeout = '1s'", False),
])
def test_what_counts_as_a_plain_read(statement, reads):
    assert plain_read(statement) is reads
