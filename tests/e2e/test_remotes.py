"""Remote APIs between two live servers on loopback: the remote (a seqcore playing the IRIDA
install, at ``localhost``) and the install that connects to it (at ``127.0.0.1``, so a
browser keeps the two sessions' cookies apart, as it would for two hosts).

The administrator registers the remote with ``seqcore remotes add``; a person signs in here,
presses Connect, signs in on the remote's consent page and approves, and comes back to the
callback, all over HTTP as a browser does. With the stored token this install reads the
remote's projects and sees only those the remote account may read; an expired token is
refreshed (the old one stops working there); a token revoked there is the clear
``RemoteUnauthorized``; a denial on the consent page is a clear message.

The same remote registered as IRIDA Next (its GraphQL endpoint) is connected with a personal
access token created there and the account's e-mail, checked with the remote before it is
stored; reading GraphQL with it shows only what that account may read."""

from __future__ import annotations

import html
import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, update
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from seqcore.db import utcnow
from seqcore.models.remote import RemoteApi, RemoteAuthorization, RemoteConnection
from seqcore.models.user import User
from seqcore.remotes.connections import RemoteUnauthorized, connection_for, remote_for
from seqcore.testing import database
from seqcore.testing.server import live_server

pytestmark = pytest.mark.slow

PASSWORD = "Remote-pass1!"
LOCAL_PASSWORD = "Local-pass1!"


class Browser:
    """Cookies kept per host (not per port, as browsers keep them), redirects not followed
    so each step can be looked at."""

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), self._NoRedirect())

    def open(self, url: str, form: dict[str, str] | None = None) -> tuple[int, str, str]:
        data = None if form is None else urllib.parse.urlencode(form).encode()
        try:
            with self.opener.open(urllib.request.Request(url, data=data), timeout=60) as res:
                return res.status, res.headers.get("Location", ""), res.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.headers.get("Location", ""), err.read().decode()


def inputs(page: str) -> dict[str, str]:
    """The named inputs of a page's forms with their values (the hidden ones)."""
    found = {}
    for tag in re.findall(r"<input [^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name:
            found[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return found


@pytest.fixture(scope="module")
def installs(tmp_path_factory):
    root = tmp_path_factory.mktemp("remotes")
    remote = live_server(root / "remote", **{
        "sqlalchemy.url": database.test_database_url(root, "remotes_remote"),
        "seqcore.session.secret": "remote-session-secret"})
    local = live_server(root / "local", **{
        "sqlalchemy.url": database.test_database_url(root, "remotes_local"),
        "seqcore.session.secret": "local-session-secret"})
    remote.create_user("admin", PASSWORD, "ROLE_ADMIN")
    remote.create_user("alice", PASSWORD)
    remote.create_user("bob", PASSWORD)
    local.create_user("alice", LOCAL_PASSWORD)
    # The remote API is the first registered here: its callback is /-/remotes/1/callback.
    callback = f"{local.url}/-/remotes/1/callback"
    secret = remote.create_client(
        "downstream", "--grant-type", "authorization_code", "--grant-type", "refresh_token",
        "--scope", "read", "--token-seconds", "600", "--redirect-uri", callback)
    remote.uploader = remote.create_client("uploader")
    remote.start()
    local.start()
    admin = remote.token("uploader", remote.uploader, "admin", PASSWORD)
    for name, member in (("Alice's outbreak", "alice"), ("Hidden survey", None)):
        status, body, _ = remote.request("POST", "/api/projects", admin, {"name": name})
        assert status == 201, body
        if member:
            pid = __import__("json").loads(body)["resource"]["identifier"]
            status, body, _ = remote.request("POST", f"/api/projects/{pid}/users", admin,
                                             {"userId": member, "role": "PROJECT_USER"})
            assert status == 201, body
    remote.base = remote.url.replace("127.0.0.1", "localhost")
    local.secret = secret
    local.callback = callback
    local.engine = create_engine(local_url(local), poolclass=NullPool)
    yield remote, local
    local.engine.dispose()
    local.stop()
    remote.stop()


def local_url(server) -> str:
    text = server.ini.read_text()
    return re.search(r"^sqlalchemy\.url = (.+)$", text, re.MULTILINE).group(1)


def test_register_connect_read_refresh_and_revoke(installs):
    remote, local = installs
    # -- the administrator registers the remote; bad input is refused, nothing written ----
    for bad, message in ((["--base-url", "ftp://x.example.org"], "An absolute http"),
                         (["--base-url", remote.base, "--kind", "irida-next"],
                          "needs its GraphQL endpoint")):
        with pytest.raises(RuntimeError, match=message):
            local.cli("remotes", "add", "--name", "National lab", "--client-id",
                      "downstream", "--client-secret", local.secret, *bad)
    out = local.cli("remotes", "add", "--name", "National lab", "--base-url", remote.base,
                    "--client-id", "downstream", "--client-secret", local.secret,
                    "--description", "The national install")
    assert out.startswith("id: 1\n"), out
    with pytest.raises(RuntimeError, match="exists already"):
        local.cli("remotes", "add", "--name", "national lab", "--base-url", remote.base,
                  "--client-id", "downstream", "--client-secret", local.secret)
    listed = local.cli("remotes", "list")
    assert listed.splitlines() == [f"1\tNational lab\tirida\t{remote.base}\tclient=downstream"]
    assert local.secret not in listed

    # -- alice signs in here and connects: the consent page there, then the callback ------
    browser = Browser()
    status, _, page = browser.open(local.url + "/users/sign_in")
    status, location, _ = browser.open(local.url + "/users/sign_in", {
        "csrf_token": inputs(page)["csrf_token"], "username": "alice",
        "password": LOCAL_PASSWORD, "next": "/-/remotes"})
    assert status == 303, location
    status, _, page = browser.open(local.url + "/-/remotes")
    assert status == 200 and "not connected" in page

    def consent() -> tuple[str, dict[str, str]]:
        """Press Connect; the remote's consent page's form."""
        _, _, page = browser.open(local.url + "/-/remotes")
        status, location, _ = browser.open(local.url + "/-/remotes/1/connect",
                                           {"csrf_token": inputs(page)["csrf_token"]})
        assert status == 303 and location.startswith(remote.base + "/api/oauth/authorize?")
        status, _, page = browser.open(location)
        assert status == 200 and "Authorize downstream" in page, page
        return location, inputs(page)

    # Denied there: a clear message here, nothing stored.
    _, form = consent()
    status, location, _ = browser.open(remote.base + "/api/oauth/authorize",
                                       {**form, "decision": "deny"})
    assert status == 302 and location.startswith(local.callback + "?error=access_denied")
    status, _, page = browser.open(location)
    assert status == 400 and "You did not authorize the connection on National lab." in page
    # Approved with the remote account's password.
    _, form = consent()
    status, location, _ = browser.open(remote.base + "/api/oauth/authorize", {
        **form, "username": "alice", "password": PASSWORD, "decision": "approve"})
    assert status == 302 and location.startswith(local.callback + "?code="), location
    status, back, _ = browser.open(location)
    assert status == 303 and back.endswith("/-/remotes"), back
    _, _, page = browser.open(local.url + "/-/remotes")
    assert "Connected to National lab." in page and "Disconnect" in page
    # The callback works once.
    status, _, page = browser.open(location)
    assert status == 400 and "not started from this browser" in page

    with Session(local.engine) as db:
        alice = db.query(User).filter_by(username="alice").one()
        connection = connection_for(db, 1, alice.id)
        assert connection is not None and connection.refresh_token
        assert utcnow() + timedelta(seconds=500) < connection.expires
        assert db.query(RemoteAuthorization).count() == 0
        assert connection_for(db, 1, alice.id + 100) is None

        # -- reading with the stored token: only what alice may read there -----------------
        names = {p["name"] for p in remote_for(db, connection).get_json(
            "projects")["resource"]["resources"]}
        assert names == {"Alice's outbreak"}

        # -- a token near its end is refreshed, and the new one stored -----------------------
        first = connection.access_token
        connection.expires = utcnow() + timedelta(seconds=30)
        db.commit()
        client = remote_for(db, connection)
        db.commit()
        db.refresh(connection)
        assert connection.access_token != first and client.token == connection.access_token
        assert utcnow() + timedelta(seconds=500) < connection.expires
        assert connection.refreshed is not None
        names = {p["name"] for p in client.get_json("projects")["resource"]["resources"]}
        assert names == {"Alice's outbreak"}
        assert remote.request("GET", "/api/projects", first)[0] == 401
        # A token far from its end is used as it is.
        assert remote_for(db, connection).token == connection.access_token

        # -- revoked there: the clear error, for a request and for a refresh ----------------
        remote.cli("tokens", "revoke", "--user", "alice")
        with pytest.raises(RemoteUnauthorized, match="no longer accepts this connection"):
            remote_for(db, connection).get_json("projects")
        db.execute(update(RemoteConnection).values(expires=utcnow() - timedelta(seconds=1)))
        db.commit()
        db.refresh(connection)
        kept = (connection.access_token, connection.refresh_token)
        with pytest.raises(RemoteUnauthorized,
                           match=r"could not be renewed.*invalid_grant.*Connect again"):
            remote_for(db, connection)
        db.rollback()
        db.refresh(connection)
        assert (connection.access_token, connection.refresh_token) == kept

    # -- disconnecting forgets the connection -------------------------------------------
    _, _, page = browser.open(local.url + "/-/remotes")
    status, _, _ = browser.open(local.url + "/-/remotes/1/disconnect",
                                {"csrf_token": inputs(page)["csrf_token"]})
    assert status == 303
    with Session(local.engine) as db:
        assert db.query(RemoteConnection).count() == 0
        assert db.query(RemoteApi).count() == 1
    assert local.cli("remotes", "delete", "National lab") == "deleted National lab\n"
    with pytest.raises(RuntimeError, match="There is no remote API"):
        local.cli("remotes", "delete", "National lab")


def signed_in_browser(local) -> Browser:
    browser = Browser()
    _, _, page = browser.open(local.url + "/users/sign_in")
    status, location, _ = browser.open(local.url + "/users/sign_in", {
        "csrf_token": inputs(page)["csrf_token"], "username": "alice",
        "password": LOCAL_PASSWORD, "next": "/-/remotes"})
    assert status == 303, location
    return browser


def test_connect_to_irida_next_with_a_personal_access_token(installs):
    remote, local = installs
    out = local.cli("remotes", "add", "--name", "Next lab", "--base-url", remote.base,
                    "--kind", "irida-next", "--graphql-url", remote.base + "/api/graphql",
                    "--client-id", "unused", "--client-secret", "unused")
    remote_id = int(re.match(r"id: (\d+)", out).group(1))
    token = remote.cli("tokens", "create", "alice", "--name", "to Next lab").strip()
    bobs = remote.cli("tokens", "create", "bob").strip()
    browser = signed_in_browser(local)
    connect = f"{local.url}/-/remotes/{remote_id}/connect"

    def submit(email: str, secret: str) -> tuple[int, str]:
        _, _, page = browser.open(local.url + "/-/remotes")
        assert 'name="token"' in page
        status, _, answer = browser.open(connect, {"csrf_token": inputs(page)["csrf_token"],
                                                   "email": email, "token": secret})
        return status, answer

    # Refused: a wrong token, another account's token, empty fields; nothing stored.
    for email, secret in (("alice@example.org", token[:-2] + "xx"),
                          ("alice@example.org", bobs), ("bob@example.org", token)):
        status, page = submit(email, secret)
        assert status == 400 and "Next lab did not accept this e-mail and token" in page, page
    status, page = submit("alice@example.org", "")
    assert status == 400 and "Give both the e-mail" in page
    with Session(local.engine) as db:
        assert db.query(RemoteConnection).filter_by(remote_api_id=remote_id).count() == 0

    # Accepted: stored with the e-mail the remote named.
    status, _ = submit("Alice@example.org", token)
    assert status == 303
    _, _, page = browser.open(local.url + "/-/remotes")
    assert "Connected to Next lab." in page
    assert "as alice@example.org, with a personal access token" in page
    with Session(local.engine) as db:
        alice = db.query(User).filter_by(username="alice").one()
        connection = connection_for(db, remote_id, alice.id)
        assert connection is not None and connection.remote_login == "alice@example.org"
        assert connection.access_token == token and connection.refresh_token is None
        assert connection.expires is None
        client = remote_for(db, connection)
        data = client.graphql("{ projects { nodes { name } } currentUser { email } }")
        assert {p["name"] for p in data["projects"]["nodes"]} == {"Alice's outbreak"}
        assert data["currentUser"]["email"] == "alice@example.org"
        # Revoked there: the clear error.
        remote.cli("tokens", "revoke", "--user", "alice")
        with pytest.raises(RemoteUnauthorized, match="no longer accepts this connection"):
            client.graphql("{ currentUser { email } }")

    # Disconnecting forgets it (the page says it cannot be revoked from here).
    _, _, page = browser.open(local.url + "/-/remotes")
    assert "cannot revoke it there" in page
    status, _, _ = browser.open(f"{local.url}/-/remotes/{remote_id}/disconnect",
                                {"csrf_token": inputs(page)["csrf_token"]})
    assert status == 303
    with Session(local.engine) as db:
        assert db.query(RemoteConnection).filter_by(remote_api_id=remote_id).count() == 0
