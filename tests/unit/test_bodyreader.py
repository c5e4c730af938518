"""Upload bodies under gunicorn are read from the socket after what gunicorn has buffered:
every byte arrives once and in order, a pipelined request after the body still parses, and a
connection whose body was not read to its end is never reused."""

from __future__ import annotations

import io
import os
import socket
import threading
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.http import get_parser
from gunicorn.http.wsgi import create
from pyramid.request import Request

from seqcore.rest.bodyreader import body_reader

pytestmark = pytest.mark.database_independent


def _request(head_and_body: bytes, then: bytes = b"", pause_after: int | None = None):
    """Send a request over a socket pair (in a thread, so large bodies don't block) and
    parse it with gunicorn's own parser and WSGI environ builder."""
    server_sock, client_sock = socket.socketpair()

    def send() -> None:
        try:
            if pause_after is None:
                client_sock.sendall(head_and_body + then)
            else:  # headers and the start of the body in one packet, the rest later
                client_sock.sendall(head_and_body[:pause_after])
                threading.Event().wait(0.05)
                client_sock.sendall(head_and_body[pause_after:] + then)
        except OSError:  # the server side closed early, as some tests want
            pass

    sender = threading.Thread(target=send)
    sender.start()
    cfg = Config()
    parser = get_parser(cfg, server_sock, ("127.0.0.1", 1))
    req = next(parser)
    _, environ = create(req, server_sock, ("127.0.0.1", 1), ("127.0.0.1", 2), cfg)
    return SimpleNamespace(parser=parser, req=req, environ=environ, server=server_sock,
                           client=client_sock, sender=sender)


def _post(body: bytes) -> bytes:
    return (b"POST /api/x HTTP/1.1\r\nHost: h\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body


def _read_all(reader, block: int = 1 << 20) -> bytes:
    out = bytearray()
    while data := reader.read(block):
        out += data
    return bytes(out)


@pytest.mark.parametrize("pause_after", [None, 100, 5000])
def test_every_byte_once_and_in_order(pause_after):
    body = os.urandom(3 * (1 << 20) + 12345)
    c = _request(_post(body), pause_after=pause_after)
    try:
        reader = body_reader(Request(c.environ))
        assert _read_all(reader, block=(1 << 16) + 7) == body
        assert c.req.body.failed is False  # read to its end: the connection may be reused
    finally:
        c.sender.join()
        c.server.close()
        c.client.close()


def test_gunicorn_buffered_bytes_are_not_lost():
    """Bytes the application already read through wsgi.input come first."""
    body = os.urandom(200_000)
    c = _request(_post(body))
    try:
        first = c.environ["wsgi.input"].read(10)
        reader = body_reader(Request(c.environ))
        assert first + _read_all(reader) == body
    finally:
        c.sender.join()
        c.server.close()
        c.client.close()


def test_a_pipelined_request_still_parses():
    body = os.urandom(50_000)
    follow = b"GET /api/version HTTP/1.1\r\nHost: h\r\n\r\n"
    c = _request(_post(body), then=follow)
    try:
        assert _read_all(body_reader(Request(c.environ))) == body
        c.sender.join()
        nxt = next(c.parser)
        assert (nxt.method, nxt.path) == ("GET", "/api/version")
    finally:
        c.server.close()
        c.client.close()


def test_an_unfinished_body_closes_the_connection():
    """A request refused halfway (413, bad content) leaves body bytes in the socket: gunicorn
    must not take them for the next request."""
    body = os.urandom(500_000)
    c = _request(_post(body))
    try:
        reader = body_reader(Request(c.environ))
        assert len(reader.read(1000)) == 1000
        with pytest.raises(StopIteration):
            next(c.parser)
    finally:
        c.server.close()
        c.client.close()
        c.sender.join()


def test_a_client_that_goes_away_ends_the_body_early():
    body = os.urandom(100_000)
    raw = _post(body)
    c = _request(raw[:-60_000])
    c.sender.join()
    c.client.close()
    try:
        got = _read_all(body_reader(Request(c.environ)))
        assert got == body[:40_000]
        assert c.req.body.failed is True
    finally:
        c.server.close()


def test_other_servers_use_the_wsgi_input():
    body = os.urandom(70_000)
    environ = {"REQUEST_METHOD": "POST", "CONTENT_LENGTH": str(len(body)),
               "wsgi.input": io.BytesIO(body), "wsgi.url_scheme": "http",
               "SERVER_NAME": "h", "SERVER_PORT": "80", "PATH_INFO": "/"}
    assert _read_all(body_reader(Request(environ)), block=4096) == body
