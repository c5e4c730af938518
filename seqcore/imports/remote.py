"""HTTP to the install an import reads: an OAuth2 bearer token, JSON answers, files streamed
in blocks.

The standard library's client is enough here (one connection at a time, no HTTP/2), so an
import needs no dependency beyond the server's own.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

BLOCK = 1 << 20


class RemoteError(Exception):
    """The other install refused or failed a request; the message says which and why, and
    ``status`` the HTTP status it answered (``None`` when it could not be reached)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def api_root(url: str) -> str:
    """The base URL of an install's REST API (``.../api``), from its URL with or without
    ``/api``."""
    base = url.rstrip("/")
    return base if base.endswith("/api") else base + "/api"


class Remote:
    """One install read with one credential: a bearer token given (``token``) or obtained
    with the OAuth2 password grant as IRIDA's clients do (client id and secret, user name and
    password) from ``/api/oauth/token``; or, with ``basic``, a personal access token sent
    as IRIDA Next's clients send it (``Authorization: Basic`` of ``e-mail:token``)."""

    def __init__(self, url: str, *, token: str | None = None, client_id: str | None = None,
                 client_secret: str | None = None, username: str | None = None,
                 password: str | None = None, basic: bool = False,
                 timeout: float = 120) -> None:
        self.api = api_root(url)
        self.base = self.api[: -len("/api")]
        self.timeout = timeout
        self._token = token
        self._grant = (client_id, client_secret, username, password)
        self._authorization: str | None = None
        if basic and token and username:
            pair = base64.b64encode(f"{username}:{token}".encode()).decode()
            self._authorization = f"Basic {pair}"

    @property
    def token(self) -> str:
        if self._token is None:
            client_id, secret, username, password = self._grant
            if not (client_id and username and password):
                raise RemoteError("give a token, or a client id, user name and password")
            form = urllib.parse.urlencode({
                "grant_type": "password", "client_id": client_id,
                "client_secret": secret or "", "username": username,
                "password": password}).encode()
            answer = self._open(urllib.request.Request(f"{self.api}/oauth/token", form))
            with answer:
                self._token = str(json.loads(answer.read())["access_token"])
        return self._token

    def url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self.api + "/" + path_or_url.lstrip("/")

    def _open(self, req: urllib.request.Request) -> Any:
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as err:
            body = err.read()[:300].decode("utf-8", "replace")
            raise RemoteError(f"{req.get_method()} {req.full_url}: {err.code} {body}",
                              status=err.code) from None
        except (urllib.error.URLError, OSError) as err:
            raise RemoteError(f"{req.get_method()} {req.full_url}: {err}") from None

    def _request(self, url: str, accept: str, data: bytes | None = None,
                 content_type: str | None = None) -> urllib.request.Request:
        headers = {"Authorization": self._authorization or f"Bearer {self.token}",
                   "Accept": accept}
        if content_type:
            headers["Content-Type"] = content_type
        return urllib.request.Request(self.url(url), data=data, headers=headers)

    def get_json(self, path_or_url: str) -> Any:
        with self._open(self._request(path_or_url, "application/json")) as answer:
            return json.loads(answer.read())

    def get_json_or_none(self, path_or_url: str) -> Any:
        """The answer, or ``None`` when the install answers 404 (a file kind it lacks)."""
        try:
            return self.get_json(path_or_url)
        except RemoteError as err:
            if ": 404 " in str(err):
                return None
            raise

    def post_json(self, url: str, body: Any) -> Any:
        req = self._request(url, "application/json", json.dumps(body).encode(),
                            "application/json")
        with self._open(req) as answer:
            return json.loads(answer.read())

    def stream(self, path_or_url: str, accept: str, sink: Callable[[bytes], None]) -> int:
        """Read a file's bytes into ``sink`` block by block; the number of bytes."""
        total = 0
        with self._open(self._request(path_or_url, accept)) as answer:
            while True:
                block = answer.read(BLOCK)
                if not block:
                    return total
                sink(block)
                total += len(block)


def resources(answer: Any) -> list[dict[str, Any]]:
    """The entries of an IRIDA collection answer (``{"resource": {"resources": [...]}}``)."""
    return list(answer["resource"]["resources"])


def link(entry: dict[str, Any], rel: str) -> str | None:
    return next((item["href"] for item in entry.get("links", []) if item["rel"] == rel), None)
