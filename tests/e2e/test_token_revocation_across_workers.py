"""A revoked token stops working at once on every worker, though each worker caches token
checks: two real server processes on loopback share one database (SQLite, or PostgreSQL
when ``SEQCORE_TEST_DATABASE_URL`` is set); what one of them revokes, the other refuses on
the very next request."""

from __future__ import annotations

import json
import os
import urllib.parse
import urllib.request

import pytest

from seqcore.testing import database
from seqcore.testing.server import LiveServer, free_port, live_server

pytestmark = pytest.mark.slow

# Long enough that only the revocation generation can explain a refusal within the test.
CACHE_SECONDS = "600"


# Each test has an account and a client of its own (it disables or revokes them), so the two
# servers are started once for the module.
CLIENTS = ("client-token", "client-account", "client-cli")
USERS = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("revocation")
    settings = {"seqcore.oauth.token_cache_seconds": CACHE_SECONDS,
                "seqcore.worker.embedded": "false",
                "seqcore.session.secret": "revocation-test-secret"}
    if os.environ.get(database.URL_VARIABLE):
        settings["sqlalchemy.url"] = database.test_database_url(tmp_path, "revocation")
    first = live_server(tmp_path / "first", **settings)
    # The second server: the same ini (same database), another port.
    port = free_port()
    ini = tmp_path / "second.ini"
    ini.write_text(first.ini.read_text().replace(f"port = {first.port}", f"port = {port}"))
    second = LiveServer(tmp_path, port, ini)
    first.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    for name in USERS:
        first.create_user(name, "Alice-pass1!")
    first.secrets = {client: first.create_client(client) for client in CLIENTS}
    first.start()
    second.start()
    yield first, second
    first.stop()
    second.stop()


def _revoke(server: LiveServer, token: str, client: str) -> None:
    form = urllib.parse.urlencode({"token": token, "client_id": client,
                                   "client_secret": server.secrets[client]}).encode()
    with urllib.request.urlopen(f"{server.url}/api/oauth/revoke", form) as res:
        assert res.status == 200


def _warm(token: str, *servers: LiveServer) -> None:
    """Each server checks the token twice: the second answer comes from its cache."""
    for server in servers:
        for _ in range(2):
            status, body, _ = server.request("GET", "/api/projects", token)
            assert status == 200, body


def test_a_token_revoked_on_one_worker_is_refused_by_the_other(servers):
    first, second = servers
    token = first.token("client-token", first.secrets["client-token"], "alice", "Alice-pass1!")
    _warm(token, first, second)
    _revoke(first, token, "client-token")
    status, body, headers = second.request("GET", "/api/projects", token)
    assert status == 401
    assert json.loads(body)["message"] == "The access token has been revoked."
    challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token"')
    status, _, _ = first.request("GET", "/api/projects", token)
    assert status == 401


def test_an_account_disabled_on_one_worker_is_refused_by_the_other(servers):
    first, second = servers
    secret = first.secrets["client-account"]
    admin = first.token("client-account", secret, "admin", "Admin-pass1!")
    token = first.token("client-account", secret, "bob", "Alice-pass1!")
    _warm(token, first, second)
    bob = second.get_json("/api/users/current", token)["resource"]["identifier"]
    status, body, _ = first.request("PATCH", f"/api/users/{bob}", admin, {"enabled": False})
    assert status == 200, body
    status, body, _ = second.request("GET", "/api/projects", token)
    assert status == 401
    assert json.loads(body)["message"] == "The account is disabled."
    # Other accounts' cached checks still answer (only a change refuses, not the cache).
    status, _, _ = second.request("GET", "/api/projects", admin)
    assert status == 200


def test_a_client_revoked_from_the_command_line_is_refused_by_both(servers):
    first, second = servers
    token = first.token("client-cli", first.secrets["client-cli"], "carol", "Alice-pass1!")
    _warm(token, first, second)
    first.cli("clients", "revoke", "client-cli")
    for server in (first, second):
        status, body, _ = server.request("GET", "/api/projects", token)
        assert status == 401, body
