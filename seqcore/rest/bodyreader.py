"""Reading a large request body in big blocks, with as few copies as the server allows.

Uploads of sequencing reads run to gigabytes, and every copy of every byte on the way from
the socket to storage costs time. Most WSGI servers hand the body over as a file object
whose ``read(n)`` is already one ``recv`` per block. gunicorn's body object (its sync and
gthread workers) re-buffers each block several times through ``BytesIO`` objects, which
made its uploads several times slower than the disk: under gunicorn, the body of a request
with a ``Content-Length`` is therefore read from the client socket itself, after taking the
bytes gunicorn has already buffered, and gunicorn's reader is told the body is consumed.
Anything else (other servers, chunked bodies, another gunicorn version whose reader looks
different) falls back to the WSGI input's own ``read``.
"""

from __future__ import annotations

import io
import socket
from collections.abc import Callable
from typing import Any

from pyramid.request import Request


class BodyReader:
    """``read(n)`` returns the next at most ``n`` bytes of the body, ``b""`` at its end or
    when the client went away (the caller compares what arrived with ``Content-Length``)."""

    def __init__(self, read: Callable[[int], bytes], prefix: bytes = b"") -> None:
        self._read = read
        self._prefix = prefix

    def read(self, size: int) -> bytes:
        if self._prefix:
            data, self._prefix = self._prefix[:size], self._prefix[size:]
            return data
        return self._read(size)


def body_reader(request: Request) -> BodyReader:
    """The fastest reader of ``request``'s body this server allows."""
    fast = _gunicorn_reader(request.environ, request.content_length)
    if fast is not None:
        return fast
    return BodyReader(request.body_file_raw.read)


def _gunicorn_reader(environ: dict[str, Any], length: int | None) -> BodyReader | None:
    # gunicorn's own objects, which it does not annotate: checked below by what they hold.
    sock = environ.get("gunicorn.socket")
    body: Any = environ.get("wsgi.input")
    reader: Any = getattr(body, "reader", None)
    unreader: Any = getattr(reader, "unreader", None)
    if not isinstance(sock, socket.socket):
        return None
    client = sock
    if (length is None
            or type(reader).__name__ != "LengthReader"
            or getattr(unreader, "sock", None) is not sock
            or not isinstance(getattr(body, "buf", None), io.BytesIO)
            or not isinstance(getattr(reader, "length", None), int)
            or not callable(getattr(unreader, "take_buffered", None))):
        return None
    # What gunicorn holds already: bytes its body object buffered, then bytes its socket
    # reader read ahead (which may run past this body, into a pipelined request: those go
    # back). The rest of ``reader.length`` is still in the socket.
    held = body.buf.getvalue()
    body.buf = io.BytesIO()
    ahead = unreader.take_buffered()
    mine, surplus = ahead[:reader.length], ahead[reader.length:]
    if surplus:
        unreader.unread(surplus)
    left = reader.length - len(mine)
    # From here gunicorn's reader knows nothing of the body. Until it has all been read, the
    # connection must not serve another request (``failed`` makes gunicorn close it rather
    # than look for the next request in the middle of this body).
    reader.length = 0
    body.failed = True
    state = {"left": left}

    def read(size: int) -> bytes:
        left = state["left"]
        if left <= 0:
            return b""
        try:
            # MSG_WAITALL: whole blocks rather than whatever the socket holds at the moment
            # (fewer, larger writes and hashes); a client that goes away ends it early.
            data = client.recv(min(size, left), socket.MSG_WAITALL)
        except OSError:  # reset, timeout: the client is gone
            data = b""
        if not data:
            state["left"] = 0
            return b""
        state["left"] = left - len(data)
        if state["left"] == 0:
            body.failed = False  # all read: the connection may carry another request
        return data

    if left == 0:
        body.failed = False
    return BodyReader(read, held + mine)
