"""The request id: one short token that ties together every log line of one request and of
the jobs it started.

A client (or a reverse proxy) may send ``X-Request-ID``; it is kept only when it is at most
:data:`MAX_LENGTH` characters of letters, digits and ``-_.:`` (anything else could forge log
lines or carry data into them), otherwise a new one is made. The id lives in a context
variable while the request (or a worker's job) runs; a log record factory copies it onto
every record as ``request_id``, so formatters can print it and no code has to pass it along.
The sequencing objects and analysis submissions a request creates remember it (their
``request_id`` column defaults to :func:`current`), and the workers bind it again while they
process them.
"""

from __future__ import annotations

import contextvars
import logging
import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

HEADER = "X-Request-ID"
MAX_LENGTH = 64
_VALID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("seqcore_request_id",
                                                                     default=None)


# A request id is a label, not a secret: it comes from a generator seeded from the system's
# randomness at start-up (and again in every forked worker, which would otherwise repeat its
# parent's ids), not from os.urandom per request, a system call that also hands the GIL to
# another thread of a busy server.
_random = random.Random()
os.register_at_fork(after_in_child=_random.seed)
# The version (4) and variant (RFC 4122) bits of a random UUID.
_UUID4_SET = (0x4 << 76) | (0x2 << 62)
_UUID4_KEEP = ~((0xF << 76) | (0x3 << 62))


def new_id() -> str:
    """A fresh id: 32 hexadecimal digits (a random UUID, version 4)."""
    return f"{_random.getrandbits(128) & _UUID4_KEEP | _UUID4_SET:032x}"


def accept(value: str | None) -> str:
    """``value`` if it is a safe id, else a new one."""
    if value and len(value) <= MAX_LENGTH and _VALID.fullmatch(value):
        return value
    return new_id()


def current() -> str | None:
    """The id of the request or job being handled in this thread, if any."""
    return _current.get()


@contextmanager
def bound(request_id: str | None) -> Iterator[None]:
    """Make ``request_id`` current for the ``with`` block (``None``: no id)."""
    token = _current.set(request_id)
    try:
        yield
    finally:
        _current.reset(token)


def bind(request_id: str | None) -> contextvars.Token:
    """Make ``request_id`` current until :func:`unbind` (for tweens that cannot use
    ``with``)."""
    return _current.set(request_id)


def unbind(token: contextvars.Token) -> None:
    _current.reset(token)


_installed = False
# Libraries whose DEBUG messages carry credentials: oauthlib logs the tokens it issues, the
# requests it validates (authorization codes, client secrets) and their headers. Their
# DEBUG records keep their place in the log but lose their text, whatever the logging
# configuration (a handler's filter could be forgotten; the record factory cannot).
WITHHELD_DEBUG = ("oauthlib",)
WITHHELD = "(message withheld: this library's debug messages may hold credentials)"


def install_record_factory() -> None:
    """Give every log record of this process a ``request_id`` attribute (``-`` when none),
    so a format string may name ``%(request_id)s``, and empty the DEBUG records of
    :data:`WITHHELD_DEBUG`. Idempotent."""
    global _installed
    if _installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.request_id = _current.get() or "-"
        if record.levelno <= logging.DEBUG and record.name.startswith(WITHHELD_DEBUG):
            record.msg, record.args = WITHHELD, ()
        return record

    logging.setLogRecordFactory(factory)
    _installed = True


install_record_factory()
