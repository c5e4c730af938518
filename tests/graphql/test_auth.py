"""Authentication of /api/graphql: personal access tokens over HTTP Basic, or the session."""

import base64
from datetime import timedelta

import pytest
from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.oauth import digest

QUERY = {"query": "{ currentUser { email } }"}


def basic(email, token):
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{token}".encode()).decode()}


def post(testapp, headers, status, body=QUERY):
    return testapp.post_json("/api/graphql", body, headers=headers, status=status).json


def test_no_credentials_is_401_in_graphql_shape(testapp):
    response = testapp.post_json("/api/graphql", QUERY, status=401)
    assert response.headers["WWW-Authenticate"] == 'Basic realm="seqcore GraphQL"'
    assert list(response.json) == ["errors"]
    assert response.json["errors"][0]["message"].startswith("Authentication is required")
    assert response.json["errors"][0]["extensions"] == {"code": "unauthenticated"}


@pytest.mark.parametrize("header", [
    "Bearer abc", "Basic !!!notbase64", "Basic " + base64.b64encode(b"no-colon").decode(),
    "Basic", "Digest x"])
def test_malformed_credentials_are_401(testapp, header):
    body = post(testapp, {"Authorization": header}, 401)
    assert "Basic" in body["errors"][0]["message"]


def test_a_rest_bearer_token_is_not_a_graphql_credential(testapp, factories):
    user = factories.user()
    post(testapp, factories.headers(user), 401)


def test_token_works_with_its_owner_email_only(testapp, factories):
    user = factories.user()
    other = factories.user()
    token = factories.access_token(user)
    assert post(testapp, basic(user.email, token), 200) == {
        "data": {"currentUser": {"email": user.email}}}
    assert post(testapp, basic(user.email.upper(), token), 200)["data"]
    body = post(testapp, basic(other.email, token), 401)
    assert body["errors"][0]["message"] == ("The e-mail address or personal access token is "
                                            "not valid.")
    post(testapp, basic(user.email, token + "x"), 401)


def test_expired_and_revoked_tokens(testapp, factories):
    user = factories.user()
    expired = factories.access_token(user, expires_at=utcnow() - timedelta(seconds=1))
    revoked = factories.access_token(user, revoked=True)
    later = factories.access_token(user, expires_at=utcnow() + timedelta(days=1))
    assert post(testapp, basic(user.email, expired), 401)["errors"][0]["message"] == (
        "The personal access token has expired.")
    assert post(testapp, basic(user.email, revoked), 401)["errors"][0]["message"] == (
        "The personal access token has been revoked.")
    post(testapp, basic(user.email, later), 200)


def test_disabled_accounts_cannot_use_their_tokens(testapp, factories):
    user = factories.user(enabled=False)
    token = factories.access_token(user)
    assert post(testapp, basic(user.email, token), 401)["errors"][0]["message"] == (
        "The account is disabled.")


def test_last_used_time_is_recorded(testapp, factories, db):
    user = factories.user()
    token = factories.access_token(user)
    record = db.scalar(select(PersonalAccessToken).where(
        PersonalAccessToken.token_hash == digest(token)))
    assert record.last_used_at is None
    post(testapp, basic(user.email, token), 200)
    db.expire_all()
    record = db.get(PersonalAccessToken, record.id)
    assert record.last_used_at is not None
    assert utcnow() - record.last_used_at < timedelta(minutes=1)


def test_tokens_are_stored_hashed(factories, db):
    user = factories.user()
    token = factories.access_token(user)
    stored = db.scalars(select(PersonalAccessToken.token_hash)).all()
    assert stored == [digest(token)]
    assert token not in stored


def test_read_api_tokens_query(testapp, factories):
    user = factories.user()
    token = factories.access_token(user, scopes=("read_api",))
    assert post(testapp, basic(user.email, token), 200)["data"]["currentUser"]


def test_get_queries(testapp, factories):
    user = factories.user()
    response = testapp.get("/api/graphql", {"query": "{ currentUser { email } }"},
                           headers=factories.graphql_headers(user))
    assert response.json == {"data": {"currentUser": {"email": user.email}}}


@pytest.mark.parametrize(("body", "content_type", "status", "message"), [
    ("{", "application/json", 400, "The body must be JSON"),
    ("[1]", "application/json", 400, "The body must be a JSON object"),
    ('{"query": ""}', "application/json", 400, "No query string was present"),
    ('{"query": "{ currentUser { email } }", "variables": "[1]"}', "application/json", 400,
     "'variables' must be a JSON object."),
    ("{ currentUser { email } }", "application/graphql", 200, None),
])
def test_request_bodies(testapp, factories, body, content_type, status, message):
    headers = {**factories.graphql_headers(factories.user()), "Content-Type": content_type}
    response = testapp.post("/api/graphql", body, headers=headers, status=status)
    if message:
        assert response.json["errors"][0]["message"].startswith(message)


def test_other_methods_are_405(testapp, factories):
    response = testapp.put("/api/graphql", "{}", headers=factories.graphql_headers(
        factories.user()), status=405)
    assert response.headers["Allow"] == "GET, POST"


def test_the_session_authenticates_with_its_csrf_token(testapp, factories):
    user = factories.user()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)
    # Without the CSRF token a session-authenticated POST is refused...
    body = testapp.post_json("/api/graphql", QUERY, status=403).json
    assert "X-CSRF-Token" in body["errors"][0]["message"]
    # ...with it, the session may query and mutate.
    token = testapp.get("/graphiql").html.find("meta", {"name": "seqcore-csrf-token"})["content"]
    body = testapp.post_json("/api/graphql", QUERY, headers={"X-CSRF-Token": token}).json
    assert body == {"data": {"currentUser": {"email": user.email}}}
    body = testapp.post_json("/api/graphql", {"query": 'mutation { createProject(input: {name: '
                                                       '"Session project"}) { errors { message'
                                                       " } } }"},
                             headers={"X-CSRF-Token": token}).json
    assert body == {"data": {"createProject": {"errors": []}}}
    # A GET query needs no CSRF token.
    assert testapp.get("/api/graphql", QUERY).json["data"]["currentUser"]


def test_rest_keeps_its_bearer_rule(testapp, factories):
    """A personal access token is not a REST credential, and REST still answers 401."""
    user = factories.user()
    token = factories.access_token(user)
    testapp.get("/api/projects", headers=basic(user.email, token), status=401)
    testapp.get("/api/projects", status=401)
    testapp.get("/api/graphql/extra", status=401)


@pytest.mark.parametrize("encode", ["form", "multipart"])
def test_queries_posted_as_forms(testapp, factories, encode):
    """Form-encoded bodies are read once (bounded) and parsed from those bytes."""
    user = factories.user(username="former")
    headers = factories.graphql_headers(user, ("read_api",))
    fields = {"query": "{ currentUser { email } }"}
    if encode == "form":
        res = testapp.post("/api/graphql", fields, headers=headers)
    else:
        res = testapp.post("/api/graphql", fields, headers=headers,
                           content_type="multipart/form-data")
    assert res.json == {"data": {"currentUser": {"email": user.email}}}
