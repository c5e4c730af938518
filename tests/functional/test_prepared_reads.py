"""Prepared reads (``seqcore.db.prepared``): the rows Core would return, on the request's own
connection and transaction, and through Core whenever someone watches the statements."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, event, select, update

from seqcore.db.prepared import IGNORES_PLAIN_READS, PreparedRead, numbered
from seqcore.models.project import Project
from seqcore.models.revocation import current_generation
from seqcore.resources.projects import project_with_acl
from seqcore.services import ISessionFactory, registry_service
from tests.functional.test_deferred_transactions import in_transaction


@pytest.fixture
def session(app_config, engine):
    session = registry_service(app_config.registry, ISessionFactory)()
    yield session
    session.rollback()
    session.close()


def _core_rows(session, prepared, **params):
    return [tuple(row) for row in session.connection().execute(prepared.statement, params)]


def test_rows_are_those_core_returns(factories, session):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, members=[(member, "PROJECT_USER")],
                                organism="Salmonella enterica", genome_size=4_800_000)
    prepared = project_with_acl()
    rows = prepared.all(session.connection(), object_id=project.id)
    assert [tuple(row) for row in rows] == _core_rows(session, prepared, object_id=project.id)
    first = rows[0]
    assert (first.id, first.name, first.organism) == (project.id, project.name,
                                                       "Salmonella enterica")
    # Result processors ran: timestamps are the aware datetimes the model holds.
    assert first.created == project.created and first.created.tzinfo is not None
    assert {row.user_id for row in rows} >= {owner.id, member.id}
    assert prepared.all(session.connection(), object_id=project.id + 1000) == []


def test_a_read_sees_what_its_transaction_wrote(session):
    session.add(Project(name="unsaved", namespace="test", path="unsaved"))
    session.flush()
    written = session.scalars(select(Project.id).where(Project.name == "unsaved")).one()
    rows = project_with_acl().all(session.connection(), object_id=written)
    assert [row.name for row in rows][:1] == ["unsaved"]


def test_a_read_opens_no_transaction(factories, session):
    project = factories.project(owner=factories.user(username="reader"))
    connection = session.connection()
    project_with_acl().all(connection, object_id=project.id)
    current_generation(session)
    assert not in_transaction(connection.connection.dbapi_connection)


def test_a_watched_engine_sees_every_prepared_statement(factories, session, engine):
    project = factories.project(owner=factories.user(username="watched"))
    seen: list[str] = []
    ignored: list[str] = []

    def watch(conn, cursor, statement, *args):
        seen.append(statement)

    def indifferent(conn, cursor, statement, parameters, *args):
        ignored.append(statement)
        return statement, parameters

    setattr(indifferent, IGNORES_PLAIN_READS, True)
    event.listen(engine, "before_cursor_execute", indifferent, retval=True)
    try:
        project_with_acl().all(session.connection(), object_id=project.id)
        current_generation(session)
        assert ignored == []  # nobody watching: the driver's cursor, no event
        event.listen(engine, "before_cursor_execute", watch)
        try:
            project_with_acl().all(session.connection(), object_id=project.id)
            current_generation(session)
        finally:
            event.remove(engine, "before_cursor_execute", watch)
    finally:
        event.remove(engine, "before_cursor_execute", indifferent)
    assert len(seen) == 2 and "auth_generation" in seen[1]


@pytest.mark.parametrize("statement, variables, problem", [
    (select(update(Project).values(name="x").returning(Project.id).cte("written").c.id), (),
     "only a plain read"),
    (select(Project.id).where(Project.id.in_(bindparam("ids", expanding=True))), ("ids",),
     "expanding"),
    (select(Project.id), ("object_id",), "binds no object_id"),
])
def test_what_cannot_be_prepared_is_refused(session, statement, variables, problem):
    with pytest.raises(ValueError, match=problem):
        PreparedRead(statement, variables).all(session.connection(), ids=[1], object_id=1)


def test_numbered_placeholders_keep_percent_signs_and_repeated_names():
    sql, order = numbered("SELECT a FROM t WHERE b LIKE 'x%%' AND c = %(c)s "
                          "AND d = %(d_1)s OR c > %(c)s")
    assert sql == "SELECT a FROM t WHERE b LIKE 'x%' AND c = $1 AND d = $2 OR c > $1"
    assert order == ("c", "d_1")


def test_a_read_with_percent_signs_and_a_repeated_variable(factories, session):
    """On psycopg the statement runs with ``$n`` placeholders on a raw cursor: a literal
    ``%`` and a variable bound twice give Core's rows there as everywhere."""
    factories.project(owner=factories.user(username="percent"), name="50% done")
    factories.project(owner=factories.user(username="other"), name="Whole")
    object_id = bindparam("object_id")
    statement = (select(Project.id, Project.name)
                 .where(Project.name.like("%\\%%", escape="\\") | (Project.id == object_id))
                 .where(Project.id >= object_id - 1000).order_by(Project.id))
    prepared = PreparedRead(statement, ("object_id",))
    project_id = session.scalars(select(Project.id).where(Project.name == "Whole")).one()
    rows = prepared.all(session.connection(), object_id=project_id)
    assert [tuple(row) for row in rows] == _core_rows(session, prepared, object_id=project_id)
    assert {row.name for row in rows} == {"50% done", "Whole"}


def test_a_server_compiles_the_reads_of_every_request_while_starting(app_config, engine):
    """:func:`seqcore.config.main` compiles them (tens of milliseconds each), so the first
    requests of a worker process do not wait for it."""
    from seqcore.config import compile_request_reads
    from seqcore.models.revocation import generation_read
    from seqcore.resources.samples import project_sample_with_acl, sample_with_acl
    from seqcore.security.fieldaccess import readable_metadata

    compile_request_reads(app_config.registry)
    reads = [generation_read(), project_with_acl(), sample_with_acl(),
             project_sample_with_acl(), readable_metadata((False, False))]
    assert all(engine.dialect in read._by_dialect for read in reads)
