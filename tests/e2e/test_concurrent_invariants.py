"""Invariants that must hold when requests arrive at the same moment, against a real server
(waitress, 8 threads) on the suite's database (SQLite, or PostgreSQL with
``SEQCORE_TEST_DATABASE_URL``), with real client threads released together by a barrier.

* A project always keeps an owner: owners removing each other, or all leaving at once.
* Concurrent deletes of one file or export: one succeeds, the others are 404, one activity
  record is written.
* Creates of one unique key (username or e-mail in any letter case, membership, sample name,
  a GraphQL project path) answer exactly one success and conflicts, never a 500.
"""

from __future__ import annotations

import base64
import json
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from seqcore.db import get_engine, get_session_factory, utcnow
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import ProjectSample
from seqcore.models.user import User
from seqcore.testing import database
from seqcore.testing.factories import Factories
from seqcore.testing.server import live_server

# xdist_group("serial"): under pytest-xdist (--dist loadgroup) these run on one worker, one
# after the other, never beside another test of the group: barrier-released client threads race each
# other on purpose; another load test beside them would starve the races they measure.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("serial")]

TRIES = 8
SETTINGS = {"seqcore.password_hash.time_cost": "1", "seqcore.password_hash.memory_cost": "64",
            "seqcore.session.secret": "concurrency-test-secret"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("concurrent")
    url = database.test_database_url(root, "concurrent")
    srv = live_server(root / "server", **{"sqlalchemy.url": url, **SETTINGS})
    with open(srv.ini, "a") as ini:
        ini.write("threads = 8\n")
    srv.start()
    engine = get_engine(url)
    srv.engine = engine
    srv.factories = Factories(get_session_factory(engine), {
        **SETTINGS, "seqcore.storage.path": str(root / "server" / "storage")})
    yield srv
    srv.stop()
    engine.dispose()


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run every call in its own thread, all released at the same moment."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def bearer(server, user) -> str:
    return server.factories.token(user)


def owners(server, project_id: int) -> int:
    with server.engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(ProjectMember).where(
            ProjectMember.project_id == project_id,
            ProjectMember.role == ProjectRole.OWNER.value))


def statuses(results) -> Counter:
    return Counter(status for status, _, _ in results)


def test_two_owners_removing_each_other_leave_one(server):
    f = server.factories
    alice, bob = f.user(), f.user()
    tokens = {alice.id: bearer(server, alice), bob.id: bearer(server, bob)}
    for _ in range(TRIES):
        project = f.project(owner=alice, members=[(bob, ProjectRole.OWNER)])
        results = at_once([
            lambda p=project: server.request("DELETE", f"/api/projects/{p.id}/users/"
                                                       f"{bob.username}", tokens[alice.id]),
            lambda p=project: server.request("DELETE", f"/api/projects/{p.id}/users/"
                                                       f"{alice.username}", tokens[bob.id]),
        ])
        codes = [status for status, _, _ in results]
        assert sorted(codes)[0] == 200 and codes.count(200) == 1, results
        assert all(code in (200, 400, 404) for code in codes), results
        for status, body, _ in results:
            assert "message" in json.loads(body) or status == 200
        assert owners(server, project.id) == 1


def test_owners_all_leaving_at_once_leave_one(server):
    f = server.factories
    people = [f.user() for _ in range(3)]
    tokens = [bearer(server, p) for p in people]
    for _ in range(TRIES):
        project = f.project(owner=people[0], members=[(p, ProjectRole.OWNER)
                                                      for p in people[1:]])
        results = at_once([
            lambda p=project, who=who, token=token: server.request(
                "DELETE", f"/api/projects/{p.id}/users/{who.username}", token)
            for who, token in zip(people, tokens, strict=True)])
        assert statuses(results) == Counter({200: 2, 400: 1}), results
        refused = next(json.loads(body) for status, body, _ in results if status == 400)
        assert "at least one owner" in refused["message"]
        assert owners(server, project.id) == 1


def one_created_rest_conflicts(results, created: int = 201) -> list[dict]:
    """Exactly one ``created`` and the rest 409 with a ``message``; the 409 bodies."""
    counts = statuses(results)
    assert counts == Counter({created: 1, 409: len(results) - 1}), results
    bodies = [json.loads(body) for status, body, _ in results if status == 409]
    assert all(set(body) == {"message"} and body["message"] for body in bodies)
    return bodies


def user_body(username: str, email: str) -> dict[str, str]:
    return {"username": username, "email": email, "password": "Password1!",
            "firstName": "Test", "lastName": "Racer", "phoneNumber": "5550100"}


def test_one_username_in_any_case_is_created_once(server):
    admin = server.factories.user("ROLE_ADMIN")
    token = bearer(server, admin)
    for n in range(TRIES):
        spellings = [f"racer{n}", f"Racer{n}", f"RACER{n}", f"rAcEr{n}"]
        results = at_once([
            lambda name=name, i=i, n=n: server.request(
                "POST", "/api/users", token, user_body(name, f"racer{n}.{i}@example.org"))
            for i, name in enumerate(spellings)])
        bodies = one_created_rest_conflicts(results)
        assert all(b["message"].endswith("duplicate field exists: username") for b in bodies)
        with server.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(User).where(
                func.lower(User.username) == f"racer{n}")) == 1


def test_one_email_in_any_case_is_created_once(server):
    admin = server.factories.user("ROLE_ADMIN")
    token = bearer(server, admin)
    for n in range(TRIES):
        emails = [f"mail{n}@example.org", f"Mail{n}@Example.org", f"MAIL{n}@EXAMPLE.ORG",
                  f"mail{n}@EXAMPLE.org"]
        results = at_once([
            lambda email=email, i=i, n=n: server.request(
                "POST", "/api/users", token, user_body(f"mailer{n}x{i}", email))
            for i, email in enumerate(emails)])
        bodies = one_created_rest_conflicts(results)
        assert all(b["message"].endswith("duplicate field exists: email") for b in bodies)


def test_one_member_is_added_once(server):
    f = server.factories
    owner = f.user()
    token = bearer(server, owner)
    for _ in range(TRIES):
        project, newcomer = f.project(owner=owner), f.user()
        results = at_once([
            lambda p=project, u=newcomer: server.request(
                "POST", f"/api/projects/{p.id}/users", token,
                {"userId": u.username, "role": "PROJECT_USER"})
            for _ in range(4)])
        bodies = one_created_rest_conflicts(results)
        assert all("already a member" in b["message"] for b in bodies)
        with server.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ProjectMember).where(
                ProjectMember.project_id == project.id)) == 2


def test_one_sample_name_is_created_once(server):
    f = server.factories
    owner = f.user()
    token = bearer(server, owner)
    for _ in range(TRIES):
        project = f.project(owner=owner)
        results = at_once([
            lambda p=project: server.request("POST", f"/api/projects/{p.id}/samples", token,
                                             {"sampleName": "isolate-1"})
            for _ in range(4)])
        one_created_rest_conflicts(results)
        with server.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ProjectSample).where(
                ProjectSample.project_id == project.id)) == 1


def test_projects_of_one_name_all_get_their_own_path(server):
    """REST derives the path from the name; one after the other, the same name gets
    ``name``, ``name-2``...; at the same moment it must be the same, not a 500 or a 409."""
    f = server.factories
    owner = f.user()
    token = bearer(server, owner)
    for n in range(TRIES):
        results = at_once([
            lambda n=n: server.request("POST", "/api/projects", token,
                                       {"name": f"Outbreak {n}"})
            for _ in range(4)])
        assert statuses(results) == Counter({201: 4}), results
        with server.engine.connect() as conn:
            paths = conn.scalars(select(Project.path).where(Project.name == f"Outbreak {n}"))
            assert sorted(paths) == sorted([f"outbreak-{n}", *(f"outbreak-{n}-{k}"
                                                               for k in (2, 3, 4))])


CREATE_PROJECT = """mutation($input: CreateProjectInput!) { createProject(input: $input) {
  project { fullPath } errors { message path } } }"""


def graphql_client(server, user) -> Callable[[str, dict], tuple[int, Any]]:
    """POST a GraphQL document with a personal access token; (status, decoded body)."""
    import urllib.error
    import urllib.request

    token = server.factories.access_token(user)
    auth = base64.b64encode(f"{user.email}:{token}".encode()).decode()

    def post(query: str, variables: dict) -> tuple[int, Any]:
        body = json.dumps({"query": query, "variables": variables}).encode()
        req = urllib.request.Request(f"{server.url}/api/graphql", data=body, headers={
            "Authorization": f"Basic {auth}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    return post


def test_graphql_project_path_is_taken_once(server):
    owner = server.factories.user()
    post = graphql_client(server, owner)

    def create(name: str, path: str) -> tuple[int, Any]:
        return post(CREATE_PROJECT, {"input": {"name": name, "path": path}})

    for n in range(TRIES):
        results = at_once([lambda i=i, n=n: create(f"Anthrax {n} take {i}", f"anthrax-{n}")
                           for i in range(4)])
        assert [status for status, _ in results] == [200] * 4, results
        payloads = [body["data"]["createProject"] for _, body in results]
        stored = [p for p in payloads if p["project"] is not None]
        assert len(stored) == 1 and stored[0]["errors"] == [], payloads
        assert stored[0]["project"]["fullPath"] == f"{owner.username}/anthrax-{n}"
        refused = [p["errors"] for p in payloads if p["project"] is None]
        assert refused == [[{"message": "Path has already been taken",
                             "path": ["project", "path"]}]] * 3
        with server.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(Project).where(
                Project.path == f"anthrax-{n}")) == 1


CREATE_SAMPLE = """mutation($input: CreateSampleInput!) { createSample(input: $input) {
  sample { name } errors { message path } } }"""


def test_graphql_sample_name_is_taken_once(server):
    """One sample is stored; every other create is told so (the payload error a later create
    gets, or a GraphQL error with code ``conflict`` when it lost the race to the insert)."""
    f = server.factories
    owner = f.user()
    post = graphql_client(server, owner)
    for _ in range(TRIES):
        project = f.project(owner=owner)
        gid = f"gid://seqcore/Project/{project.id}"
        results = at_once([lambda gid=gid: post(CREATE_SAMPLE, {"input": {
            "projectId": gid, "name": "isolate-1"}}) for _ in range(4)])
        assert [status for status, _ in results] == [200] * 4, results
        stored, refused = 0, 0
        for _, body in results:
            payload = (body.get("data") or {}).get("createSample")
            if payload and payload["sample"] is not None:
                stored += 1
            elif payload and payload["errors"]:
                assert "already exists" in payload["errors"][0]["message"]
                refused += 1
            else:
                assert body["errors"][0]["extensions"]["code"] == "conflict", body
                refused += 1
        assert (stored, refused) == (1, 3), results
        with server.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ProjectSample).where(
                ProjectSample.project_id == project.id)) == 1


def activity_count(server, kind: str, subject: str, subject_id: int) -> int:
    """How many activity records of ``kind`` name ``subject`` ``subject_id`` as changed."""
    from seqcore.models.activity import Activity

    with server.engine.connect() as conn:
        changes = conn.scalars(select(Activity.changes).where(Activity.kind == kind)).all()
    return sum(1 for each in changes for change in (each or [])
               if change.get("on") == subject
               and subject_id in (change.get("ids") or [change.get("id")]))


def test_concurrent_deletes_of_one_file_succeed_once(server):
    """Deleting one sequencing object from several clients at once: one 200, the others
    404, and one activity record, never one per request."""
    f = server.factories
    owner = f.user()
    token = bearer(server, owner)
    sample = f.sample(f.project(owner=owner))
    for _ in range(3):
        obj = f.sequencing_object(sample, kind="unpaired")
        url = f"/api/samples/{sample.id}/unpaired/{obj.id}"
        results = at_once([lambda u=url: server.request("DELETE", u, token)
                           for _ in range(TRIES)])
        assert statuses(results) == Counter({200: 1, 404: TRIES - 1}), results
        assert activity_count(server, "file.delete", "sequencingObject", obj.id) == 1


def test_concurrent_deletes_of_one_export_succeed_once(server):
    from seqcore.models.export import DataExport

    f = server.factories
    owner = f.user()
    token = bearer(server, owner)
    project = f.project(owner=owner)
    f.sample(project)
    for _ in range(3):
        with server.engine.begin() as conn:
            export_id = conn.execute(DataExport.__table__.insert().values(
                project_id=project.id, requester_id=owner.id, name="bundle", state="QUEUED",
                selection={}, attempts=0, created=utcnow()).returning(DataExport.id)).scalar_one()
        results = at_once([lambda e=export_id: server.request("DELETE", f"/api/exports/{e}",
                                                              token)
                           for _ in range(TRIES)])
        assert statuses(results) == Counter({200: 1, 404: TRIES - 1}), results
        assert activity_count(server, "export.delete", "export", export_id) == 1
