"""A NUL character (``%00``, ``\\u0000``) in a URL, a form, a JSON body or a GraphQL string is
a 400 on every database: PostgreSQL's text cannot hold one, and each used to reach it as a
500 (found by schemathesis against ``/api/oauth/authorize`` on PostgreSQL)."""

import pytest

from seqcore.graphql.ids import to_gid
from seqcore.models.user import SystemRole


@pytest.fixture
def caller(factories):
    admin = factories.user(role=SystemRole.ADMIN)
    return {"admin": admin, "headers": factories.headers(admin),
            "project": factories.project(owner=admin), "client": factories.client()}


@pytest.mark.parametrize("url", [
    "/api/oauth/authorize?client_id=a%00b&response_type=code",
    "/api/users/a%00b",
    "/api/projects/{pid}/samples/bySampleName?sampleName=a%00b",
    "/api/projects/{pid}/samples?search=a%00b",
    "/api/projects/{pid}/users/a%00b",
    "/api/analysisTypes/a%00b",
    "/api/analysisSubmissions/analysisType/a%00b",
    "/users/sign_in?next=%00",
])
def test_in_a_url(testapp, caller, url):
    url = url.format(pid=caller["project"].id)
    testapp.head(url, headers=caller["headers"], status=400)
    res = testapp.get(url, headers=caller["headers"], status=400)
    assert "NUL" in res.text


def test_in_a_form(testapp, caller):
    client = caller["client"]
    forms = [
        ("/api/oauth/token", {"grant_type": "password", "client_id": "a\x00b",
                              "client_secret": "x", "username": "u", "password": "p"}),
        ("/api/oauth/token", {"grant_type": "password", "client_id": client.client_id,
                              "client_secret": "secret", "username": "u\x00", "password": "p"}),
        ("/api/oauth/revoke", {"token": "a\x00b", "client_id": client.client_id,
                               "client_secret": "secret"}),
        ("/api/oauth/introspect", {"token": "a\x00b", "client_id": client.client_id,
                                   "client_secret": "secret"}),
        ("/users/sign_in", {"username": "a\x00b", "password": "x"}),
    ]
    for url, form in forms:
        res = testapp.post(url, form, status=400)
        assert "NUL" in res.text


def test_in_a_json_body(testapp, caller):
    headers, pid = caller["headers"], caller["project"].id
    for url, body in [("/api/projects", {"name": "abc\x00def"}),
                      (f"/api/projects/{pid}/samples", {"sampleName": "ab\x00c"}),
                      (f"/api/projects/{pid}/samples", {"sampleName": "abc", "x\x00": "y"})]:
        res = testapp.post_json(url, body, headers=headers, status=400)
        assert "NUL" in res.json["message"]
    assert testapp.get(f"/api/projects/{pid}/samples", headers=headers).json[
        "resource"]["resources"] == []


def test_in_graphql(testapp, caller, factories):
    headers = factories.graphql_headers(caller["admin"])
    pid = to_gid("seqcore", "Project", caller["project"].id)
    literal = ('mutation { createSample(input: {projectId: "PID", name: "ab\\u0000cd"}) '
               "{ sample { name } } }").replace("PID", pid)
    res = testapp.post_json("/api/graphql", {"query": literal}, headers=headers)
    assert "NUL" in res.json["errors"][0]["message"] and "data" not in res.json
    variable = ('mutation($name: String!) { createSample(input: {projectId: "PID", '
                "name: $name}) { sample { name } } }").replace("PID", pid)
    res = testapp.post_json("/api/graphql", {"query": variable,
                                             "variables": {"name": "ab\x00cd"}},
                            headers=headers, status=400)
    assert "NUL" in res.json["errors"][0]["message"]
