"""Transport rules every endpoint obeys: authentication first, verbs, bodies, errors."""

import json

import pytest

from seqcore import __version__
from seqcore.models.user import SystemRole


@pytest.fixture
def admin_headers(factories):
    return factories.headers(factories.user(role=SystemRole.ADMIN))


@pytest.mark.parametrize("path", ["/api", "/api/projects", "/api/projects/999",
                                  "/api/does/not/exist", "/api/users/current"])
def test_401_before_404_without_a_token(testapp, path):
    res = testapp.get(path, status=401)
    assert res.headers["WWW-Authenticate"] == "Bearer"
    assert "Authorization: Bearer" in res.json["message"]


@pytest.mark.parametrize("header", ["Bearer nonsense", "Bearer ", "Basic abc", "Token x"])
def test_bad_authorization_headers(testapp, header):
    res = testapp.get("/api/projects", headers={"Authorization": header}, status=401)
    assert res.json["message"]


def test_unknown_token_names_invalid_token(testapp):
    res = testapp.get("/api/projects", headers={"Authorization": "Bearer nonsense"},
                      status=401)
    assert res.headers["WWW-Authenticate"].startswith('Bearer error="invalid_token"')


def test_unknown_path_with_token_is_json_404(testapp, admin_headers):
    res = testapp.get("/api/nowhere", headers=admin_headers, status=404)
    assert res.json == {"message": "The resource was not found."}


def test_non_numeric_ids_are_404_not_500(testapp, admin_headers):
    testapp.get("/api/projects/abc", headers=admin_headers, status=404)
    testapp.get("/api/projects/99999999999999999999999", headers=admin_headers, status=404)


def test_version(testapp, admin_headers):
    body = testapp.get("/api/version", headers=admin_headers).json
    assert body["version"] == __version__
    assert body["resource"]["version"] == __version__
    parts = [int(p) for p in __version__.split(".")]
    assert parts >= [23, 1]  # the IRIDA uploader refuses anything older


def test_double_slashes_are_collapsed(testapp, admin_headers):
    assert testapp.get("/api//version", headers=admin_headers).json["version"] == __version__
    res = testapp.get("/api//projects", headers=admin_headers)
    assert res.json["resource"]["links"][0]["href"] == "http://localhost/api/projects"


def test_options_with_valid_token(testapp, admin_headers):
    res = testapp.options("/api/projects", headers=admin_headers, status=200)
    assert set(res.headers["Allow"].split(", ")) == {"GET", "HEAD", "POST", "OPTIONS"}
    res = testapp.options("/api/", headers=admin_headers, status=200)
    assert "OPTIONS" in res.headers["Allow"]


def test_options_without_or_with_bad_token_is_401(testapp):
    testapp.options("/api/", status=401)
    testapp.options("/api/", headers={"Authorization": "Bearer expired"}, status=401)


def test_head_works_where_get_does(testapp, factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    res = testapp.head(f"/api/projects/{project.id}", headers=factories.headers(owner))
    assert res.status_int == 200
    assert res.body == b""


def test_405_with_allow(testapp, admin_headers):
    res = testapp.put_json("/api/projects", {}, headers=admin_headers, status=405)
    assert res.json["message"] == "Request method 'PUT' not supported."
    assert set(res.headers["Allow"].split(", ")) >= {"GET", "POST"}
    res = testapp.delete("/api/users", headers=admin_headers, status=405)
    assert "DELETE" not in res.headers["Allow"]


@pytest.mark.parametrize(("body", "message"), [
    ("{name: 'x'}", "Field names must be surrounded by double quotes"),
    ('{"name": "x",}', "could not be parsed for an unknown reason"),
    ("", "could not be parsed for an unknown reason"),
    ('["a list"]', "must be a JSON object"),
    ('"a string"', "must be a JSON object"),
])
def test_malformed_json(testapp, admin_headers, body, message):
    res = testapp.post("/api/projects", body, headers=admin_headers,
                       content_type="application/json", status=400)
    assert message in res.json["message"]


def test_wrong_content_type(testapp, admin_headers):
    res = testapp.post("/api/projects", "name=Project", headers=admin_headers,
                       content_type="application/x-www-form-urlencoded", status=415)
    assert res.json["supported-media-types"] == ["application/json"]


def test_oversized_body(testapp, admin_headers, app_config):
    limit = app_config.get_settings()["seqcore.max_body_bytes"]
    body = json.dumps({"name": "Big project", "projectDescription": "x" * limit})
    res = testapp.post("/api/projects", body, headers=admin_headers,
                       content_type="application/json", status=413)
    assert str(limit) in res.json["message"]


def test_unknown_fields_strict(testapp, admin_headers, db):
    from seqcore.models.project import Project

    res = testapp.post_json("/api/projects", {"name": "Project one", "colour": "blue"},
                            headers=admin_headers, status=400)
    assert "colour" in res.json["message"]
    assert "name" in res.json["acceptable-properties"]
    assert "links" not in res.json["acceptable-properties"]
    assert db.query(Project).count() == 0


def test_unknown_fields_lenient_client_on_post_only(testapp, factories):
    client = factories.client(lenient=True)
    owner = factories.user()
    headers = factories.headers(owner, client=client)
    res = testapp.post_json("/api/projects", {"name": "Project one", "colour": "blue"},
                            headers=headers, status=201)
    assert "colour" not in res.json["resource"]
    url = res.headers["Location"]
    res = testapp.patch_json(url, {"colour": "red"}, headers=headers, status=400)
    assert res.json["message"].startswith("Cannot update resource with supplied properties.")
    assert "projectDescription" in res.json["acceptable-properties"]


def test_links_are_absolute_and_follow_the_host(testapp, admin_headers):
    res = testapp.get("/api", headers=admin_headers,
                      extra_environ={"HTTP_HOST": "seqcore.example.org:8443",
                                     "wsgi.url_scheme": "https"})
    hrefs = {link["rel"]: link["href"] for link in res.json["resource"]["links"]}
    assert hrefs["projects"] == "https://seqcore.example.org:8443/api/projects"
    assert hrefs["self"] == "https://seqcore.example.org:8443/api"


def test_root_links(testapp, admin_headers):
    links = testapp.get("/api", headers=admin_headers).json["resource"]["links"]
    assert [link["rel"] for link in links][:1] == ["self"]
    assert {"projects", "users", "version"} <= {link["rel"] for link in links}
    for link in links:
        testapp.get(link["href"].replace("http://localhost", ""), headers=admin_headers)


def test_six_thousand_metadata_fields_fit_in_one_request(testapp, factories, db):
    """Metadata as labs keep it: 6,000 fields of 200 characters (1.4 MB of JSON, which the
    old 1 MiB limit refused) are written in one PUT."""
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    body = {f"field_{n:04d}": {"value": "v" * 200} for n in range(6000)}
    assert len(json.dumps(body)) > 1_048_576
    testapp.put_json(f"/api/samples/{sample.id}/metadata", body,
                     headers=factories.headers(owner), status=200)
    fields = testapp.get(f"/api/samples/{sample.id}/metadata",
                         headers=factories.headers(owner)).json["resource"]["metadata"]
    assert len(fields) == 6000
