"""Declared metadata fields and templates over REST and GraphQL: who may change them, the
checks a declaration puts on values, and writes above the caller's metadata level."""

from __future__ import annotations

import pytest

from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry
from seqcore.models.user import SystemRole


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def member(factories):
    return factories.user(username="member")


@pytest.fixture
def project(factories, owner, member):
    return factories.project(owner=owner, members=[(member, ProjectRole.USER, "LEVEL_2")])


@pytest.fixture
def sample(factories, project):
    return factories.sample(project, name="S1", metadata={"patient": "Jane", "host": "human"})


def fields_url(project):
    return f"/api/projects/{project.id}/metadataFields"


def declare(testapp, factories, owner, project, **body):
    return testapp.post_json(fields_url(project), body, headers=factories.headers(owner))


def test_owner_declares_reads_changes_and_removes_a_field(testapp, factories, owner, project):
    headers = factories.headers(owner)
    res = declare(testapp, factories, owner, project, name="serovar", type="list",
                  choices=["Typhi", "Enteritidis"], restriction="LEVEL_2")
    assert res.status_int == 201
    field = res.json["resource"]
    assert res.location.endswith(f"/metadataFields/{field['identifier']}")
    assert (field["name"], field["type"], field["choices"], field["restriction"]) == (
        "serovar", "list", ["Typhi", "Enteritidis"], "LEVEL_2")
    listed = testapp.get(fields_url(project), headers=headers).json["resource"]["resources"]
    assert [f["name"] for f in listed] == ["serovar"]
    url = f"{fields_url(project)}/{field['identifier']}"
    changed = testapp.patch_json(url, {"restriction": "LEVEL_3"}, headers=headers).json
    assert changed["resource"]["restriction"] == "LEVEL_3"
    testapp.delete(url, headers=headers)
    testapp.get(url, headers=headers, status=404)


@pytest.mark.parametrize(("body", "key"), [
    ({"name": "x", "type": "colour"}, "type"),
    ({"name": "x", "type": "list"}, "choices"),
    ({"name": "x", "type": "list", "choices": ["a", "a"]}, "choices"),
    ({"name": "x", "choices": ["a"]}, "choices"),
    ({"name": "x", "pattern": "(("}, "pattern"),
    ({"name": "x", "restriction": "LEVEL_5"}, "restriction"),
    ({"name": " x"}, "name"),
    ({"type": "text"}, "name"),
])
def test_bad_declarations_are_400_and_change_nothing(testapp, factories, owner, project, body,
                                                     key):
    res = testapp.post_json(fields_url(project), body, headers=factories.headers(owner),
                            status=400)
    assert key in res.json
    listed = testapp.get(fields_url(project), headers=factories.headers(owner)).json
    assert listed["resource"]["resources"] == []


def test_a_second_field_of_one_name_is_409(testapp, factories, owner, project):
    declare(testapp, factories, owner, project, name="host")
    testapp.post_json(fields_url(project), {"name": "host"}, headers=factories.headers(owner),
                      status=409)


def test_members_read_but_do_not_declare(testapp, factories, member, project):
    headers = factories.headers(member)
    testapp.get(fields_url(project), headers=headers)
    testapp.post_json(fields_url(project), {"name": "x"}, headers=headers, status=403)


def test_a_hidden_field_is_404_to_a_member_below_it(testapp, factories, owner, member,
                                                    project):
    field = declare(testapp, factories, owner, project, name="patient",
                    restriction="LEVEL_3").json["resource"]
    testapp.get(f"{fields_url(project)}/{field['identifier']}",
                headers=factories.headers(member), status=404)


@pytest.mark.parametrize(("kind", "extra", "good", "bad"), [
    ("number", {}, "12.5", "twelve"),
    ("date", {}, "2024-02-29", "2023-02-29"),
    ("list", {"choices": ["Typhi"]}, "Typhi", "typhi"),
    ("text", {"pattern": "ST[0-9]+"}, "ST19", "19"),
])
def test_values_obey_the_declaration(testapp, factories, owner, project, sample, kind, extra,
                                     good, bad, db):
    declare(testapp, factories, owner, project, name="checked", type=kind, **extra)
    url = f"/api/samples/{sample.id}/metadata"
    headers = factories.headers(owner)
    res = testapp.put_json(url, {"checked": {"value": bad}}, headers=headers, status=400)
    assert "checked" in res.json
    assert "checked" not in {e.field for e in db.query(MetadataEntry)}
    testapp.put_json(url, {"checked": {"value": good}}, headers=headers)


def test_a_write_above_the_callers_level_is_403_and_writes_nothing(
        testapp, factories, owner, project, sample, db):
    declare(testapp, factories, owner, project, name="patient", restriction="LEVEL_2")
    uploader = factories.user(SystemRole.SEQUENCER, username="uploader")
    headers = factories.headers(uploader)
    url = f"/api/samples/{sample.id}/metadata"
    testapp.put_json(url, {"patient": {"value": "John"}, "host": {"value": "cow"}},
                     headers=headers, status=403)
    testapp.put_json(url, {"patient": {"value": None}}, headers=headers, status=403)
    assert {(e.field, e.value) for e in db.query(MetadataEntry)} == {
        ("patient", "Jane"), ("host", "human")}
    # A replacement by the uploader keeps what it cannot see.
    res = testapp.post_json(url, {"host": {"value": "cow"}}, headers=headers)
    assert res.json["resource"]["metadata"] == {"host": {"value": "cow", "type": "text"}}
    assert {(e.field, e.value) for e in db.query(MetadataEntry)} == {
        ("patient", "Jane"), ("host", "cow")}


def test_templates(testapp, factories, owner, member, project):
    headers = factories.headers(owner)
    for name, level in (("host", "LEVEL_1"), ("patient", "LEVEL_4"), ("st", "LEVEL_1")):
        declare(testapp, factories, owner, project, name=name, restriction=level)
    url = f"/api/projects/{project.id}/metadataTemplates"
    res = testapp.post_json(url, {"name": "Outbreak", "fields": ["st", "patient", "host"]},
                            headers=headers)
    template = res.json["resource"]
    assert template["fields"] == ["st", "patient", "host"]
    item = f"{url}/{template['identifier']}"
    assert testapp.get(item, headers=factories.headers(member)).json["resource"]["fields"] == [
        "st", "host"]
    testapp.post_json(url, {"name": "Outbreak", "fields": []}, headers=headers, status=409)
    testapp.post_json(url, {"name": "Other", "fields": ["nope"]}, headers=headers, status=400)
    testapp.post_json(url, {"name": "Other", "fields": ["st", "st"]}, headers=headers,
                      status=400)
    testapp.post_json(url, {"name": "X", "fields": []}, headers=factories.headers(member),
                      status=403)
    res = testapp.patch_json(item, {"fields": ["host", "st"]}, headers=headers)
    assert res.json["resource"]["fields"] == ["host", "st"]
    listed = testapp.get(url, headers=headers).json["resource"]["resources"]
    assert [t["name"] for t in listed] == ["Outbreak"]
    testapp.delete(item, headers=headers)
    testapp.get(item, headers=headers, status=404)


def test_graphql_declares_fields_and_templates(graphql, owner, member, project):
    graphql.as_user(owner)
    pid = f"gid://seqcore/Project/{project.id}"
    data = graphql("""mutation($p: ID!) {
        a: createMetadataField(input: {projectId: $p, name: "host"}) {
            metadataField { id name type restriction } errors { message path } }
        b: createMetadataField(input: {projectId: $p, name: "age", type: "number",
                                       restriction: "LEVEL_3"}) {
            metadataField { id } errors { message } }
        c: createMetadataField(input: {projectId: $p, name: "bad", type: "colour"}) {
            metadataField { id } errors { message path } }
    }""", {"p": pid})["data"]
    assert data["a"]["metadataField"]["name"] == "host"
    assert data["c"]["metadataField"] is None and data["c"]["errors"]
    field_id = data["b"]["metadataField"]["id"]
    data = graphql("""mutation($p: ID!, $f: ID!) {
        t: createMetadataTemplate(input: {projectId: $p, name: "T", fields: ["age", "host"]}) {
            metadataTemplate { id name fields } errors { message } }
        u: updateMetadataField(input: {id: $f, restriction: "LEVEL_2"}) {
            metadataField { restriction } errors { message } }
    }""", {"p": pid, "f": field_id})
    assert "errors" not in data, data
    data = data["data"]
    assert data["t"]["metadataTemplate"]["fields"] == ["age", "host"]
    assert data["u"]["errors"] == []
    assert data["u"]["metadataField"]["restriction"] == "LEVEL_2"
    template_id = data["t"]["metadataTemplate"]["id"]
    graphql.as_user(member)
    data = graphql("""mutation($f: ID!, $t: ID!) {
        d: deleteMetadataField(input: {id: $f}) { deletedId errors { message } }
        e: deleteMetadataTemplate(input: {id: $t}) { deletedId errors { message } }
    }""", {"f": field_id, "t": template_id})["data"]
    assert data["d"]["errors"] and data["e"]["errors"]
    data = graphql("""query($p: ID!) { node(id: $p) { ... on Project {
        metadataFields { name } metadataTemplates { name fields } } } }""", {"p": pid})
    assert data["data"]["node"]["metadataTemplates"] == [{"name": "T",
                                                         "fields": ["age", "host"]}]
