"""Archived projects over REST, GraphQL and the web: every write is refused (naming the
archive) for everyone, administrators included; the project is left out of default
listings but listed on request and still read by id; unarchiving restores writes."""

import json

import pytest

from seqcore.models.group import AccessLevel
from seqcore.models.project import Project, ProjectRole
from seqcore.models.user import SystemRole
from tests.dbstate import snapshot
from tests.web.test_workbench import sign_in

ARCHIVE = """mutation($input: ArchiveProjectInput!) { archiveProject(input: $input) {
  project { puid archived archivedAt } errors { message path } } }"""
UNARCHIVE = """mutation($input: UnarchiveProjectInput!) { unarchiveProject(input: $input) {
  project { puid archived archivedAt } errors { message path } } }"""


def gid(kind, pk):
    return f"gid://seqcore/{kind}/{pk}"


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    maint = factories.user(username="maint")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    lab = factories.group(owner, name="Lab", path="lab",
                          members=[(maint, AccessLevel.MAINTAINER)])
    project = factories.project(owner=owner, name="Old study", path="old-study", group=lab,
                                members=[(member, ProjectRole.USER)])
    other = factories.project(owner=owner, name="Live study", path="live-study", group=lab)
    sample = factories.sample(project, name="S1", metadata={"host": "human"})
    shared_in = factories.sample(other, name="S2", also_in=[project])
    return dict(owner=owner, member=member, maint=maint, admin=admin, lab=lab,
                project=project, other=other, sample=sample, shared_in=shared_in)


def archive(testapp, factories, world):
    return testapp.post(f"/api/projects/{world['project'].id}/archive",
                        headers=factories.headers(world["owner"])).json["resource"]


def test_owner_archives_and_unarchives_over_rest(testapp, factories, db, world):
    project = world["project"]
    headers = factories.headers(world["owner"])
    state = testapp.get(f"/api/projects/{project.id}/archive", headers=headers).json
    assert state["resource"]["archived"] is False
    # A malformed body is refused and archives nothing.
    testapp.post(f"/api/projects/{project.id}/archive", "{", headers={
        **headers, "Content-Type": "application/json"}, status=400)
    db.expire_all()
    assert db.get(Project, project.id).archived_at is None
    state = archive(testapp, factories, world)
    assert state["archived"] is True and isinstance(state["archivedDate"], int)
    db.expire_all()
    assert db.get(Project, project.id).archived_at is not None
    testapp.post(f"/api/projects/{project.id}/archive", headers=headers, status=403)
    testapp.delete(f"/api/projects/{project.id}/archive", headers=headers)
    assert testapp.get(f"/api/projects/{project.id}/archive",
                       headers=headers).json["resource"]["archived"] is False
    assert "not archived" in testapp.delete(f"/api/projects/{project.id}/archive",
                                            headers=headers, status=409).json["message"]
    # writable again
    testapp.patch_json(f"/api/projects/{project.id}", {"name": "Old study again"},
                       headers=headers)


def test_only_owners_archive_and_unarchive(testapp, factories, graphql, world):
    project = world["project"]
    for who in ("member", "maint"):
        headers = factories.headers(world[who])
        testapp.post(f"/api/projects/{project.id}/archive", headers=headers, status=403)
    archive(testapp, factories, world)
    for who in ("member", "maint"):
        message = testapp.delete(f"/api/projects/{project.id}/archive",
                                 headers=factories.headers(world[who]), status=403).json
        assert "owner" in message["message"]
    payload = graphql.as_user(world["maint"])(UNARCHIVE, {"input": {
        "projectPuid": project.puid}})["data"]["unarchiveProject"]
    assert payload["project"] is None and "owner" in payload["errors"][0]["message"]
    # administrators may
    testapp.delete(f"/api/projects/{project.id}/archive",
                   headers=factories.headers(world["admin"]))


def test_graphql_archive_and_unarchive(graphql, world):
    project = world["project"]
    client = graphql.as_user(world["owner"])
    payload = client(ARCHIVE, {"input": {"projectId": gid("Project", project.id)}})
    payload = payload["data"]["archiveProject"]
    assert payload["errors"] == [] and payload["project"]["archived"] is True
    assert payload["project"]["archivedAt"]
    again = client(ARCHIVE, {"input": {"projectPuid": project.puid}})["data"]["archiveProject"]
    assert "archived" in again["errors"][0]["message"]
    back = client(UNARCHIVE, {"input": {"projectPuid": project.puid}})["data"]
    assert back["unarchiveProject"]["project"] == {"puid": project.puid, "archived": False,
                                                   "archivedAt": None}


def rest_writes(world):
    """(method, url, body) of writes to the project and the samples it owns."""
    p, s = world["project"].id, world["sample"].id
    return [
        ("patch_json", f"/api/projects/{p}", {"name": "Renamed"}),
        ("delete", f"/api/projects/{p}", None),
        ("post_json", f"/api/projects/{p}/samples", {"sampleName": "S9"}),
        ("delete", f"/api/projects/{p}/samples/{s}", None),
        ("patch_json", f"/api/samples/{s}", {"strain": "ST1"}),
        ("put_json", f"/api/samples/{s}/metadata", {"host": {"value": "cow"}}),
        ("post_json", f"/api/projects/{p}/users", {"userId": "maint"}),
        ("delete", f"/api/projects/{p}/users/member", None),
        ("post_json", f"/api/projects/{p}/shares",
         {"groupId": world["lab"].id, "accessLevel": "GUEST"}),
        ("post_json", f"/api/projects/{p}/metadataFields", {"name": "age", "type": "number"}),
        ("post_json", f"/api/projects/{p}/transfer", {"groupId": None}),
    ]


@pytest.mark.parametrize("who", ["owner", "admin"])
def test_every_rest_write_is_refused_naming_the_archive(testapp, factories, db, world, who):
    archive(testapp, factories, world)
    headers = factories.headers(world[who])
    before = snapshot(db)
    for method, url, body in rest_writes(world):
        call = getattr(testapp, method)
        args = (url, body) if body is not None else (url,)
        answer = call(*args, headers=headers, status=403).json
        assert "archived" in answer["message"] and "Old study" in answer["message"], (
            method, url, answer)
    # sharing samples into it
    answer = testapp.post(f"/api/projects/{world['project'].id}/samples",
                          json.dumps([world["shared_in"].id]), headers=headers,
                          content_type="application/idcollection+json", status=403).json
    assert "archived" in answer["message"]
    assert snapshot(db) == before
    # What it holds shared from a live project stays writable there.
    testapp.patch_json(f"/api/samples/{world['shared_in'].id}", {"strain": "ST2"},
                       headers=headers)


def test_every_graphql_write_is_refused_naming_the_archive(graphql, testapp, factories, db,
                                                           world):
    archive(testapp, factories, world)
    project, sample = world["project"], world["sample"]
    client = graphql.as_user(world["owner"])
    before = snapshot(db)
    writes = [
        ("createSample", """mutation($p: ID!) { createSample(input: {projectId: $p,
            name: "S9"}) { errors { message } } }""", {"p": gid("Project", project.id)}),
        ("updateSampleMetadata", """mutation($s: ID!) { updateSampleMetadata(input: {
            sampleId: $s, metadata: {host: "cow"}}) { errors { message } } }""",
         {"s": gid("Sample", sample.id)}),
        ("bulkUpdateSampleMetadata", """mutation($p: ID!) { bulkUpdateSampleMetadata(input: {
            projectId: $p, metadata: {S1: {host: "cow"}}}) { errors { message } } }""",
         {"p": gid("Project", project.id)}),
        ("createMetadataField", """mutation($p: ID!) { createMetadataField(input: {
            projectId: $p, name: "age", type: "number"}) { errors { message } } }""",
         {"p": gid("Project", project.id)}),
        ("transferSamples", """mutation($a: ID!, $b: ID!, $s: [ID!]!) { transferSamples(
            input: {projectId: $a, newProjectId: $b, sampleIds: $s}) { errors { message } } }""",
         {"a": gid("Project", project.id), "b": gid("Project", world["other"].id),
          "s": [gid("Sample", sample.id)]}),
        ("copySamples", """mutation($a: ID!, $b: ID!, $s: [ID!]!) { copySamples(
            input: {projectId: $a, newProjectId: $b, sampleIds: $s}) { errors { message } } }""",
         {"a": gid("Project", world["other"].id), "b": gid("Project", project.id),
          "s": [gid("Sample", world["shared_in"].id)]}),
        ("transferProject", """mutation($p: ID!, $n: ID!) { transferProject(input: {
            projectId: $p, namespaceId: $n}) { errors { message } } }""",
         {"p": gid("Project", project.id), "n": gid("User", world["owner"].id)}),
        ("archiveProject", """mutation($p: ID!) { archiveProject(input: {projectId: $p}) {
            errors { message } } }""", {"p": gid("Project", project.id)}),
    ]
    for name, document, variables in writes:
        body = client(document, variables)
        assert "errors" not in body, (name, body)
        messages = " ".join(e["message"] for e in body["data"][name]["errors"])
        assert "archived" in messages, (name, messages)
    assert snapshot(db) == before


def test_archived_projects_leave_default_listings_but_stay_readable(testapp, factories,
                                                                    graphql, world):
    archive(testapp, factories, world)
    project = world["project"]
    headers = factories.headers(world["member"])

    def names(url):
        return [r["name"] for r in testapp.get(url, headers=headers).json["resource"][
            "resources"]]

    assert "Old study" not in names("/api/projects")
    assert names("/api/projects?archived=true") == ["Old study"]
    testapp.get("/api/projects?archived=maybe", headers=headers, status=400)
    assert names(f"/api/users/{world['member'].id}/projects") == []
    owner = factories.headers(world["owner"])
    group_list = testapp.get(f"/api/groups/{world['lab'].id}/projects", headers=owner).json
    assert [r["name"] for r in group_list["resource"]["resources"]] == ["Live study"]
    # still read by id, its samples too
    assert testapp.get(f"/api/projects/{project.id}", headers=headers).json[
        "resource"]["name"] == "Old study"
    testapp.get(f"/api/samples/{world['sample'].id}/metadata", headers=headers)
    client = graphql.as_user(world["member"])
    listed = client("{ projects { nodes { name archived } } }")["data"]["projects"]["nodes"]
    assert listed == []
    listed = client("{ projects(archived: true) { nodes { name archived } } }")["data"]
    assert listed["projects"]["nodes"] == [{"name": "Old study", "archived": True}]
    found = client("query($p: ID!) { project(puid: $p) { name archived samples { nodes "
                   "{ name } } } }", {"p": project.puid})["data"]["project"]
    assert (found["name"], found["archived"]) == ("Old study", True)
    assert sorted(n["name"] for n in found["samples"]["nodes"]) == ["S1", "S2"]
    group = graphql.as_user(world["owner"])(
        "{ group(fullPath: \"lab\") { projects { nodes { name } } } }")["data"]["group"]
    assert group["projects"]["nodes"] == [{"name": "Live study"}]


def test_web_refuses_writes_hides_and_unarchives(testapp, factories, db, world):
    project = world["project"]
    sign_in(testapp, world["owner"])
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form = next(f for f in manage.forms.values()
                if f.action.endswith(f"/-/projects/{project.id}/manage/archive"))
    form.submit(status=303)
    db.expire_all()
    assert db.get(Project, project.id).archived_at is not None
    assert "Old study" not in testapp.get("/-/projects").text
    assert "Old study" in testapp.get("/-/projects?archived=1").text
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    token = manage.forms[0]["csrf_token"].value
    refused = testapp.post(f"/-/projects/{project.id}/manage/members",
                           {"csrf_token": token, "username": "maint",
                            "role": ProjectRole.USER.value, "metadata_role": "LEVEL_1"},
                           status=403)
    assert "archived" in refused.text
    testapp.post(f"/-/projects/{project.id}/manage/archive", {"csrf_token": token},
                 status=403)
    testapp.post(f"/-/projects/{project.id}/manage/unarchive", {}, status=400)  # no CSRF
    form = next(f for f in manage.forms.values()
                if f.action.endswith(f"/-/projects/{project.id}/manage/unarchive"))
    form.submit(status=303)
    db.expire_all()
    assert db.get(Project, project.id).archived_at is None
    testapp.post(f"/-/projects/{project.id}/manage/members",
                 {"csrf_token": token, "username": "maint", "role": ProjectRole.USER.value,
                  "metadata_role": "LEVEL_1"}, status=303)
