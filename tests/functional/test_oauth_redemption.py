"""A refresh token or an authorization code yields one token pair, however many requests
present it at once; presenting a spent one revokes everything descending from its grant."""

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest
from sqlalchemy import func, select

from seqcore.models.oauth import OAuthToken, digest
from seqcore.testing.factories import DEFAULT_PASSWORD

TOKEN = "/api/oauth/token"
REDIRECT = "https://galaxy.example.org/callback"
RACERS = 6


@pytest.fixture
def live_url(app, engine):
    """The test application (on the test database: SQLite or PostgreSQL) served by waitress
    on a free loopback port, with enough threads for the requests to really overlap."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=RACERS + 2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=10)


@pytest.fixture
def clients(factories):
    factories.user(username="alice")
    factories.client(client_id="uploader", secret="s3cret")
    factories.client(client_id="galaxy", secret="g",
                     grant_types="authorization_code refresh_token", redirect_uris=REDIRECT)


def post_form(url, form):
    data = urllib.parse.urlencode(form).encode()
    try:
        with urllib.request.urlopen(url + TOKEN, data, timeout=60) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def race(url, form):
    """``RACERS`` threads post ``form`` at the same moment; their (status, body)s."""
    barrier = threading.Barrier(RACERS)
    results = []

    def run():
        barrier.wait()
        results.append(post_form(url, form))

    threads = [threading.Thread(target=run) for _ in range(RACERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def password_grant(url):
    status, body = post_form(url, {"grant_type": "password", "client_id": "uploader",
                                   "client_secret": "s3cret", "username": "alice",
                                   "password": DEFAULT_PASSWORD})
    assert status == 200, body
    return body


def family_size(db, refresh_token):
    family = db.scalar(select(OAuthToken.family).where(
        OAuthToken.refresh_hash == digest(refresh_token)))
    return db.scalar(select(func.count()).where(OAuthToken.family == family))


def test_simultaneous_refreshes_yield_one_pair(live_url, clients, db):
    for _ in range(3):
        first = password_grant(live_url)
        results = race(live_url, {"grant_type": "refresh_token", "client_id": "uploader",
                                  "client_secret": "s3cret",
                                  "refresh_token": first["refresh_token"]})
        statuses = sorted(status for status, _ in results)
        assert statuses == [200] + [400] * (RACERS - 1), results
        assert all(body["error"] == "invalid_grant" for status, body in results
                   if status == 400)
        # One new pair was stored, not several.
        db.expire_all()
        assert family_size(db, first["refresh_token"]) == 2


def authorization_code(testapp):
    form = testapp.get(f"/api/oauth/authorize?response_type=code&client_id=galaxy&scope=read"
                       f"&redirect_uri={REDIRECT}&state=s").forms[0]
    form["username"] = "alice"
    form["password"] = DEFAULT_PASSWORD
    location = form.submit("decision", value="approve", status=302).headers["Location"]
    return parse_qs(urlparse(location).query)["code"][0]


def test_simultaneous_code_exchanges_yield_one_pair(live_url, testapp, clients, db):
    for _ in range(3):
        code = authorization_code(testapp)
        results = race(live_url, {"grant_type": "authorization_code", "code": code,
                                  "redirect_uri": REDIRECT, "client_id": "galaxy",
                                  "client_secret": "g"})
        statuses = sorted(status for status, _ in results)
        assert statuses == [200] + [400] * (RACERS - 1), results
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(OAuthToken)) == 3


def refresh(testapp, token, status=200):
    return testapp.post(TOKEN, {"grant_type": "refresh_token", "client_id": "uploader",
                                "client_secret": "s3cret", "refresh_token": token},
                        status=status)


def test_reusing_a_spent_refresh_token_revokes_the_family(testapp, clients):
    first = testapp.post(TOKEN, {"grant_type": "password", "client_id": "uploader",
                                 "client_secret": "s3cret", "username": "alice",
                                 "password": DEFAULT_PASSWORD}).json
    second = refresh(testapp, first["refresh_token"]).json
    third = refresh(testapp, second["refresh_token"]).json
    headers = {"Authorization": f"Bearer {third['access_token']}"}
    testapp.get("/api", headers=headers, status=200)
    # Someone replays the first refresh token: refused, and every descendant is revoked.
    assert refresh(testapp, first["refresh_token"], status=400).json["error"] == "invalid_grant"
    res = testapp.get("/api", headers=headers, status=401)
    assert "revoked" in res.json["message"]
    refresh(testapp, third["refresh_token"], status=400)
    # Another sign-in of the same user is another family, untouched.
    other = testapp.post(TOKEN, {"grant_type": "password", "client_id": "uploader",
                                 "client_secret": "s3cret", "username": "alice",
                                 "password": DEFAULT_PASSWORD}).json
    refresh(testapp, other["refresh_token"])


def test_reusing_a_code_revokes_what_it_yielded(testapp, clients):
    code = authorization_code(testapp)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "client_id": "galaxy", "client_secret": "g"}
    token = testapp.post(TOKEN, form).json
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    testapp.get("/api", headers=headers, status=200)
    testapp.post(TOKEN, form, status=400)
    testapp.get("/api", headers=headers, status=401)


def test_a_wrong_redirect_uri_does_not_spend_the_code(testapp, clients):
    code = authorization_code(testapp)
    form = {"grant_type": "authorization_code", "code": code, "client_id": "galaxy",
            "client_secret": "g"}
    testapp.post(TOKEN, {**form, "redirect_uri": "https://evil.example.org/cb"}, status=400)
    testapp.post(TOKEN, {**form, "redirect_uri": REDIRECT}, status=200)
