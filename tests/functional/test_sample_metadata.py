"""Sample metadata: read, replace, merge, validation, and the project-wide table."""

import pytest

from seqcore.models.sample import MetadataEntry


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner)


@pytest.fixture
def headers(factories, owner):
    return factories.headers(owner)


@pytest.fixture
def sample(factories, project):
    return factories.sample(project, name="S1", metadata={"serovar": "Typhi", "host": "human"})


def url(sample):
    return f"/api/samples/{sample.id}/metadata"


def test_get_metadata(testapp, sample, headers):
    body = testapp.get(url(sample), headers=headers).json["resource"]
    assert body["metadata"] == {"host": {"value": "human", "type": "text"},
                                "serovar": {"value": "Typhi", "type": "text"}}
    assert body["links"] == [
        {"rel": "self", "href": f"http://localhost/api/samples/{sample.id}/metadata"},
        {"rel": "sample", "href": f"http://localhost/api/samples/{sample.id}"}]


def test_post_replaces_everything(testapp, sample, headers):
    res = testapp.post_json(url(sample), {"st": {"value": "ST19", "type": "text"}},
                            headers=headers)
    assert res.json["resource"]["metadata"] == {"st": {"value": "ST19", "type": "text"}}
    assert testapp.get(url(sample), headers=headers).json == res.json


def test_put_merges(testapp, sample, headers):
    res = testapp.put_json(url(sample), {"serovar": {"value": "Enteritidis"},
                                         "st": {"value": 11, "type": "text"},
                                         "host": {"value": None}}, headers=headers)
    assert res.json["resource"]["metadata"] == {
        "serovar": {"value": "Enteritidis", "type": "text"},
        "st": {"value": "11", "type": "text"}}


@pytest.mark.parametrize(("body", "key", "message"), [
    ({"": {"value": "x"}}, "", "must not be empty"),
    ({"   ": {"value": "x"}}, "   ", "must not be empty"),
    ({"k": "bare string"}, "k", "must be an object"),
    ({"k": {"value": {"nested": "x"}}}, "k", "must be strings"),
    ({"k": {"value": ["a"]}}, "k", "must be strings"),
    ({"k": {"value": True}}, "k", "must be strings"),
    ({"k": {"value": "x", "type": "date"}}, "k", "Unknown metadata type 'date'"),
    ({"k": {"value": "x", "colour": "red"}}, "k", "Unknown keys in a metadata entry"),
    ({"k" * 256: {"value": "x"}}, "k" * 256, "at most 255 characters"),
])
@pytest.mark.parametrize("method", ["post_json", "put_json"])
def test_bad_metadata_changes_nothing(testapp, sample, headers, db, body, key, message,
                                      method):
    good_and_bad = {"fine": {"value": "ok"}, **body}
    res = getattr(testapp, method)(url(sample), good_and_bad, headers=headers, status=400)
    assert message in res.json[key][0]
    assert {e.field for e in db.query(MetadataEntry)} == {"serovar", "host"}


def test_metadata_body_must_be_an_object(testapp, sample, headers):
    testapp.post(url(sample), "[1, 2]", headers=headers, content_type="application/json",
                 status=400)
    testapp.post(url(sample), "{oops", headers=headers, content_type="application/json",
                 status=400)


def test_plugin_metadata_types(build_app, factories):
    from tests.plugins import integer_metadata

    app = build_app([integer_metadata])
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    headers = factories.headers(owner)
    res = app.put_json(url(sample), {"count": {"value": "12", "type": "integer"}},
                       headers=headers)
    assert res.json["resource"]["metadata"]["count"] == {"value": "12", "type": "integer"}
    res = app.put_json(url(sample), {"count": {"value": "twelve", "type": "integer"}},
                       headers=headers, status=400)
    assert res.json == {"count": ["'twelve' is not a whole number."]}


def test_project_metadata_table(testapp, factories, project, headers):
    first = factories.sample(project, name="S1", metadata={"serovar": "Typhi"})
    second = factories.sample(project, name="S2")
    factories.sample(factories.project(owner=None), name="elsewhere", metadata={"x": "y"})
    body = testapp.get(f"/api/projects/{project.id}/samples/metadata",
                       headers=headers).json["resource"]
    assert body["links"] == [{"rel": "self", "href":
                              f"http://localhost/api/projects/{project.id}/samples/metadata"}]
    assert [(e["identifier"], e["sampleName"], e["metadata"]) for e in body["resources"]] == [
        (str(first.id), "S1", {"serovar": {"value": "Typhi", "type": "text"}}),
        (str(second.id), "S2", {}),
    ]
    single = testapp.get(url(first), headers=headers).json["resource"]
    # The sample's own answer adds where each value came from (the table stays lean).
    assert single.pop("metadataProvenance")["serovar"]["source"] == "user"
    assert body["resources"][0] == single
