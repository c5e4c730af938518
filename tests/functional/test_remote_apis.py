"""``/api/remoteapis``: administrators register, read, change and delete remote APIs; the
secret is never answered; every other account is refused; bad input is a 400 (a taken name
a 409) that writes nothing."""

import pytest

from seqcore.models.remote import ProjectSync, RemoteApi, RemoteConnection
from seqcore.models.user import SystemRole
from tests.dbstate import snapshot

URL = "/api/remoteapis"
GOOD = {"name": "National lab", "baseUrl": "https://irida.example.org/", "clientId": "seqcore",
        "clientSecret": "s3cret-value", "description": "The national IRIDA"}


@pytest.fixture
def admin_headers(factories):
    return factories.headers(factories.user(role=SystemRole.ADMIN))


def test_register_read_change_and_delete(testapp, db, admin_headers):
    made = testapp.post_json(URL, GOOD, headers=admin_headers, status=201)
    body = made.json["resource"]
    assert made.location == body["links"][0]["href"]
    assert body["name"] == "National lab"
    assert body["baseUrl"] == "https://irida.example.org"  # no trailing slash
    assert (body["kind"], body["graphqlUrl"], body["clientId"]) == ("irida", None, "seqcore")
    assert "s3cret-value" not in made.text and "clientSecret" not in body
    rid = body["identifier"]
    listed = testapp.get(URL, headers=admin_headers).json["resource"]["resources"]
    assert [e["identifier"] for e in listed] == [rid]
    assert "s3cret-value" not in testapp.get(f"{URL}/{rid}", headers=admin_headers).text
    # IRIDA Next needs its GraphQL endpoint; the secret is kept when none is sent.
    refused = testapp.patch_json(f"{URL}/{rid}", {"kind": "irida-next"}, headers=admin_headers,
                                 status=400)
    assert refused.json == {"graphqlUrl": ["An IRIDA Next remote needs its GraphQL endpoint."]}
    changed = testapp.patch_json(f"{URL}/{rid}", {
        "kind": "irida-next", "graphqlUrl": "https://next.example.org/api/graphql",
        "name": "Next"}, headers=admin_headers).json["resource"]
    assert (changed["kind"], changed["graphqlUrl"], changed["name"]) == (
        "irida-next", "https://next.example.org/api/graphql", "Next")
    db.expire_all()
    remote = db.get(RemoteApi, int(rid))
    assert remote.client_secret == "s3cret-value"
    # Back to IRIDA: the GraphQL endpoint goes.
    testapp.patch_json(f"{URL}/{rid}", {"kind": "irida", "clientSecret": "new"},
                       headers=admin_headers)
    db.expire_all()
    assert (remote.kind, remote.graphql_url, remote.client_secret) == ("irida", None, "new")
    testapp.delete(f"{URL}/{rid}", headers=admin_headers, status=200)
    testapp.get(f"{URL}/{rid}", headers=admin_headers, status=404)
    assert db.query(RemoteApi).count() == 0


@pytest.mark.parametrize(("body", "problems"), [
    ({}, {"name", "baseUrl", "clientId", "clientSecret"}),
    ({**GOOD, "baseUrl": "irida.example.org"}, {"baseUrl"}),
    ({**GOOD, "baseUrl": "ftp://irida.example.org"}, {"baseUrl"}),
    ({**GOOD, "baseUrl": "https://user:pw@irida.example.org"}, {"baseUrl"}),
    ({**GOOD, "baseUrl": "https://irida.example.org/?x=1"}, {"baseUrl"}),
    ({**GOOD, "baseUrl": "http://[::1"}, {"baseUrl"}),
    ({**GOOD, "baseUrl": "https://irida.example.org:99999"}, {"baseUrl"}),
    ({**GOOD, "kind": "gitlab"}, {"kind"}),
    ({**GOOD, "kind": "irida-next"}, {"graphqlUrl"}),
    ({**GOOD, "kind": "irida-next", "graphqlUrl": "/api/graphql"}, {"graphqlUrl"}),
    ({**GOOD, "graphqlUrl": "https://irida.example.org/api/graphql"}, {"graphqlUrl"}),
    ({**GOOD, "clientId": "has space"}, {"clientId"}),
    ({**GOOD, "name": "   "}, {"name"}),
    ({**GOOD, "name": 5, "clientSecret": ["x"]}, {"name", "clientSecret"}),
    ({**GOOD, "name": "x" * 256}, {"name"}),
])
def test_bad_input_is_400_and_writes_nothing(testapp, db, admin_headers, body, problems):
    before = snapshot(db)
    res = testapp.post_json(URL, body, headers=admin_headers, status=400)
    assert set(res.json) == problems, res.json
    assert snapshot(db) == before


def test_unknown_fields_and_bad_bodies_are_400(testapp, db, admin_headers):
    res = testapp.post_json(URL, {**GOOD, "secret": "x"}, headers=admin_headers, status=400)
    assert "secret" in res.text
    testapp.post(URL, "not json", headers={**admin_headers, "Content-Type": "application/json"},
                 status=400)
    assert db.query(RemoteApi).count() == 0


def test_a_taken_name_is_409_in_any_letter_case(testapp, db, admin_headers):
    testapp.post_json(URL, GOOD, headers=admin_headers, status=201)
    res = testapp.post_json(URL, {**GOOD, "name": "NATIONAL LAB"}, headers=admin_headers,
                            status=409)
    assert "exists already" in res.json["message"]
    other = testapp.post_json(URL, {**GOOD, "name": "Other"}, headers=admin_headers,
                              status=201).json["resource"]["identifier"]
    testapp.patch_json(f"{URL}/{other}", {"name": "national lab"}, headers=admin_headers,
                       status=409)
    db.expire_all()
    assert sorted(r.name for r in db.query(RemoteApi)) == ["National lab", "Other"]


def test_only_administrators(testapp, db, factories, admin_headers):
    rid = testapp.post_json(URL, GOOD, headers=admin_headers).json["resource"]["identifier"]
    before = snapshot(db)["remote_api"]
    for role in (SystemRole.USER, SystemRole.MANAGER, SystemRole.TECHNICIAN,
                 SystemRole.SEQUENCER):
        headers = factories.headers(factories.user(role=role))
        testapp.get(URL, headers=headers, status=403)
        testapp.post_json(URL, {**GOOD, "name": "Mine"}, headers=headers, status=403)
        testapp.get(f"{URL}/{rid}", headers=headers, status=403)
        testapp.patch_json(f"{URL}/{rid}", {"name": "Mine"}, headers=headers, status=403)
        testapp.delete(f"{URL}/{rid}", headers=headers, status=403)
    testapp.get(URL, status=401)
    # A read-only token reads, but does not write.
    admin = factories.user(role=SystemRole.ADMIN)
    read_only = factories.headers(admin, scopes=["read"])
    testapp.get(URL, headers=read_only, status=200)
    testapp.delete(f"{URL}/{rid}", headers=read_only, status=403)
    assert snapshot(db)["remote_api"] == before


def test_deleting_takes_the_connections_but_not_a_synchronized_projects_remote(
        testapp, db, factories, admin_headers):
    rid = int(testapp.post_json(URL, GOOD, headers=admin_headers).json["resource"]["identifier"])
    user = factories.user()
    project = factories.project(owner=user)
    db.add(RemoteConnection(remote_api_id=rid, user_id=user.id, access_token="a"))
    db.add(ProjectSync(project_id=project.id, remote_api_id=rid, user_id=user.id,
                       remote_url="https://irida.example.org/api/projects/1"))
    db.commit()
    res = testapp.delete(f"{URL}/{rid}", headers=admin_headers, status=409)
    assert "1 synchronized project(s)" in res.json["message"]
    db.query(ProjectSync).delete()
    db.commit()
    testapp.delete(f"{URL}/{rid}", headers=admin_headers, status=200)
    db.expire_all()
    assert db.query(RemoteConnection).count() == 0
