"""HTTP to the install an import reads: an OAuth2 bearer token, JSON answers, files streamed
in blocks, over connections kept open.

The standard library's :mod:`http.client` is enough here, so an import needs no dependency
beyond the server's own. ``urllib`` is not used because it opens a new connection for every
request: an import makes thousands of small requests (a few listings and two files per
sample), and a new TCP connection each time costs both sides more than the request itself.
Each thread keeps its own connection to each host (:class:`Connections`), opened on first
use and opened again when the other side has closed it.
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

BLOCK = 1 << 20
#: Redirects followed for one request (a download answered by a signed URL of a store).
REDIRECTS = 5
# What a kept connection the other side closed meanwhile raises on its next request: the
# request is sent again once, on a new connection.
STALE = (http.client.RemoteDisconnected, http.client.CannotSendRequest,
         http.client.BadStatusLine, ConnectionResetError, BrokenPipeError)


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


class Connections:
    """One kept-alive connection per thread and host (scheme, host, port)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._local = threading.local()
        self._all: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def get(self, scheme: str, netloc: str, fresh: bool = False) -> http.client.HTTPConnection:
        kept: dict[tuple[str, str], http.client.HTTPConnection] = self._local.__dict__.setdefault(
            "kept", {})
        conn = kept.get((scheme, netloc))
        if conn is not None and fresh:
            conn.close()
            conn = None
        if conn is None:
            if scheme == "https":
                conn = http.client.HTTPSConnection(netloc, timeout=self.timeout,
                                                   context=ssl.create_default_context())
            else:
                conn = http.client.HTTPConnection(netloc, timeout=self.timeout)
            kept[(scheme, netloc)] = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection of every thread."""
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()


class Remote:
    """One install read with one credential: a bearer token given (``token``) or obtained
    with the OAuth2 password grant as IRIDA's clients do (client id and secret, user name and
    password) from ``/api/oauth/token``; or, with ``basic``, a personal access token sent
    as IRIDA Next's clients send it (``Authorization: Basic`` of ``e-mail:token``).

    Safe to use from several threads at once: each has its own connections."""

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
        self.connections = Connections(timeout)
        self._token_lock = threading.Lock()
        if basic and token and username:
            pair = base64.b64encode(f"{username}:{token}".encode()).decode()
            self._authorization = f"Basic {pair}"

    @property
    def token(self) -> str:
        with self._token_lock:
            if self._token is None:
                client_id, secret, username, password = self._grant
                if not (client_id and username and password):
                    raise RemoteError("give a token, or a client id, user name and password")
                form = urllib.parse.urlencode({
                    "grant_type": "password", "client_id": client_id,
                    "client_secret": secret or "", "username": username,
                    "password": password}).encode()
                with self._open("POST", f"{self.api}/oauth/token", {
                        "Content-Type": "application/x-www-form-urlencoded",
                        "Accept": "application/json"}, form) as answer:
                    self._token = str(json.loads(answer.read())["access_token"])
            return self._token

    def url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self.api + "/" + path_or_url.lstrip("/")

    def close(self) -> None:
        """Close the connections kept open (they close with the process otherwise)."""
        self.connections.close()

    def _headers(self, accept: str, content_type: str | None = None) -> dict[str, str]:
        headers = {"Authorization": self._authorization or f"Bearer {self.token}",
                   "Accept": accept}
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    @contextmanager
    def _open(self, method: str, url: str, headers: dict[str, str],
              body: bytes | None = None) -> Iterator[http.client.HTTPResponse]:
        """The answer to one request, its status checked (:class:`RemoteError` for 4xx and
        5xx, or when the other install cannot be reached); redirects followed, without the
        credential when they lead to another host. The answer must be read to its end
        inside the block so that its connection can serve the next request."""
        origin = urllib.parse.urlsplit(url)[:2]
        for _ in range(REDIRECTS + 1):
            answer = self._send(method, url, headers, body)
            if answer.status in (301, 302, 303, 307, 308) and answer.getheader("Location"):
                answer.read()
                url = urllib.parse.urljoin(url, answer.getheader("Location", ""))
                if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
                    method, body = "GET", None
                if urllib.parse.urlsplit(url)[:2] != origin:
                    headers = {k: v for k, v in headers.items() if k != "Authorization"}
                continue
            if answer.status >= 400:
                # Read whole, so that the connection can serve the next request.
                text = answer.read()[:300].decode("utf-8", "replace")
                raise RemoteError(f"{method} {url}: {answer.status} {text}", status=answer.status)
            try:
                yield answer
            except BaseException:
                answer.close()  # not read to its end: its connection cannot be reused
                raise
            return
        raise RemoteError(f"{method} {url}: more than {REDIRECTS} redirects")

    def _send(self, method: str, url: str, headers: dict[str, str], body: bytes | None
              ) -> http.client.HTTPResponse:
        parts = urllib.parse.urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        for attempt in (1, 2):
            conn = self.connections.get(parts.scheme, parts.netloc, fresh=attempt == 2)
            try:
                conn.request(method, target or "/", body=body, headers=headers)
                return conn.getresponse()
            except STALE as err:
                conn.close()
                if attempt == 2:
                    raise RemoteError(f"{method} {url}: {err!r}") from None
            except (OSError, http.client.HTTPException) as err:
                conn.close()
                raise RemoteError(f"{method} {url}: {err!r}") from None
        raise AssertionError("unreachable")

    def get_json(self, path_or_url: str) -> Any:
        with self._open("GET", self.url(path_or_url),
                        self._headers("application/json")) as answer:
            return json.loads(answer.read())

    def get_json_or_none(self, path_or_url: str) -> Any:
        """The answer, or ``None`` when the install answers 404 (a file kind it lacks)."""
        try:
            return self.get_json(path_or_url)
        except RemoteError as err:
            if err.status == 404:
                return None
            raise

    def post_json(self, url: str, body: Any) -> Any:
        with self._open("POST", self.url(url),
                        self._headers("application/json", "application/json"),
                        json.dumps(body).encode()) as answer:
            return json.loads(answer.read())

    def stream(self, path_or_url: str, accept: str, sink: Callable[[bytes], None]) -> int:
        """Read a file's bytes into ``sink`` block by block; the number of bytes."""
        total = 0
        try:
            with self._open("GET", self.url(path_or_url), self._headers(accept)) as answer:
                while True:
                    block = answer.read(BLOCK)
                    if not block:
                        return total
                    sink(block)
                    total += len(block)
        except (OSError, http.client.HTTPException) as err:  # cut short mid-file
            raise RemoteError(f"GET {self.url(path_or_url)}: {err!r}") from None


def resources(answer: Any) -> list[dict[str, Any]]:
    """The entries of an IRIDA collection answer (``{"resource": {"resources": [...]}}``)."""
    return list(answer["resource"]["resources"])


def link(entry: dict[str, Any], rel: str) -> str | None:
    return next((item["href"] for item in entry.get("links", []) if item["rel"] == rel), None)
