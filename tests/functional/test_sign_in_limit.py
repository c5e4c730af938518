"""One rate limit for every door that takes a password: the sign-in page, the OAuth password
grant and the authorization-code consent form; client addresses only from trusted proxies;
the same work whether or not the account exists."""

import statistics
import time

import pytest
from sqlalchemy import update

from seqcore.models.user import User
from seqcore.security.passwords import hash_password
from seqcore.testing.factories import DEFAULT_PASSWORD

TOKEN = "/api/oauth/token"
AUTHORIZE = ("/api/oauth/authorize?response_type=code&client_id=galaxy&scope=read"
             "&redirect_uri=https://galaxy.example.org/callback&state=xyz")


@pytest.fixture
def clients(factories):
    factories.client(client_id="uploader", secret="s3cret")
    factories.client(client_id="galaxy", secret="g",
                     grant_types="authorization_code refresh_token",
                     redirect_uris="https://galaxy.example.org/callback")


def grant(app, login, password, status, **environ):
    return app.post(TOKEN, {"grant_type": "password", "client_id": "uploader",
                            "client_secret": "s3cret", "username": login,
                            "password": password}, status=status, extra_environ=environ)


def sign_in(app, login, password, status, **environ):
    page = app.get("/users/sign_in", extra_environ=environ)
    page.form["username"] = login
    page.form["password"] = password
    return page.form.submit(status=status, extra_environ=environ)


def consent(app, login, password, status):
    form = app.get(AUTHORIZE).forms[0]
    form["username"] = login
    form["password"] = password
    return form.submit("decision", value="approve", status=status)


def test_failures_at_the_token_endpoint_lock_every_door(testapp, factories, clients):
    user = factories.user(username="alice")
    for _ in range(5):
        assert grant(testapp, "alice", "Wrong-pass1", 400).json["error"] == "invalid_grant"
    # Locked: even the right password gets no token and no session, at any door.
    res = grant(testapp, "alice", DEFAULT_PASSWORD, 429)
    assert res.json["error"] == "invalid_grant"
    assert "Too many failed sign-ins" in res.json["error_description"]
    assert "Too many failed sign-ins" in sign_in(testapp, "alice", DEFAULT_PASSWORD, 429).text
    res = consent(testapp, "alice", DEFAULT_PASSWORD, 429)
    assert "Location" not in res.headers
    testapp.get("/-/profile", status=302)
    # Others are unaffected.
    factories.user(username="bob")
    grant(testapp, "bob", DEFAULT_PASSWORD, 200)
    assert user


def test_failures_at_the_consent_form_lock_the_password_grant(testapp, factories, clients):
    factories.user(username="alice")
    for _ in range(5):
        consent(testapp, "alice", "Wrong-pass1", 400)
    grant(testapp, "alice", DEFAULT_PASSWORD, 429)


def test_username_and_email_count_as_one_account(testapp, factories, clients):
    factories.user(username="alice", email="Alice@Example.org")
    for _ in range(3):
        sign_in(testapp, "alice", "Wrong-pass1", 400)
    for login in ("alice@example.org", "ALICE@EXAMPLE.ORG"):
        grant(testapp, login, "Wrong-pass1", 400)
    grant(testapp, "alice", DEFAULT_PASSWORD, 429)
    sign_in(testapp, "alice@example.org", DEFAULT_PASSWORD, 429)


def test_the_password_grant_accepts_the_email_address(testapp, factories, clients):
    factories.user(username="carol", email="carol@example.org")
    grant(testapp, "Carol@Example.org", DEFAULT_PASSWORD, 200)


def test_a_forged_forwarded_for_does_not_reset_the_address_limit(testapp, factories, clients):
    """Without trusted proxies, X-Forwarded-For is ignored: 20 failures from one address
    over 20 accounts (each under its own limit) lock that address."""
    for n in range(20):
        grant(testapp, f"nobody{n}", "Wrong-pass1", 400, REMOTE_ADDR="203.0.113.9",
              HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    factories.user(username="dave")
    grant(testapp, "dave", DEFAULT_PASSWORD, 429, REMOTE_ADDR="203.0.113.9",
          HTTP_X_FORWARDED_FOR="198.51.100.200")
    # Another address is not affected.
    grant(testapp, "dave", DEFAULT_PASSWORD, 200, REMOTE_ADDR="203.0.113.10")


def test_behind_a_trusted_proxy_the_client_is_the_proxys_entry(build_app, factories, clients):
    app = build_app(**{"seqcore.trusted_proxies": "10.0.0.0/8"})
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    # The client writes whatever it likes at the left; the proxy appends the real address.
    for n in range(20):
        grant(app, f"nobody{n}", "Wrong-pass1", 400, HTTP_X_FORWARDED_FOR=(
            f"198.51.100.{n}, 203.0.113.9"), **proxy)
    factories.user(username="erin")
    grant(app, "erin", DEFAULT_PASSWORD, 429, HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy)
    # Other clients behind the same proxy are not affected.
    grant(app, "erin", DEFAULT_PASSWORD, 200, HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy)


def test_an_untrusted_peer_cannot_set_host_or_scheme(build_app, factories):
    app = build_app(**{"seqcore.trusted_proxies": "10.0.0.1"})
    headers = {**factories.headers(factories.user()), "X-Forwarded-Proto": "https",
               "X-Forwarded-Host": "evil.example.org"}
    links = app.get("/api", headers=headers, extra_environ={"REMOTE_ADDR": "192.0.2.1"}
                    ).json["resource"]["links"]
    assert links[0]["href"] == "http://localhost/api"
    links = app.get("/api", headers=headers, extra_environ={"REMOTE_ADDR": "10.0.0.1"}
                    ).json["resource"]["links"]
    assert links[0]["href"] == "https://evil.example.org/api"


def test_unknown_accounts_cost_a_password_hash(build_app, factories, engine, clients):
    """An unknown username takes as long to refuse as a wrong password for a real one,
    so timing does not reveal which accounts exist."""
    costs = {"seqcore.password_hash.time_cost": 2, "seqcore.password_hash.memory_cost": 32768,
             "seqcore.sign_in.max_failures": 100}
    app = build_app(**costs)
    user = factories.user(username="frank")
    with engine.begin() as conn:
        conn.execute(update(User).where(User.id == user.id).values(
            password_hash=hash_password(DEFAULT_PASSWORD, 2, 32768)))

    def timed(login):
        start = time.perf_counter()
        grant(app, login, "Wrong-pass1", 400)
        return time.perf_counter() - start

    timed("frank"), timed("nobody")  # warm up
    known = statistics.median(timed("frank") for _ in range(5))
    unknown = statistics.median(timed("nobody") for _ in range(5))
    assert unknown > 0.6 * known, (known, unknown)


HOME, ELSEWHERE, NAT = "192.0.2.10", "198.51.100.7", "203.0.113.50"


def test_guessing_from_anywhere_does_not_lock_the_holder_out(testapp, factories, clients):
    """Five wrong guesses from another address, and a guess at every door: the holder, at
    an address it signed in from before, still gets a token and a session."""
    factories.user(username="alice")
    grant(testapp, "alice", DEFAULT_PASSWORD, 200, REMOTE_ADDR=HOME)
    for _ in range(5):
        grant(testapp, "alice", "Wrong-pass1", 400, REMOTE_ADDR=ELSEWHERE)
    # Guesses spread over new addresses are refused from now on.
    for n in range(3):
        sign_in(testapp, "alice", "Wrong-pass1", 429, REMOTE_ADDR=f"198.51.100.{n + 20}")
    assert grant(testapp, "alice", DEFAULT_PASSWORD, 200,
                 REMOTE_ADDR=HOME).json["access_token"]
    sign_in(testapp, "alice", DEFAULT_PASSWORD, 303, REMOTE_ADDR=HOME)
    # The guesser is stopped where it guesses, the right password included.
    grant(testapp, "alice", DEFAULT_PASSWORD, 429, REMOTE_ADDR=ELSEWHERE)
    # An address the account never signed in from is refused while guesses pile up.
    grant(testapp, "alice", DEFAULT_PASSWORD, 429, REMOTE_ADDR="198.51.100.99")


def test_failures_from_one_nat_address_do_not_block_the_site(testapp, factories, clients):
    """20 failures over many accounts from a site's one address: its people who signed in
    from there before keep signing in; the address is refused for others."""
    for name in ("frank", "grace"):
        factories.user(username=name)
        grant(testapp, name, DEFAULT_PASSWORD, 200, REMOTE_ADDR=NAT)
    for n in range(20):
        grant(testapp, f"nobody{n}", "Wrong-pass1", 400, REMOTE_ADDR=NAT)
    grant(testapp, "frank", DEFAULT_PASSWORD, 200, REMOTE_ADDR=NAT)
    sign_in(testapp, "grace", DEFAULT_PASSWORD, 303, REMOTE_ADDR=NAT)
    factories.user(username="heidi")
    grant(testapp, "heidi", DEFAULT_PASSWORD, 429, REMOTE_ADDR=NAT)


def test_a_trusted_address_is_still_limited_for_its_own_guesses(testapp, factories, clients,
                                                                 app_config):
    """Trust only lifts limits others' failures cause: five failures at the trusted address
    itself refuse the account there; trust lapses after seqcore.sign_in.trust_days."""
    from datetime import timedelta

    from sqlalchemy import update as sql_update

    from seqcore.db import utcnow
    from seqcore.models.access_token import SignInSuccess

    factories.user(username="ivan")
    grant(testapp, "ivan", DEFAULT_PASSWORD, 200, REMOTE_ADDR=HOME)
    for _ in range(5):
        grant(testapp, "ivan", "Wrong-pass1", 400, REMOTE_ADDR=HOME)
    grant(testapp, "ivan", DEFAULT_PASSWORD, 429, REMOTE_ADDR=HOME)

    factories.user(username="judy")
    grant(testapp, "judy", DEFAULT_PASSWORD, 200, REMOTE_ADDR=HOME)
    for _ in range(5):
        grant(testapp, "judy", "Wrong-pass1", 400, REMOTE_ADDR=ELSEWHERE)
    days = app_config.registry.settings["seqcore.sign_in.trust_days"]
    with factories.session_factory() as session:
        session.execute(sql_update(SignInSuccess).values(
            last=utcnow() - timedelta(days=days + 1)))
        session.commit()
    grant(testapp, "judy", DEFAULT_PASSWORD, 429, REMOTE_ADDR=HOME)
