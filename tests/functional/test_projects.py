"""``/api/projects``: projects and their members."""

import pytest

from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.user import SystemRole

FORBIDDEN = '?()[]/\\=+<>:;",*^|&'


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner, name="Salmonella survey")


def test_create_project_makes_caller_owner(testapp, factories, owner, db):
    headers = factories.headers(owner)
    res = testapp.post_json("/api/projects", {"name": "Listeria 2026",
                                              "projectDescription": "outbreak",
                                              "organism": "Listeria", "genomeSize": 3000000},
                            headers=headers, status=201)
    body = res.json["resource"]
    assert res.headers["Location"] == f"http://localhost/api/projects/{body['identifier']}"
    assert body["label"] == body["name"] == "Listeria 2026"
    assert body["genomeSize"] == 3000000
    assert body["modifiedDate"] is None
    assert body["createdDate"] % 1000 == 0
    assert {link["rel"] for link in body["links"]} == {
        "self", "project/users", "project/samples", "project/analyses", "project/hash",
        "project/ncbiSubmissions", "project/exports"}
    assert testapp.get(res.headers["Location"], headers=headers).json["resource"] == body
    member = db.query(ProjectMember).one()
    assert (member.user_id, member.role) == (owner.id, "PROJECT_OWNER")


@pytest.mark.parametrize(("body", "errors"), [
    ({}, {"name": ["You must provide a project name."]}),
    ({"name": None}, {"name": ["You must provide a project name."]}),
    ({"name": "abcd"}, {"name": ["Project name must be at least 5 characters long."]}),
    ({"name": 12345}, {"name": ["Not a valid string."]}),
    ({"name": "Valid name", "genomeSize": 0}, {"genomeSize": ["Genome size must be at least 1."]}),
    ({"name": "Valid name", "minimumCoverage": 0},
     {"minimumCoverage": ["Minimum coverage must be at least 1."]}),
    ({"name": "Valid name", "minimumCoverage": 50, "maximumCoverage": 10},
     {"maximumCoverage": ["Maximum coverage must not be less than minimum coverage."]}),
    ({"name": "Valid name", "remoteURL": "not a url"},
     {"remoteURL": ["The remote URL must be a valid URL."]}),
    ({"name": "Valid name", "syncFrequency": "HOURLY"},
     {"syncFrequency": ["Must be one of: NEVER, DAILY, WEEKLY, MONTHLY, SEMIMONTHLY, QUARTERLY."]}),
])
def test_project_validation(testapp, factories, owner, db, body, errors):
    res = testapp.post_json("/api/projects", body, headers=factories.headers(owner),
                            status=400)
    assert res.json == errors
    assert db.query(Project).count() == 0


@pytest.mark.parametrize("char", list(FORBIDDEN))
def test_each_forbidden_character(testapp, factories, owner, char):
    res = testapp.post_json("/api/projects", {"name": f"Bad{char}name"},
                            headers=factories.headers(owner), status=400)
    assert res.json["name"] == [
        f"The name you have supplied contains a '{char}' character. Names must NOT include "
        "the space character and the following: ? ( ) [ ] / \\ = + < > : ; \" ' , * ^ | & ."]


def test_one_message_per_forbidden_character(testapp, factories, owner):
    res = testapp.post_json("/api/projects", {"name": "a?b?c:d<e"},
                            headers=factories.headers(owner), status=400)
    assert [m.split("'")[1] for m in res.json["name"]] == ["?", ":", "<"]


def test_spaces_and_periods_are_allowed_in_project_names(testapp, factories, owner):
    testapp.post_json("/api/projects", {"name": "St. John's survey"},
                      headers=factories.headers(owner), status=201)


def test_sequencer_cannot_create_projects(testapp, factories):
    testapp.post_json("/api/projects", {"name": "Uploads only"},
                      headers=factories.headers(factories.user(role=SystemRole.SEQUENCER)),
                      status=403)


def test_listing_shows_readable_projects_only(testapp, factories, owner, project):
    other = factories.user()
    theirs = factories.project(owner=other)
    shared = factories.project(owner=other, members=[(owner, ProjectRole.USER)])

    def ids(user):
        res = testapp.get("/api/projects", headers=factories.headers(user))
        return [int(p["identifier"]) for p in res.json["resource"]["resources"]]

    assert ids(owner) == [project.id, shared.id]
    assert ids(factories.user(role=SystemRole.ADMIN)) == [project.id, theirs.id, shared.id]
    assert ids(factories.user(role=SystemRole.SEQUENCER)) == [project.id, theirs.id, shared.id]
    assert ids(factories.user()) == []


def test_project_entry_in_listing_equals_get(testapp, factories, owner, project):
    headers = factories.headers(owner)
    listed = testapp.get("/api/projects", headers=headers).json["resource"]["resources"][0]
    assert listed == testapp.get(f"/api/projects/{project.id}", headers=headers).json[
        "resource"]


def test_non_members_see_nothing(testapp, factories, project):
    headers = factories.headers(factories.user())
    for path in ("", "/users", "/samples", "/analyses", "/users/owner"):
        testapp.get(f"/api/projects/{project.id}{path}", headers=headers, status=404)
    testapp.patch_json(f"/api/projects/{project.id}", {"name": "Hijacked"}, headers=headers,
                       status=404)
    testapp.delete(f"/api/projects/{project.id}", headers=headers, status=404)


def test_project_users_are_read_only(testapp, factories, project, db):
    member = factories.user()
    db_member = ProjectMember(project_id=project.id, user_id=member.id, role="PROJECT_USER")
    db.add(db_member)
    db.commit()
    headers = factories.headers(member)
    testapp.get(f"/api/projects/{project.id}", headers=headers, status=200)
    testapp.get(f"/api/projects/{project.id}/samples", headers=headers, status=200)
    res = testapp.patch_json(f"/api/projects/{project.id}", {"name": "Renamed project"},
                             headers=headers, status=403)
    assert res.json == {"message": "You are not allowed to do this."}
    testapp.delete(f"/api/projects/{project.id}", headers=headers, status=403)
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": member.username},
                      headers=headers, status=403)


def test_patch_project(testapp, factories, owner, project):
    headers = factories.headers(owner)
    res = testapp.patch_json(f"/api/projects/{project.id}",
                             {"name": "Renamed project", "projectDescription": "new"},
                             headers=headers)
    assert res.json["resource"]["links"] == [
        {"rel": "self", "href": f"http://localhost/api/projects/{project.id}"},
        {"rel": "collection", "href": "http://localhost/api/projects"}]
    body = testapp.get(f"/api/projects/{project.id}", headers=headers).json["resource"]
    assert (body["name"], body["projectDescription"]) == ("Renamed project", "new")
    assert body["modifiedDate"] >= body["createdDate"]
    res = testapp.patch_json(f"/api/projects/{project.id}", {"name": "bad"}, headers=headers,
                             status=400)
    assert res.json == {"name": ["Project name must be at least 5 characters long."]}
    res = testapp.patch_json(f"/api/projects/{project.id}", {"name": None}, headers=headers,
                             status=400)
    assert res.json == {"name": ["You must provide a project name."]}


def test_delete_project(testapp, factories, owner, project, db):
    headers = factories.headers(owner)
    res = testapp.delete(f"/api/projects/{project.id}", headers=headers)
    assert res.json["resource"]["links"] == [
        {"rel": "collection", "href": "http://localhost/api/projects"}]
    testapp.get(f"/api/projects/{project.id}", headers=headers, status=404)
    assert db.query(ProjectMember).count() == 0


def test_members_listing_and_links(testapp, factories, owner, project):
    res = testapp.get(f"/api/projects/{project.id}/users", headers=factories.headers(owner))
    (entry,) = res.json["resource"]["resources"]
    assert entry["username"] == "owner"
    assert entry["links"] == [
        {"rel": "self", "href": "http://localhost/api/users/owner"},
        {"rel": "user/projects", "href": "http://localhost/api/users/owner/projects"},
        {"rel": "relationship",
         "href": f"http://localhost/api/projects/{project.id}/users/owner"},
    ]


def test_add_member(testapp, factories, owner, project):
    factories.user(username="carol")
    headers = factories.headers(owner)
    res = testapp.post_json(f"/api/projects/{project.id}/users",
                            {"userId": "carol", "role": "PROJECT_USER"}, headers=headers,
                            status=201)
    location = f"http://localhost/api/projects/{project.id}/users/carol"
    assert res.headers["Location"] == location
    body = res.json["resource"]
    assert body["label"] == "Salmonella survey"
    assert body["resource"]["projectRole"] == "PROJECT_USER"
    assert body["resource"]["metadataRole"] == "LEVEL_1"
    assert body["resource"]["subject"]["name"] == "Salmonella survey"
    assert body["resource"]["object"]["username"] == "carol"
    assert {link["rel"]: link["href"] for link in body["links"]} == {
        "self": "http://localhost/api/users/carol",
        "relationship": location,
        "project/users": f"http://localhost/api/projects/{project.id}/users",
        "project": f"http://localhost/api/projects/{project.id}",
    }
    assert testapp.get(location, headers=headers).json == res.json
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": "carol"},
                      headers=headers, status=409)


def test_owner_members_get_level_4_metadata_role(testapp, factories, owner, project):
    factories.user(username="dave")
    res = testapp.post_json(f"/api/projects/{project.id}/users",
                            {"userId": "dave", "role": "PROJECT_OWNER"},
                            headers=factories.headers(owner), status=201)
    assert res.json["resource"]["resource"]["metadataRole"] == "LEVEL_4"


@pytest.mark.parametrize(("body", "field"), [
    ({}, "userId"),
    ({"userId": "ghost"}, "userId"),
    ({"userId": "owner", "role": "PROJECT_KING"}, "role"),
    ({"userId": "owner", "metadataRole": "LEVEL_9"}, "metadataRole"),
])
def test_add_member_validation(testapp, factories, owner, project, body, field):
    res = testapp.post_json(f"/api/projects/{project.id}/users", body,
                            headers=factories.headers(owner), status=400)
    assert list(res.json) == [field]


def test_remove_member_and_last_owner(testapp, factories, owner, project, db):
    carol = factories.user(username="carol")
    db.add(ProjectMember(project_id=project.id, user_id=carol.id, role="PROJECT_USER"))
    db.commit()
    headers = factories.headers(owner)
    res = testapp.delete(f"/api/projects/{project.id}/users/carol", headers=headers)
    assert [link["rel"] for link in res.json["resource"]["links"]] == ["project/users",
                                                                        "project"]
    testapp.get(f"/api/projects/{project.id}/users/carol", headers=headers, status=404)
    res = testapp.delete(f"/api/projects/{project.id}/users/owner", headers=headers,
                         status=400)
    assert "at least one owner" in res.json["message"]
    assert db.query(ProjectMember).filter_by(project_id=project.id).count() == 1


def test_samples_and_analyses_links_resolve(testapp, factories, owner, project):
    headers = factories.headers(owner)
    body = testapp.get(f"/api/projects/{project.id}", headers=headers).json["resource"]
    links = {link["rel"]: link["href"] for link in body["links"]}
    for rel in ("project/samples", "project/analyses", "project/users"):
        res = testapp.get(links[rel].replace("http://localhost", ""), headers=headers)
        assert "resources" in res.json["resource"]


def test_project_analyses_link_back_to_the_project(testapp, factories, owner, project):
    """The spec's (and IRIDA's) ``project`` link on the collection of shared analyses."""
    headers = factories.headers(owner)
    body = testapp.get(f"/api/projects/{project.id}/analyses", headers=headers).json
    assert body["resource"]["links"] == [
        {"rel": "self", "href": f"http://localhost/api/projects/{project.id}/analyses"},
        {"rel": "project", "href": f"http://localhost/api/projects/{project.id}"},
    ]
    assert body["resource"]["resources"] == []
