"""Malformed framing is a 400 on every kind of endpoint, before anything reads it."""

import pytest

BAD_UTF8 = "%ED%A0%80"  # a lone surrogate, percent-encoded: not UTF-8


def message(res):
    """The refusal's message in the path's shape: REST, GraphQL or a web page."""
    if res.content_type == "text/plain":
        return res.text
    if "errors" in res.json:
        return res.json["errors"][0]["message"]
    return res.json["message"]


@pytest.fixture
def headers(factories):
    return factories.headers(factories.user(username="framing"))


@pytest.mark.parametrize("path", [
    f"/api/samples/{BAD_UTF8}",
    f"/api/samples/{BAD_UTF8}/sequenceFiles/pairs",
    f"/api/projects/1/{BAD_UTF8}",
    f"/users/{BAD_UTF8}",
])
def test_a_path_that_is_not_utf8(testapp, headers, path):
    res = testapp.get(path, headers=headers, status=400)
    assert message(res).startswith("The URL is not valid UTF-8")


@pytest.mark.parametrize("path", [
    "/api/projects", "/api/projects/1/samples", "/api/projects/1/samples/bySampleName",
    "/users/sign_in",
])
def test_a_query_string_that_is_not_utf8(testapp, headers, path):
    res = testapp.get(f"{path}?sampleName={BAD_UTF8}", headers=headers, status=400)
    assert message(res).startswith("The URL is not valid UTF-8")


@pytest.mark.parametrize("path", ["/api/projects", "/api/oauth/token", "/users/sign_in",
                                  "/api/oauth/authorize", "/api/graphql"])
@pytest.mark.parametrize("content_type", [
    "application/json; charset=bogus",
    "application/x-www-form-urlencoded; charset=bogus",
])
def test_an_unknown_charset(testapp, headers, db, path, content_type):
    from sqlalchemy import func, select

    from seqcore.models.project import Project

    res = testapp.post(path, b'{"name": "framed"}', headers={**headers,
                       "Content-Type": content_type}, status=400)
    assert message(res) == "The charset 'bogus' of your request is not supported; send UTF-8."
    assert db.scalar(select(func.count()).select_from(Project)) == 0


@pytest.mark.parametrize("path", ["/api/oauth/authorize", "/users/sign_in",
                                  "/-/profile/personal_access_tokens",
                                  "/api/samples/1/pairs", "/api/graphql"])
@pytest.mark.parametrize("boundary", ["", "é", "x" * 201, "ends-in-space ", "tab\there"])
def test_an_invalid_multipart_boundary(testapp, headers, path, boundary):
    body = f"--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n" \
           f"--{boundary}--\r\n".encode()
    content_type = f'multipart/form-data; boundary="{boundary}"'.encode().decode("latin-1")
    res = testapp.post(path, body, headers={**headers, "Content-Type": content_type},
                       status=400)
    assert message(res).startswith("The multipart boundary is missing or invalid")


def test_well_formed_requests_pass(testapp, headers):
    testapp.get("/api/projects?limit=1", headers=headers, status=200)
    testapp.post_json("/api/projects", {"name": "well formed"},
                      headers={**headers, "Content-Type": "application/json; charset=UTF-8"},
                      status=201)


@pytest.mark.parametrize("path", ["/api/oauth/authorize", "/users/sign_in", "/api/oauth/token"])
def test_a_form_part_with_an_unknown_charset(testapp, headers, path):
    body = (b'--b\r\nContent-Disposition: form-data; name="username"\r\n'
            b"Content-Type: text/plain; charset=bogus\r\n\r\nx\r\n--b--\r\n")
    res = testapp.post(path, body, headers={**headers,
                       "Content-Type": "multipart/form-data; boundary=b"}, status=400)
    assert message(res) == "The form body could not be parsed."
