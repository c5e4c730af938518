"""The remote API pages through WebTest: administrators register, change and delete remote
APIs at ``/-/admin/remotes`` (nobody else may); each person connects at ``/-/remotes``,
where Connect sends the browser to the remote's consent page with a state and a PKCE S256
challenge, and a callback that was denied, forged, stale or cannot reach the remote is a clear
message that stores nothing. The whole flow against a live remote is
``tests/e2e/test_remotes.py``."""

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest

from seqcore.models.remote import RemoteApi, RemoteAuthorization, RemoteConnection
from seqcore.models.user import SystemRole
from seqcore.testing.server import free_port
from tests.web.test_manage_pages import form_with, sign_in, token_of


@pytest.fixture
def admin(factories):
    return factories.user(role=SystemRole.ADMIN)


@pytest.fixture
def remote(db):
    """A remote API on a loopback port nothing listens on."""
    made = RemoteApi(name="National lab", base_url=f"http://127.0.0.1:{free_port()}",
                     client_id="national", client_secret="national-secret")
    db.add(made)
    db.commit()
    return made


def test_register_change_and_delete_a_remote_api(testapp, db, admin):
    sign_in(testapp, admin)
    page = testapp.get("/-/admin/remotes")
    assert page.html.find("nav", {"aria-label": "Main"}).find("a", href="/-/admin/remotes")
    form = form_with(page, "/-/admin/remotes")
    form["name"] = "National lab"
    form["base_url"] = "not a url"
    form["kind"] = "irida-next"
    refused = form.submit(status=400)
    assert "An absolute http:// or https:// URL is needed, with a host." in refused.text
    assert "An IRIDA Next remote needs its GraphQL endpoint." in refused.text
    assert "A remote API needs a clientId." in refused.text
    assert db.query(RemoteApi).count() == 0
    form = form_with(refused, "/-/admin/remotes")
    assert form["name"].value == "National lab"  # what was typed comes back
    form["base_url"] = "https://irida.example.org"
    form["kind"] = "irida"
    form["client_id"] = "seqcore"
    form["client_secret"] = "the-secret"
    done = form.submit(status=303).follow()
    remote = db.query(RemoteApi).one()
    assert (remote.name, remote.base_url, remote.client_secret) == (
        "National lab", "https://irida.example.org", "the-secret")
    callback = f"http://localhost/-/remotes/{remote.id}/callback"
    assert f"redirect URI {callback}" in done.text
    assert callback in done.text and "the-secret" not in done.text
    # A taken name: 409, nothing added.
    form = form_with(done, "/-/admin/remotes")
    for field, value in (("name", "national LAB"), ("base_url", "https://x.example.org"),
                         ("client_id", "c"), ("client_secret", "s")):
        form[field] = value
    assert "exists already" in form.submit(status=409).text
    # Changing: an empty secret keeps the secret.
    edit = testapp.get(f"/-/admin/remotes/{remote.id}")
    assert "the-secret" not in edit.text
    form = form_with(edit, f"/-/admin/remotes/{remote.id}")
    assert form["client_secret"].value == ""
    form["description"] = "Provincial to national"
    form["base_url"] = "ftp://irida.example.org"
    assert "An absolute http" in form.submit(status=400).text
    form["base_url"] = "https://irida2.example.org/"
    form.submit(status=303)
    db.expire_all()
    assert (remote.base_url, remote.description, remote.client_secret) == (
        "https://irida2.example.org", "Provincial to national", "the-secret")
    # Without the CSRF token nothing is deleted.
    testapp.post(f"/-/admin/remotes/{remote.id}/delete", {}, status=400)
    page = testapp.get("/-/admin/remotes")
    form_with(page, f"/-/admin/remotes/{remote.id}/delete").submit(status=303)
    assert db.query(RemoteApi).count() == 0
    testapp.post(f"/-/admin/remotes/{remote.id}/delete", {"csrf_token": token_of(page)},
                 status=404)


def test_the_register_is_for_administrators(testapp, db, factories, remote):
    for role in (SystemRole.USER, SystemRole.MANAGER):
        sign_in(testapp, factories.user(role=role))
        page = testapp.get("/-/remotes")
        nav = page.html.find("nav", {"aria-label": "Main"})
        assert nav.find("a", href="/-/remotes")
        assert not nav.find("a", href="/-/admin/remotes")
        testapp.get("/-/admin/remotes", status=403)
        testapp.get(f"/-/admin/remotes/{remote.id}", status=403)
        token = token_of(page)
        testapp.post("/-/admin/remotes", {"csrf_token": token, "name": "Mine",
                                          "base_url": "https://x.example.org",
                                          "client_id": "x", "client_secret": "y"}, status=403)
        testapp.post(f"/-/admin/remotes/{remote.id}", {"csrf_token": token, "name": "Mine"},
                     status=403)
        testapp.post(f"/-/admin/remotes/{remote.id}/delete", {"csrf_token": token},
                     status=403)
    testapp.reset()
    assert "/users/sign_in" in testapp.get("/-/admin/remotes", status=302).location
    assert "/users/sign_in" in testapp.get("/-/remotes", status=302).location
    db.expire_all()
    assert [r.name for r in db.query(RemoteApi)] == ["National lab"]


def _connect(testapp, remote):
    """Press Connect; the remote's consent page URL's query."""
    page = testapp.get("/-/remotes")
    assert "not connected" in page.text
    sent = form_with(page, f"/-/remotes/{remote.id}/connect").submit(status=303)
    location = urlsplit(sent.location)
    assert f"{location.scheme}://{location.netloc}" == remote.base_url
    assert location.path == "/api/oauth/authorize"
    return {key: values[0] for key, values in parse_qs(location.query).items()}


def test_connect_sends_the_browser_to_the_consent_page_with_pkce(testapp, db, factories,
                                                                  remote):
    user = factories.user()
    sign_in(testapp, user)
    query = _connect(testapp, remote)
    assert query["response_type"] == "code" and query["client_id"] == "national"
    assert query["redirect_uri"] == f"http://localhost/-/remotes/{remote.id}/callback"
    assert query["scope"] == "read" and query["code_challenge_method"] == "S256"
    pending = db.query(RemoteAuthorization).one()
    assert pending.user_id == user.id and pending.state_hash != query["state"]
    # The verifier stays here; only its S256 challenge went out.
    challenge = base64.urlsafe_b64encode(hashlib.sha256(
        pending.code_verifier.encode()).digest()).decode().rstrip("=")
    assert query["code_challenge"] == challenge
    assert pending.code_verifier not in str(query)
    # Connect needs the CSRF token.
    testapp.post(f"/-/remotes/{remote.id}/connect", {}, status=400)
    testapp.post(f"/-/remotes/{remote.id + 1}/connect",
                 {"csrf_token": token_of(testapp.get("/-/remotes"))}, status=404)


def test_refused_callbacks_say_why_and_store_nothing(testapp, db, factories, remote):
    user = factories.user()
    sign_in(testapp, user)
    callback = f"/-/remotes/{remote.id}/callback"
    # Denied on the remote.
    state = _connect(testapp, remote)["state"]
    res = testapp.get(callback, {"error": "access_denied", "state": state}, status=400)
    assert "You did not authorize the connection on National lab." in res.text
    # A state this browser was not given (another's link), or none.
    _connect(testapp, remote)
    res = testapp.get(callback, {"code": "x", "state": "forged"}, status=400)
    assert "not started from this browser" in res.text
    testapp.get(callback, {"code": "x"}, status=400)
    # The state is used once: the same callback again is refused.
    state = _connect(testapp, remote)["state"]
    res = testapp.get(callback, {"code": "x", "state": state}, status=502)
    assert "National lab could not be reached at" in res.text
    assert "The connection was not made:" in res.text
    res = testapp.get(callback, {"code": "x", "state": state}, status=400)
    assert "not started from this browser" in res.text
    # Another account's browser cannot finish this one's authorization.
    state = _connect(testapp, remote)["state"]
    other = factories.user()
    sign_in(testapp, other)
    testapp.get(callback, {"code": "x", "state": state}, status=400)
    db.expire_all()
    assert db.query(RemoteConnection).count() == 0


def test_disconnect_forgets_the_tokens(testapp, db, factories, remote):
    user = factories.user()
    db.add(RemoteConnection(remote_api_id=remote.id, user_id=user.id, access_token="a",
                            refresh_token="r"))
    db.commit()
    sign_in(testapp, user)
    page = testapp.get("/-/remotes")
    assert "connected" in page.text and "not connected" not in page.text
    testapp.post(f"/-/remotes/{remote.id}/disconnect", {}, status=400)
    done = form_with(page, f"/-/remotes/{remote.id}/disconnect").submit(status=303).follow()
    assert "Disconnected from National lab." in done.text
    db.expire_all()
    assert db.query(RemoteConnection).count() == 0


@pytest.fixture
def next_remote(db):
    """An IRIDA Next remote on a loopback port nothing listens on."""
    port = free_port()
    made = RemoteApi(name="Next lab", base_url=f"http://127.0.0.1:{port}", kind="irida-next",
                     graphql_url=f"http://127.0.0.1:{port}/api/graphql",
                     client_id="unused", client_secret="unused")
    db.add(made)
    db.commit()
    return made


def test_irida_next_connect_asks_for_a_personal_access_token(testapp, db, factories,
                                                              next_remote):
    user = factories.user()
    sign_in(testapp, user)
    page = testapp.get("/-/remotes")
    assert "cannot revoke it there" in page.text
    form = form_with(page, f"/-/remotes/{next_remote.id}/connect")
    assert form["token"].attrs["type"] == "password"
    assert page.html.find("label", {"for": f"remote-email-{next_remote.id}"})
    assert page.html.find("label", {"for": f"remote-token-{next_remote.id}"})
    # Empty fields: a clear message, nothing asked of the remote nor stored.
    for email, token in (("", ""), ("alice@example.org", " "), ("", "tok")):
        form["email"], form["token"] = email, token
        res = form.submit(status=400)
        assert "Give both the e-mail of your account there and a personal access token" \
            in res.text
    form["email"], form["token"] = "alice@example.org", "x" * 1025
    assert "too long" in form.submit(status=400).text
    # The remote cannot be reached: 502, nothing stored, no OAuth authorization begun.
    form["email"], form["token"] = "alice@example.org", "a-token"
    res = form.submit(status=502)
    assert "The connection was not made:" in res.text and "Next lab could not be reached" \
        in res.text
    # Without the CSRF token: refused.
    testapp.post(f"/-/remotes/{next_remote.id}/connect",
                 {"email": "alice@example.org", "token": "a-token"}, status=400)
    db.expire_all()
    assert db.query(RemoteConnection).count() == 0
    assert db.query(RemoteAuthorization).count() == 0


def test_an_irida_next_connection_shows_its_account_and_is_forgotten(testapp, db, factories,
                                                                     next_remote):
    user = factories.user()
    db.add(RemoteConnection(remote_api_id=next_remote.id, user_id=user.id,
                            access_token="a-token", remote_login="alice@example.org"))
    db.commit()
    sign_in(testapp, user)
    page = testapp.get("/-/remotes")
    assert "as alice@example.org, with a personal access token" in page.text
    assert "a-token" not in page.text
    done = form_with(page, f"/-/remotes/{next_remote.id}/disconnect").submit(status=303)
    assert "Disconnected from Next lab." in done.follow().text
    db.expire_all()
    assert db.query(RemoteConnection).count() == 0
