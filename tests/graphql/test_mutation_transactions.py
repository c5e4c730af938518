"""Several mutations in one request: each keeps or rolls back its own writes, and every
field's answer is true of the database afterwards.

A field fails at the database here because a trigger refuses one sample name, as a unique
index refuses a name a concurrent request took between the check and the insert."""

import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select, text

from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample, Sample
from tests.graphql.conftest import gid

REFUSED = "refused-by-the-database"

MUTATIONS = """mutation($project: ID!, $refused: String!, $kept: String!) {
  %s
}"""
KEEP_PROJECT = """kept: createProject(input: {name: $kept}) {
    project { id fullPath } errors { message } }"""
REFUSE_SAMPLE = """refused: createSample(input: {projectId: $project, name: $refused}) {
    sample { id } errors { message } }"""


@pytest.fixture
def refusing_database(engine, db):
    """Inserts of a sample named ``REFUSED`` fail with an integrity error."""
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(text(
                "CREATE TRIGGER IF NOT EXISTS refuse_sample BEFORE INSERT ON sample "
                f"WHEN NEW.name = '{REFUSED}' BEGIN SELECT RAISE(ABORT, 'refused'); END"))
        else:
            connection.execute(text(
                "CREATE OR REPLACE FUNCTION refuse_sample() RETURNS trigger AS $$ BEGIN "
                f"IF NEW.name = '{REFUSED}' THEN RAISE EXCEPTION 'refused' USING "
                "ERRCODE = '23514'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql"))
            connection.execute(text("DROP TRIGGER IF EXISTS refuse_sample ON sample"))
            connection.execute(text(
                "CREATE TRIGGER refuse_sample BEFORE INSERT ON sample FOR EACH ROW "
                "EXECUTE FUNCTION refuse_sample()"))
    yield
    db.rollback()  # the test's reads hold locks the DROP would wait for
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(text("DROP TRIGGER refuse_sample"))
        else:
            connection.execute(text("DROP TRIGGER refuse_sample ON sample"))
            connection.execute(text("DROP FUNCTION refuse_sample()"))


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    return owner, factories.project(owner=owner, name="Outbreak")


def count(db, model, *where):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model).where(*where))


@pytest.mark.parametrize("order", ["succeeding first", "failing first"])
def test_a_failing_mutation_leaves_the_others_saved(graphql, world, db, refusing_database,
                                                    order):
    owner, project = world
    fields = [KEEP_PROJECT, REFUSE_SAMPLE]
    if order == "failing first":
        fields.reverse()
    body = graphql.as_user(owner)(MUTATIONS % "\n".join(fields), {
        "project": gid("Project", project.id), "refused": REFUSED, "kept": "Kept project"})
    kept = body["data"]["kept"]
    assert kept["errors"] == []
    assert kept["project"]["fullPath"] == "owner/kept-project"
    assert body["data"]["refused"] is None
    (error,) = body["errors"]
    assert error["path"] == ["refused"]
    assert error["extensions"]["code"] == "conflict"
    assert error["message"] == "The change conflicted with a concurrent one and was not saved."
    # What the answer says is what the database holds.
    _, pk = kept["project"]["id"].rsplit("/", 1)
    assert db.get(Project, int(pk)).path == "kept-project"
    assert count(db, Sample, Sample.name == REFUSED) == 0
    assert count(db, ProjectSample, ProjectSample.sample_name == REFUSED) == 0


def test_samples_saved_before_and_after_a_refused_one_stay(graphql, world, db,
                                                           refusing_database):
    owner, project = world
    query = """mutation($p: ID!, $refused: String!) {
      a: createSample(input: {projectId: $p, name: "first"}) { sample { name } errors { message } }
      b: createSample(input: {projectId: $p, name: $refused}) { sample { name } }
      c: createSample(input: {projectId: $p, name: "third"}) { sample { name } errors { message } }
    }"""
    body = graphql.as_user(owner)(query, {"p": gid("Project", project.id), "refused": REFUSED})
    assert body["data"]["a"] == {"sample": {"name": "first"}, "errors": []}
    assert body["data"]["b"] is None
    assert body["data"]["c"] == {"sample": {"name": "third"}, "errors": []}
    names = set(db.scalars(select(ProjectSample.sample_name).where(
        ProjectSample.project_id == project.id)))
    assert names == {"first", "third"}


def test_payload_errors_beside_a_success_are_both_true(graphql, world, db):
    owner, project = world
    query = """mutation($p: ID!) {
      bad: createSample(input: {projectId: $p, name: "no"}) { sample { name } errors { message } }
      good: createProject(input: {name: "Second project"}) {
        project { fullPath } errors { message } }
    }"""
    body = graphql.as_user(owner)(query, {"p": gid("Project", project.id)})
    assert body["data"]["bad"]["sample"] is None
    assert body["data"]["bad"]["errors"]
    assert body["data"]["good"] == {"project": {"fullPath": "owner/second-project"},
                                    "errors": []}
    assert count(db, Project, Project.path == "second-project") == 1
    assert count(db, Sample, Sample.name == "no") == 0


@pytest.fixture
def live_server(app, engine):
    """The test application served by waitress on a free loopback port."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=5)


def test_concurrent_requests_each_report_what_they_stored(live_server, factories, world, db):
    """Eight requests at once, each creating its own sample and the same contested one: no
    request fails as a whole, exactly one stores the contested sample, and every field's
    answer matches the database."""
    owner, project = world
    headers = {**factories.graphql_headers(owner), "Content-Type": "application/json"}
    query = """mutation($p: ID!, $own: String!) {
      own: createSample(input: {projectId: $p, name: $own}) { sample { name } errors { message } }
      contested: createSample(input: {projectId: $p, name: "contested"}) {
        sample { name } errors { message } }
    }"""
    start = threading.Barrier(8)

    def send(n):
        body = json.dumps({"query": query, "variables": {
            "p": gid("Project", project.id), "own": f"own-{n}"}}).encode()
        start.wait()
        request = urllib.request.Request(f"{live_server}/api/graphql", body, headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(send, range(8)))
    assert {status for status, _ in answers} == {200}
    stored = []
    for n, (_, body) in enumerate(answers):
        assert body["data"]["own"] == {"sample": {"name": f"own-{n}"}, "errors": []}
        stored.append(f"own-{n}")
        contested = body["data"]["contested"]
        if contested is not None and contested["errors"] == []:
            stored.append("contested")
        else:  # refused by the check, or by the database in a race: then a conflict error
            assert contested is None or contested["errors"]
            assert all(e["extensions"]["code"] == "conflict" for e in body.get("errors", []))
    assert stored.count("contested") == 1
    db.expire_all()
    names = sorted(db.scalars(select(ProjectSample.sample_name).where(
        ProjectSample.project_id == project.id)))
    assert names == sorted(stored)
