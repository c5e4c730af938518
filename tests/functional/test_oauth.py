"""The token endpoint, refresh, expiry, revocation and the authorization-code flow."""

import ast
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import pytest
from sqlalchemy import update

from seqcore.db import utcnow
from seqcore.models.oauth import OAuthToken, digest
from seqcore.testing.factories import DEFAULT_PASSWORD

TOKEN = "/api/oauth/token"


def password_grant(testapp, client_id, secret, username, password=DEFAULT_PASSWORD, status=200,
                   **extra):
    form = {"grant_type": "password", "client_id": client_id, "client_secret": secret,
            "username": username, "password": password, **extra}
    return testapp.post(TOKEN, form, status=status)


@pytest.fixture
def client(factories):
    return factories.client(client_id="uploader", secret="s3cret")


@pytest.fixture
def user(factories):
    return factories.user(username="alice")


def test_password_grant_with_form_credentials(testapp, client, user):
    res = password_grant(testapp, "uploader", "s3cret", "alice")
    body = res.json
    assert set(body) == {"access_token", "token_type", "expires_in", "scope", "refresh_token"}
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 43200
    assert body["scope"] == "read write"
    # The IRIDA uploader reads the body with ast.literal_eval: no true/false/null allowed.
    assert ast.literal_eval(res.text)["access_token"] == body["access_token"]
    assert res.headers["Cache-Control"] == "no-store"
    testapp.get("/api", headers={"Authorization": f"Bearer {body['access_token']}"}, status=200)


def test_password_grant_with_basic_client_credentials(testapp, factories, client, user):
    res = testapp.post(TOKEN, {"grant_type": "password", "username": "alice",
                               "password": DEFAULT_PASSWORD},
                       headers=factories.basic("uploader", "s3cret"))
    assert res.json["token_type"] == "bearer"


def test_tokens_are_stored_hashed(testapp, db, client, user):
    body = password_grant(testapp, "uploader", "s3cret", "alice").json
    row = db.query(OAuthToken).one()
    assert row.access_hash == digest(body["access_token"])
    assert body["access_token"] not in (row.access_hash, row.refresh_hash)
    assert row.refresh_hash == digest(body["refresh_token"])


@pytest.mark.parametrize(("client_id", "secret", "username", "password", "status", "error"), [
    ("uploader", "wrong", "alice", DEFAULT_PASSWORD, 401, "invalid_client"),
    ("nobody", "s3cret", "alice", DEFAULT_PASSWORD, 401, "invalid_client"),
    ("uploader", "s3cret", "alice", "Wrong-pass1", 400, "invalid_grant"),
    ("uploader", "s3cret", "nobody", DEFAULT_PASSWORD, 400, "invalid_grant"),
])
def test_bad_credentials(testapp, client, user, client_id, secret, username, password, status,
                         error):
    res = password_grant(testapp, client_id, secret, username, password, status=status)
    assert res.json["error"] == error


def test_disabled_user_cannot_get_a_token(testapp, factories, client):
    factories.user(username="bob", enabled=False)
    password_grant(testapp, "uploader", "s3cret", "bob", status=400)


def test_missing_parameters_and_bad_grant(testapp, client, user):
    res = testapp.post(TOKEN, {"grant_type": "password", "client_id": "uploader",
                               "client_secret": "s3cret", "username": "alice"}, status=400)
    assert res.json["error"] == "invalid_request"
    res = testapp.post(TOKEN, {"grant_type": "magic", "client_id": "uploader",
                               "client_secret": "s3cret"}, status=400)
    assert res.json["error"] == "unsupported_grant_type"


def test_grant_not_registered_for_client(testapp, factories, user):
    factories.client(client_id="web", secret="x", grant_types="authorization_code",
                     redirect_uris="https://example.org/cb")
    res = password_grant(testapp, "web", "x", "alice", status=400)
    assert res.json["error"] == "unauthorized_client"


def test_token_endpoint_takes_form_bodies_only(testapp, client, user):
    res = testapp.post_json(TOKEN, {"grant_type": "password"}, status=415)
    assert res.json["error"] == "invalid_request"


@pytest.mark.parametrize("path", ["/api/oauth/token", "/api/oauth/revoke"])
def test_parameters_in_the_query_string_are_refused_not_a_500(testapp, client, user, path):
    """Credentials in a URL end up in logs; the endpoints refuse them as RFC 6749 says."""
    res = testapp.post(f"{path}?client_secret=s3cret",
                       {"grant_type": "password", "client_id": "uploader",
                        "client_secret": "s3cret", "username": user.username,
                        "password": DEFAULT_PASSWORD, "token": "x"}, status=400)
    assert res.json["error"] == "invalid_request"
    assert "query" in res.json["error_description"].lower()


def test_scope_subset_and_invalid_scope(testapp, factories, client, user):
    body = password_grant(testapp, "uploader", "s3cret", "alice", scope="read").json
    assert body["scope"] == "read"
    read_only = {"Authorization": f"Bearer {body['access_token']}"}
    testapp.get("/api/projects", headers=read_only, status=200)
    res = testapp.post_json("/api/projects", {"name": "Read only"}, headers=read_only,
                            status=403)
    assert "write" in res.json["message"]
    assert 'error="insufficient_scope"' in res.headers["WWW-Authenticate"]
    res = password_grant(testapp, "uploader", "s3cret", "alice", scope="admin", status=400)
    assert res.json["error"] == "invalid_scope"


def test_read_only_client_can_never_write(testapp, factories, user):
    factories.client(client_id="reader", secret="r", scopes="read")
    body = password_grant(testapp, "reader", "r", "alice").json
    assert body["scope"] == "read"
    testapp.post_json("/api/projects", {"name": "Nope project"},
                      headers={"Authorization": f"Bearer {body['access_token']}"}, status=403)


def test_client_without_refresh_grant_gets_no_refresh_token(testapp, factories, user):
    factories.client(client_id="plain", secret="p", grant_types="password")
    body = password_grant(testapp, "plain", "p", "alice").json
    assert "refresh_token" not in body


def test_client_token_lifetime(testapp, factories, user):
    factories.client(client_id="short", secret="p", access_token_seconds=120)
    assert password_grant(testapp, "short", "p", "alice").json["expires_in"] == 120


def test_refresh_rotates_tokens(testapp, client, user):
    first = password_grant(testapp, "uploader", "s3cret", "alice").json
    res = testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                               "client_secret": "s3cret",
                               "refresh_token": first["refresh_token"]})
    second = res.json
    assert second["access_token"] != first["access_token"]
    assert second["refresh_token"] != first["refresh_token"]
    testapp.get("/api", headers={"Authorization": f"Bearer {second['access_token']}"})
    # The old pair is gone: its access token is rejected and its refresh token is spent.
    res = testapp.get("/api", headers={"Authorization": f"Bearer {first['access_token']}"},
                      status=401)
    assert "revoked" in res.json["message"]
    testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                         "client_secret": "s3cret", "refresh_token": first["refresh_token"]},
                 status=400)


def test_refresh_token_of_another_client_is_refused(testapp, factories, client, user):
    factories.client(client_id="other", secret="o")
    first = password_grant(testapp, "uploader", "s3cret", "alice").json
    res = testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "other",
                               "client_secret": "o", "refresh_token": first["refresh_token"]},
                       status=400)
    assert res.json["error"] == "invalid_grant"


def test_expired_refresh_token_is_refused(testapp, engine, client, user):
    first = password_grant(testapp, "uploader", "s3cret", "alice").json
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(refresh_expires=utcnow() - timedelta(seconds=1)))
    testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                         "client_secret": "s3cret", "refresh_token": first["refresh_token"]},
                 status=400)


def test_expired_access_token_is_rejected(testapp, engine, client, user):
    body = password_grant(testapp, "uploader", "s3cret", "alice").json
    headers = {"Authorization": f"Bearer {body['access_token']}"}
    testapp.get("/api", headers=headers, status=200)
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(expires=utcnow() - timedelta(seconds=1)))
    res = testapp.get("/api", headers=headers, status=401)
    assert res.json["message"] == "The access token has expired."
    assert res.headers["WWW-Authenticate"].startswith('Bearer error="invalid_token"')
    # The uploader notices expiry through OPTIONS: it must not answer 200 any more.
    testapp.options("/api/", headers=headers, status=401)


def test_revocation(testapp, client, user):
    body = password_grant(testapp, "uploader", "s3cret", "alice").json
    headers = {"Authorization": f"Bearer {body['access_token']}"}
    testapp.post("/api/oauth/revoke", {"token": body["access_token"], "client_id": "uploader",
                                       "client_secret": "s3cret"}, status=200)
    res = testapp.get("/api", headers=headers, status=401)
    assert res.json["message"] == "The access token has been revoked."


def test_revoking_the_client_revokes_its_tokens(testapp, engine, client, user):
    from seqcore.models.oauth import OAuthClient

    body = password_grant(testapp, "uploader", "s3cret", "alice").json
    with engine.begin() as conn:
        conn.execute(update(OAuthClient).values(revoked=True))
    testapp.get("/api", headers={"Authorization": f"Bearer {body['access_token']}"},
                status=401)
    password_grant(testapp, "uploader", "s3cret", "alice", status=401)


# -- authorization-code flow ------------------------------------------------------------------


@pytest.fixture
def web_client(factories):
    return factories.client(client_id="galaxy", secret="g",
                            grant_types="authorization_code refresh_token",
                            redirect_uris="https://galaxy.example.org/callback")


AUTHORIZE = ("/api/oauth/authorize?response_type=code&client_id=galaxy&scope=read"
             "&redirect_uri=https://galaxy.example.org/callback&state=xyz")


def test_consent_page_names_client_and_scopes(testapp, web_client):
    res = testapp.get(AUTHORIZE, status=200)
    assert res.content_type == "text/html"
    assert "Authorize galaxy" in res.text
    assert "<strong>read</strong>" in res.text


def test_authorization_code_flow(testapp, web_client, user):
    form = testapp.get(AUTHORIZE).forms[0]
    form["username"] = "alice"
    form["password"] = DEFAULT_PASSWORD
    res = form.submit("decision", value="approve", status=302)
    location = urlparse(res.headers["Location"])
    assert location.netloc == "galaxy.example.org"
    query = parse_qs(location.query)
    assert query["state"] == ["xyz"]
    code = query["code"][0]
    token = testapp.post(TOKEN, {"grant_type": "authorization_code", "code": code,
                                 "redirect_uri": "https://galaxy.example.org/callback",
                                 "client_id": "galaxy", "client_secret": "g"}).json
    assert token["scope"] == "read"
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    assert testapp.get("/api/users/current", headers=headers).json["resource"][
        "username"] == "alice"
    # A code works once.
    testapp.post(TOKEN, {"grant_type": "authorization_code", "code": code,
                         "redirect_uri": "https://galaxy.example.org/callback",
                         "client_id": "galaxy", "client_secret": "g"}, status=400)


def test_consent_denied(testapp, web_client, user):
    form = testapp.get(AUTHORIZE).forms[0]
    res = form.submit("decision", value="deny", status=302)
    query = parse_qs(urlparse(res.headers["Location"]).query)
    assert query == {"error": ["access_denied"], "state": ["xyz"]}


def test_consent_with_wrong_password(testapp, web_client, user):
    form = testapp.get(AUTHORIZE).forms[0]
    form["username"] = "alice"
    form["password"] = "Wrong-pass1"
    res = form.submit("decision", value="approve", status=400)
    assert "not correct" in res.text


def test_authorize_with_unregistered_redirect(testapp, web_client):
    res = testapp.get(AUTHORIZE.replace("galaxy.example.org", "evil.example.org"), status=400)
    assert "Authorization error" in res.text


def test_client_credentials_grant_is_refused_not_a_500(testapp, factories):
    """A client registered for client_credentials before it was withdrawn gets a clear
    unsupported_grant_type, by form fields or HTTP Basic, and no token."""
    factories.client(client_id="robot", secret="r",
                     grant_types="client_credentials password refresh_token")
    res = testapp.post(TOKEN, {"grant_type": "client_credentials", "client_id": "robot",
                               "client_secret": "r"}, status=400)
    assert res.json["error"] == "unsupported_grant_type"
    res = testapp.post(TOKEN, {"grant_type": "client_credentials"},
                       headers=factories.basic("robot", "r"), status=400)
    assert res.json["error"] == "unsupported_grant_type"


def test_a_signed_in_browser_is_asked_only_to_approve(testapp, web_client, user):
    """With a session, the consent page asks no password; the approval carries the
    session's CSRF token, and without it (another site posting the form) nothing is
    granted."""
    page = testapp.get("/users/sign_in")
    page.form["username"] = "alice"
    page.form["password"] = DEFAULT_PASSWORD
    page.form.submit(status=303)
    consent = testapp.get(AUTHORIZE, status=200)
    assert "signed in as <strong>alice</strong>" in consent.text
    assert 'name="password"' not in consent.text
    form = consent.forms[0]
    forged = {field: form[field].value for field in ("response_type", "client_id",
                                                     "redirect_uri", "scope", "state")}
    refused = testapp.post("/api/oauth/authorize", {**forged, "decision": "approve"},
                           status=400)
    assert "expired" in refused.text
    res = form.submit("decision", value="approve", status=302)
    query = parse_qs(urlparse(res.headers["Location"]).query)
    assert query["state"] == ["xyz"] and query["code"]
    token = testapp.post(TOKEN, {"grant_type": "authorization_code", "code": query["code"][0],
                                 "redirect_uri": "https://galaxy.example.org/callback",
                                 "client_id": "galaxy", "client_secret": "g"}).json
    assert testapp.get("/api/users/current", headers={
        "Authorization": f"Bearer {token['access_token']}"}).json["resource"][
        "username"] == "alice"


def _pkce_code(testapp, challenge, method="S256"):
    query = f"{AUTHORIZE}&code_challenge={challenge}"
    if method:
        query += f"&code_challenge_method={method}"
    form = testapp.get(query).forms[0]
    form["username"] = "alice"
    form["password"] = DEFAULT_PASSWORD
    res = form.submit("decision", value="approve", status=302)
    return parse_qs(urlparse(res.headers["Location"]).query)["code"][0]


def test_pkce_s256_is_honoured(testapp, web_client, user):
    """A code issued with an S256 challenge is exchanged only with its verifier: none or a
    wrong one is invalid_grant (and the code stays usable by its owner)."""
    import base64
    import hashlib

    verifier = "v" * 20 + "-._~" + "x" * 30
    challenge = base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    code = _pkce_code(testapp, challenge)
    exchange = {"grant_type": "authorization_code", "code": code,
                "redirect_uri": "https://galaxy.example.org/callback",
                "client_id": "galaxy", "client_secret": "g"}
    assert testapp.post(TOKEN, exchange, status=400).json["error"] == "invalid_grant"
    assert testapp.post(TOKEN, {**exchange, "code_verifier": "w" * 43},
                        status=400).json["error"] == "invalid_grant"
    token = testapp.post(TOKEN, {**exchange, "code_verifier": verifier}).json
    assert token["access_token"]


@pytest.mark.parametrize("method", ["plain", None])
def test_pkce_plain_is_refused(testapp, web_client, method):
    query = f"{AUTHORIZE}&code_challenge={'c' * 43}"
    if method:
        query += f"&code_challenge_method={method}"
    res = testapp.get(query, status=302)
    location = parse_qs(urlparse(res.headers["Location"]).query)
    assert location["error"] == ["invalid_request"]
    assert "S256" in location["error_description"][0]
    assert location["state"] == ["xyz"]
