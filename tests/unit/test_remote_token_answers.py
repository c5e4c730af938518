"""What a person connecting to a remote is told about each kind of answer from its token
endpoint: the tokens and their lifetime, an OAuth2 refusal with its code and description,
and an answer that is not OAuth2's at all (a proxy's error page). The token endpoint is a
real HTTP server on loopback that answers what each case needs."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import urllib.parse
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from seqcore.db import utcnow
from seqcore.models.remote import RemoteApi
from seqcore.remotes.authorization import (
    AuthorizationFailed,
    client_of,
    pkce_pair,
    refreshed_tokens,
)

pytestmark = pytest.mark.database_independent


class TokenEndpoint(BaseHTTPRequestHandler):
    #: (status, content type, body) to answer next; the last form received.
    answer: tuple[int, str, bytes] = (200, "application/json", b"{}")
    received: dict[str, list[str]] = {}

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        type(self).received = urllib.parse.parse_qs(self.rfile.read(length).decode())
        status, content_type, body = self.answer
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteApi]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), TokenEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield RemoteApi(name="National", base_url=f"http://127.0.0.1:{server.server_port}/",
                    client_id="lab", client_secret="s3cret")
    server.shutdown()


def answer(status: int, body: dict | str, content_type: str = "application/json") -> None:
    raw = body if isinstance(body, str) else json.dumps(body)
    TokenEndpoint.answer = (status, content_type, raw.encode())


def test_a_refresh_sends_the_client_and_reads_the_tokens_and_their_lifetime(remote):
    answer(200, {"access_token": "new", "refresh_token": "next", "token_type": "bearer",
                 "expires_in": "3600", "scope": "read write"})
    tokens = refreshed_tokens(remote, "old")
    assert TokenEndpoint.received == {
        "grant_type": ["refresh_token"], "refresh_token": ["old"], "client_id": ["lab"],
        "client_secret": ["s3cret"]}
    assert (tokens.access_token, tokens.refresh_token) == ("new", "next")
    assert tokens.expires is not None
    assert abs(tokens.expires - (utcnow() + timedelta(hours=1))) < timedelta(seconds=30)


def test_a_remote_that_keeps_its_refresh_token_and_sets_no_lifetime(remote):
    answer(200, {"access_token": "new", "token_type": "bearer"})
    tokens = refreshed_tokens(remote, "old")
    assert (tokens.access_token, tokens.refresh_token, tokens.expires) == ("new", None, None)


def test_an_oauth2_refusal_is_named_with_its_description(remote):
    answer(400, {"error": "invalid_grant", "error_description": "Refresh token expired"})
    with pytest.raises(AuthorizationFailed, match=r"^National refused the token request "
                       r"\(invalid_grant: Refresh token expired\)\.$"):
        refreshed_tokens(remote, "old")


def test_a_wrong_client_secret_says_where_to_look(remote):
    answer(401, {"error": "invalid_client"})
    with pytest.raises(AuthorizationFailed, match=r"invalid_client \(check the client id "
                       r"and secret registered for it here\)"):
        refreshed_tokens(remote, "old")


@pytest.mark.parametrize("status, body, content_type", [
    (502, "<html><body>Bad Gateway</body></html>", "text/html"),
    (200, {"token_type": "bearer"}, "application/json"),
    (200, {"access_token": "new", "expires_in": "soon"}, "application/json"),
])
def test_an_answer_that_is_not_oauth2s_is_quoted(remote, status, body, content_type):
    answer(status, body, content_type)
    with pytest.raises(AuthorizationFailed,
                       match=rf"^National answered the token request with {status}: '"):
        refreshed_tokens(remote, "old")


def test_the_pkce_challenge_is_the_verifiers_s256():
    verifier, challenge = pkce_pair(client_of(RemoteApi(client_id="lab")))
    assert 43 <= len(verifier) <= 128
    assert set(verifier) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789-._~")
    assert challenge == base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
