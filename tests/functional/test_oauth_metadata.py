"""Authorization server metadata (RFC 8414) at ``/.well-known/oauth-authorization-server``:
public, built from the application URL, and true to what the endpoints it lists do."""

from urllib.parse import parse_qs, urljoin, urlparse

import pytest

from seqcore.testing.factories import DEFAULT_PASSWORD

METADATA = "/.well-known/oauth-authorization-server"
CALLBACK = "https://galaxy.example.org/callback"
FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def metadata(testapp):
    return testapp.get(METADATA).json


def path(url):
    parsed = urlparse(url)
    assert (parsed.scheme, parsed.netloc) == ("http", "localhost")
    return parsed.path


def test_metadata_document(testapp):
    res = testapp.get(METADATA, status=200)
    assert res.content_type == "application/json"
    assert res.json == {
        "issuer": "http://localhost",
        "authorization_endpoint": "http://localhost/api/oauth/authorize",
        "token_endpoint": "http://localhost/api/oauth/token",
        "revocation_endpoint": "http://localhost/api/oauth/revoke",
        "introspection_endpoint": "http://localhost/api/oauth/introspect",
        "grant_types_supported": ["authorization_code", "password", "refresh_token"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "scopes_supported": ["read", "write"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic",
                                                       "client_secret_post"],
        "introspection_endpoint_auth_methods_supported": ["client_secret_basic",
                                                          "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
    }
    # RFC 8414 section 3: the document is found at the issuer's well-known location.
    assert urljoin(res.json["issuer"], METADATA) == "http://localhost" + METADATA


def test_metadata_needs_no_credentials_and_ignores_bad_ones(testapp, metadata):
    """Not under /api: neither a missing nor a bad bearer token is a 401."""
    res = testapp.get(METADATA, headers={"Authorization": "Bearer not-a-token"}, status=200)
    assert res.json == metadata
    assert testapp.head(METADATA, status=200).body == b""


def test_other_methods_are_405(testapp):
    res = testapp.post(METADATA, {"a": "b"}, status=405)
    assert res.headers["Allow"] == "GET, HEAD"
    assert res.json["error"] == "invalid_request"


def test_a_malformed_url_is_still_400(testapp):
    res = testapp.get(METADATA + "?x=%FF", status=400)
    assert "UTF-8" in res.text


def test_links_follow_a_trusted_proxy_only(build_app):
    app = build_app(**{"seqcore.trusted_proxies": "10.0.0.1"})
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "seqcore.example.org"}
    body = app.get(METADATA, headers=forwarded, extra_environ={"REMOTE_ADDR": "10.0.0.1"}).json
    assert body["issuer"] == "https://seqcore.example.org"
    assert body["token_endpoint"] == "https://seqcore.example.org/api/oauth/token"
    assert body["introspection_endpoint"] == "https://seqcore.example.org/api/oauth/introspect"
    body = app.get(METADATA, headers=forwarded,
                   extra_environ={"REMOTE_ADDR": "192.0.2.1"}).json
    assert body["issuer"] == "http://localhost"
    assert body["token_endpoint"] == "http://localhost/api/oauth/token"


def test_every_listed_endpoint_answers(testapp, metadata):
    """Each URL resolves to its endpoint (an OAuth error for an empty request, never 404)."""
    res = testapp.get(path(metadata["authorization_endpoint"]), status=400)
    assert "Authorization error" in res.text
    for key in ("token_endpoint", "revocation_endpoint", "introspection_endpoint"):
        res = testapp.post(path(metadata[key]), "", content_type=FORM, expect_errors=True)
        assert res.status_int in (400, 401), key
        assert res.json["error"] in ("invalid_request", "invalid_client",
                                     "unsupported_grant_type"), key


@pytest.fixture
def client(factories):
    return factories.client(client_id="galaxy", secret="g",
                            grant_types="password authorization_code refresh_token",
                            redirect_uris=CALLBACK)


@pytest.fixture
def alice(factories):
    return factories.user(username="alice")


def code_for(testapp, metadata, scope="read write"):
    """Walk the consent page of the listed authorization endpoint; the code it redirects with."""
    query = {"response_type": "code", "client_id": "galaxy", "scope": scope,
             "redirect_uri": CALLBACK, "state": "s"}
    form = testapp.get(path(metadata["authorization_endpoint"]), query).forms[0]
    form["username"] = "alice"
    form["password"] = DEFAULT_PASSWORD
    res = form.submit("decision", value="approve", status=302)
    return parse_qs(urlparse(res.headers["Location"]).query)["code"][0]


def test_every_listed_grant_type_works(testapp, metadata, client, alice):
    token = path(metadata["token_endpoint"])
    auth = {"client_id": "galaxy", "client_secret": "g"}
    issued = {}
    for grant in metadata["grant_types_supported"]:
        if grant == "password":
            form = {"username": "alice", "password": DEFAULT_PASSWORD}
        elif grant == "authorization_code":
            form = {"code": code_for(testapp, metadata), "redirect_uri": CALLBACK}
        else:
            form = {"refresh_token": issued["password"]["refresh_token"]}
        issued[grant] = testapp.post(token, {"grant_type": grant, **auth, **form}).json
        assert issued[grant]["token_type"] == "bearer"
        assert issued[grant]["scope"] == "read write"
    assert set(issued) == {"password", "authorization_code", "refresh_token"}
    # A grant it does not list is refused.
    for grant in ("client_credentials", "implicit",
                  "urn:ietf:params:oauth:grant-type:device_code"):
        res = testapp.post(token, {"grant_type": grant, **auth}, status=400)
        assert res.json["error"] == "unsupported_grant_type"


def test_only_the_listed_response_type_works(testapp, metadata, client, alice):
    """``code`` gives a code; the implicit grant's ``token`` is refused with an error
    redirect (no token in the query or the fragment)."""
    assert metadata["response_types_supported"] == ["code"]
    code_for(testapp, metadata)
    res = testapp.get(path(metadata["authorization_endpoint"]), {
        "response_type": "token", "client_id": "galaxy", "scope": "read",
        "redirect_uri": CALLBACK, "state": "s"}, status=302)
    location = urlparse(res.headers["Location"])
    assert parse_qs(location.query)["error"] == ["unauthorized_client"]
    assert "access_token" not in res.headers["Location"]
    assert location.fragment == ""


def test_listed_scopes_are_the_ones_clients_get(testapp, metadata, client, alice):
    token = path(metadata["token_endpoint"])
    base = {"grant_type": "password", "client_id": "galaxy", "client_secret": "g",
            "username": "alice", "password": DEFAULT_PASSWORD}
    for scope in metadata["scopes_supported"]:
        assert testapp.post(token, {**base, "scope": scope}).json["scope"] == scope
    res = testapp.post(token, {**base, "scope": "admin"}, status=400)
    assert res.json["error"] == "invalid_scope"


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_listed_client_authentication_works_at_every_endpoint(testapp, factories, metadata,
                                                               client, alice, method):
    def auth(form):
        if method == "client_secret_basic":
            return {"params": form, "headers": factories.basic("galaxy", "g")}
        return {"params": {**form, "client_id": "galaxy", "client_secret": "g"}}

    assert method in metadata["token_endpoint_auth_methods_supported"]
    assert method in metadata["introspection_endpoint_auth_methods_supported"]
    assert method in metadata["revocation_endpoint_auth_methods_supported"]
    pair = testapp.post(path(metadata["token_endpoint"]), **auth(
        {"grant_type": "password", "username": "alice", "password": DEFAULT_PASSWORD})).json
    introspect = path(metadata["introspection_endpoint"])
    assert testapp.post(introspect, **auth({"token": pair["access_token"]})).json["active"]
    testapp.post(path(metadata["revocation_endpoint"]), **auth({"token": pair["access_token"]}),
                 status=200)
    assert testapp.post(introspect, **auth({"token": pair["access_token"]})).json == {
        "active": False}
