"""A real OAuth client library (Authlib, from PyPI, unchanged) against a real seqcore server
on loopback: it discovers the endpoints from the server metadata (RFC 8414), signs in with
the password grant, introspects (RFC 7662) as the owning client and as a resource server,
refreshes and revokes (RFC 7009)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from seqcore.testing.server import live_server
from tests.e2e.client_venvs import client_program

AUTHLIB = "authlib==1.9.10"
PASSWORD = "Client-pass1!"

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.database_independent]

# Runs inside Authlib's virtualenv; prints what each step answered, as JSON.
SCRIPT = r"""
import json, sys
import requests
from authlib.integrations.requests_client import OAuth2Session

base, secret, reports_secret, password = sys.argv[1:]
meta = requests.get(base + "/.well-known/oauth-authorization-server").json()
out = {"meta": meta}
uploader = OAuth2Session("uploader", secret, scope="read write",
                         token_endpoint_auth_method="client_secret_basic")
token = uploader.fetch_token(meta["token_endpoint"], grant_type="password",
                             username="alice", password=password)
out["api"] = uploader.get(base + "/api/users/current").json()["resource"]["username"]
introspect = meta["introspection_endpoint"]
out["own"] = uploader.introspect_token(introspect, token=token["access_token"]).json()
out["own_refresh"] = uploader.introspect_token(
    introspect, token=token["refresh_token"], token_type_hint="refresh_token").json()
reports = OAuth2Session("reports", reports_secret,
                        token_endpoint_auth_method="client_secret_post")
out["resource_server"] = reports.introspect_token(introspect,
                                                  token=token["access_token"]).json()
stranger = OAuth2Session("stranger", reports_secret,
                         token_endpoint_auth_method="client_secret_post")
response = stranger.introspect_token(introspect, token=token["access_token"])
out["bad_client"] = [response.status_code, response.json()]
new = uploader.refresh_token(meta["token_endpoint"], refresh_token=token["refresh_token"])
out["old_after_refresh"] = reports.introspect_token(introspect,
                                                    token=token["access_token"]).json()
out["new"] = reports.introspect_token(introspect, token=new["access_token"]).json()
uploader.revoke_token(meta["revocation_endpoint"], token=new["access_token"])
out["revoked"] = reports.introspect_token(introspect, token=new["access_token"]).json()
print(json.dumps(out))
"""


def authlib_python() -> Path:
    """Authlib in a virtualenv of its own (made once; its pins are not seqcore's)."""
    return client_program(AUTHLIB, "python", "requests")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = live_server(tmp_path_factory.mktemp("server"),
                      **{"seqcore.oauth.resource_servers": "reports"})
    srv.create_user("alice", PASSWORD)
    srv.uploader_secret = srv.create_client("uploader")
    srv.reports_secret = srv.create_client("reports", "--scope", "read")
    srv.start()
    yield srv
    srv.stop()


def test_authlib_discovers_introspects_refreshes_and_revokes(server):
    done = subprocess.run([str(authlib_python()), "-c", SCRIPT, server.url,
                           server.uploader_secret, server.reports_secret, PASSWORD],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["meta"]["issuer"] == server.url
    assert out["meta"]["introspection_endpoint"] == server.url + "/api/oauth/introspect"
    assert out["api"] == "alice"
    own = out["own"]
    assert own["active"] is True
    assert (own["client_id"], own["username"], own["token_type"], own["scope"]) == (
        "uploader", "alice", "bearer", "read write")
    assert own["exp"] - own["iat"] == 43200
    assert out["own_refresh"]["active"] is True
    assert "token_type" not in out["own_refresh"]
    assert out["resource_server"] == own  # the resource server sees the same claims
    assert out["bad_client"] == [401, {"error": "invalid_client"}]
    assert out["old_after_refresh"] == {"active": False}
    assert out["new"]["active"] is True
    assert out["new"]["client_id"] == "uploader"
    assert out["revoked"] == {"active": False}
