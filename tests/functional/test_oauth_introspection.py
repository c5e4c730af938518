"""Token introspection (RFC 7662) at ``/api/oauth/introspect``: live tokens answer their
claims to the client they were issued to (or a resource server), everything else
``{"active": false}``; bad requests are RFC-shaped 4xx and nothing is written."""

import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from seqcore.db import utcnow
from seqcore.models.oauth import OAuthClient, OAuthToken
from seqcore.testing.factories import DEFAULT_PASSWORD
from tests.dbstate import snapshot

TOKEN = "/api/oauth/token"
INTROSPECT = "/api/oauth/introspect"


@pytest.fixture
def clients(factories):
    factories.client(client_id="uploader", secret="s3cret")
    factories.client(client_id="other", secret="o")
    factories.client(client_id="reports", secret="r")


@pytest.fixture
def alice(factories):
    return factories.user(username="alice")


@pytest.fixture
def pair(testapp, clients, alice):
    """An access and refresh token issued to ``uploader`` for alice (password grant)."""
    return testapp.post(TOKEN, {"grant_type": "password", "client_id": "uploader",
                                "client_secret": "s3cret", "username": "alice",
                                "password": DEFAULT_PASSWORD}).json


def introspect(app, token, client=("uploader", "s3cret"), status=200, basic=False, **extra):
    form = {"token": token, **extra}
    headers = {}
    if basic:
        import base64
        raw = base64.b64encode(f"{client[0]}:{client[1]}".encode()).decode()
        headers["Authorization"] = f"Basic {raw}"
    elif client is not None:
        form.update(client_id=client[0], client_secret=client[1])
    return app.post(INTROSPECT, form, headers=headers, status=status)


def test_live_access_token(testapp, pair, alice):
    before = int(time.time())
    res = introspect(testapp, pair["access_token"])
    body = res.json
    assert body["active"] is True
    assert body["scope"] == "read write"
    assert body["client_id"] == "uploader"
    assert body["username"] == "alice"
    assert body["sub"] == str(alice.id)
    assert body["token_type"] == "bearer"
    assert body["iss"] == "http://localhost"
    assert before - 5 <= body["iat"] <= int(time.time())
    assert body["exp"] - body["iat"] == 43200
    assert res.headers["Cache-Control"] == "no-store"
    assert res.content_type == "application/json"


def test_live_access_token_with_basic_client_credentials(testapp, pair):
    assert introspect(testapp, pair["access_token"], basic=True).json["active"] is True


def test_live_refresh_token(testapp, pair):
    body = introspect(testapp, pair["refresh_token"], token_type_hint="refresh_token").json
    assert body["active"] is True
    assert body["client_id"] == "uploader"
    assert body["username"] == "alice"
    assert "token_type" not in body  # a refresh token is not a bearer access token
    assert body["exp"] - body["iat"] == 2592000


@pytest.mark.parametrize("hint", ["access_token", "refresh_token", "something_else", ""])
def test_a_wrong_or_unknown_hint_still_finds_the_token(testapp, pair, hint):
    """The hinted kind is searched first, then the other (RFC 7662 section 2.1)."""
    for kind in ("access_token", "refresh_token"):
        body = introspect(testapp, pair[kind], token_type_hint=hint).json
        assert body["active"] is True
        assert ("token_type" in body) is (kind == "access_token")


def test_refresh_token_without_expiry_has_no_exp(testapp, engine, factories, alice):
    factories.client(client_id="forever", secret="f")
    with engine.begin() as conn:  # a client registered without a refresh-token lifetime
        conn.execute(update(OAuthClient).where(OAuthClient.client_id == "forever")
                     .values(refresh_token_seconds=None))
    pair = testapp.post(TOKEN, {"grant_type": "password", "client_id": "forever",
                                "client_secret": "f", "username": "alice",
                                "password": DEFAULT_PASSWORD}).json
    body = introspect(testapp, pair["refresh_token"], client=("forever", "f")).json
    assert body["active"] is True
    assert "exp" not in body


def test_refresh_token_of_a_client_without_the_refresh_grant_is_inactive(testapp, engine, pair):
    """The token endpoint would refuse it (unauthorized_client), so it is not live."""
    with engine.begin() as conn:
        conn.execute(update(OAuthClient).where(OAuthClient.client_id == "uploader")
                     .values(grant_types="password"))
    assert introspect(testapp, pair["refresh_token"]).json == {"active": False}
    res = testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                               "client_secret": "s3cret",
                               "refresh_token": pair["refresh_token"]}, status=400)
    assert res.json["error"] == "unauthorized_client"
    assert introspect(testapp, pair["access_token"]).json["active"] is True


def test_unknown_token_is_inactive(testapp, clients):
    res = introspect(testapp, "not-a-token")
    assert res.json == {"active": False}


def test_expired_access_token_is_inactive(testapp, engine, pair):
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(expires=utcnow() - timedelta(seconds=1)))
    assert introspect(testapp, pair["access_token"]).json == {"active": False}
    # The refresh token outlives its access token.
    assert introspect(testapp, pair["refresh_token"]).json["active"] is True


def test_expired_refresh_token_is_inactive(testapp, engine, pair):
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(
            refresh_expires=utcnow() - timedelta(seconds=1)))
    assert introspect(testapp, pair["refresh_token"]).json == {"active": False}


@pytest.mark.parametrize("revoked", ["access_token", "refresh_token"])
def test_revoked_tokens_are_inactive(testapp, pair, revoked):
    testapp.post("/api/oauth/revoke", {"token": pair[revoked], "client_id": "uploader",
                                       "client_secret": "s3cret"}, status=200)
    for kind in ("access_token", "refresh_token"):
        assert introspect(testapp, pair[kind]).json == {"active": False}


def test_a_refresh_spends_the_old_pair(testapp, pair):
    new = testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                               "client_secret": "s3cret",
                               "refresh_token": pair["refresh_token"]}).json
    for kind in ("access_token", "refresh_token"):
        assert introspect(testapp, pair[kind]).json == {"active": False}
        assert introspect(testapp, new[kind]).json["active"] is True


def test_tokens_of_a_disabled_account_are_inactive(testapp, engine, pair, alice):
    from seqcore.models.user import User

    with engine.begin() as conn:
        conn.execute(update(User).where(User.id == alice.id).values(enabled=False))
    assert introspect(testapp, pair["access_token"]).json == {"active": False}
    with engine.begin() as conn:
        conn.execute(update(User).where(User.id == alice.id).values(enabled=True))
    assert introspect(testapp, pair["access_token"]).json["active"] is True

def test_tokens_of_a_revoked_client_are_inactive(build_app, engine, pair):
    app = build_app(**{"seqcore.oauth.resource_servers": "reports"})
    assert introspect(app, pair["access_token"], client=("reports", "r")).json["active"]
    with engine.begin() as conn:
        conn.execute(update(OAuthClient).where(OAuthClient.client_id == "uploader")
                     .values(revoked=True))
    for kind in ("access_token", "refresh_token"):
        assert introspect(app, pair[kind], client=("reports", "r")).json == {"active": False}


def test_another_clients_token_is_inactive(testapp, pair):
    """A client learns nothing about tokens issued to another client (RFC 7662 section 4)."""
    for kind in ("access_token", "refresh_token"):
        assert introspect(testapp, pair[kind], client=("other", "o")).json == {
            "active": False}


def test_a_resource_server_sees_every_clients_tokens(build_app, testapp, pair):
    app = build_app(**{"seqcore.oauth.resource_servers": "reports, elsewhere"})
    body = introspect(app, pair["access_token"], client=("reports", "r")).json
    assert body["active"] is True
    assert body["client_id"] == "uploader"
    assert body["username"] == "alice"
    assert introspect(app, pair["refresh_token"], client=("reports", "r")).json["active"]
    # Other clients are still limited to their own tokens.
    assert introspect(app, pair["access_token"], client=("other", "o")).json == {
        "active": False}
    # Without the setting the same client is an ordinary one.
    assert introspect(testapp, pair["access_token"], client=("reports", "r")).json == {
        "active": False}


@pytest.mark.parametrize(("client", "basic"), [
    (None, False),
    (("uploader", "wrong"), False),
    (("uploader", "wrong"), True),
    (("nobody", "s3cret"), False),
    (("uploader", ""), False),
])
def test_bad_client_authentication_is_401(testapp, pair, client, basic):
    res = introspect(testapp, pair["access_token"], client=client, basic=basic, status=401)
    assert res.json["error"] == "invalid_client"
    assert "active" not in res.json


def test_revoked_client_cannot_introspect(testapp, engine, pair):
    with engine.begin() as conn:
        conn.execute(update(OAuthClient).where(OAuthClient.client_id == "uploader")
                     .values(revoked=True))
    assert introspect(testapp, pair["access_token"], status=401).json["error"] == (
        "invalid_client")


def test_missing_token_is_400(testapp, clients):
    res = testapp.post(INTROSPECT, {"client_id": "uploader", "client_secret": "s3cret"},
                       status=400)
    assert res.json["error"] == "invalid_request"


def test_not_a_form_is_415(testapp, pair):
    res = testapp.post_json(INTROSPECT, {"token": pair["access_token"],
                                         "client_id": "uploader", "client_secret": "s3cret"},
                            status=415)
    assert res.json == {"error": "invalid_request", "error_description":
                        "The introspection endpoint takes application/x-www-form-urlencoded "
                        "bodies."}


def test_token_in_the_query_string_is_refused(testapp, pair):
    res = testapp.post(f"{INTROSPECT}?token={pair['access_token']}",
                       {"client_id": "uploader", "client_secret": "s3cret"}, status=400)
    assert res.json["error"] == "invalid_request"


def test_get_is_not_allowed(testapp, pair):
    res = testapp.get(f"{INTROSPECT}?token={pair['access_token']}", status=405)
    assert "POST" in res.headers["Allow"]


def test_introspection_writes_nothing(testapp, db, pair, engine):
    """Every answer, active or not, leaves the database as it was."""
    before = snapshot(db)
    introspect(testapp, pair["access_token"])
    introspect(testapp, pair["refresh_token"], token_type_hint="refresh_token")
    introspect(testapp, pair["access_token"], client=("other", "o"))
    introspect(testapp, "unknown")
    introspect(testapp, pair["access_token"], client=("uploader", "bad"), status=401)
    testapp.post(INTROSPECT, {"client_id": "uploader", "client_secret": "s3cret"}, status=400)
    assert snapshot(db) == before


def test_a_large_form_is_413_and_a_bad_charset_400(build_app, testapp, pair):
    """The framing checks of every /api/oauth endpoint hold here too, before oauthlib."""
    small = build_app(**{"seqcore.max_form_bytes": 1024})
    form = {"token": pair["access_token"], "client_id": "uploader", "client_secret": "s3cret"}
    assert small.post(INTROSPECT, form).json["active"] is True
    small.post(INTROSPECT, {**form, "pad": "x" * 2048}, status=413)
    res = testapp.post(INTROSPECT, f"token={pair['access_token']}", headers={
        "Content-Type": "application/x-www-form-urlencoded; charset=bogus"}, status=400)
    assert "bogus" in res.json["message"]
