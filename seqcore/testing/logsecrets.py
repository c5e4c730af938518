"""No secret in any log: every log record of a test session is written to a file at DEBUG,
and each secret the session issues or sends (passwords, access and refresh tokens, personal
access tokens, client secrets, authorization codes, session cookies) must never appear in it.

Secrets are learnt where tests meet the application: the test kit's factories report what
they issue (:func:`remember`), and :class:`SecretRecorder`, around the apps that ``testapp``
and ``build_app`` serve, notes credentials in requests (``Authorization``, form and JSON
fields, query parameters named like secrets) and in responses (JSON fields such as
``access_token``, ``Set-Cookie`` values). After every test the new log lines are searched for
every secret learnt so far; a hit fails that test's teardown, naming the secret's kind and
the log line (with the secret masked). The session's end searches the whole file once more.

On by default; ``SEQCORE_LOG_SECRETS=0`` turns it off; the file goes to
``SEQCORE_LOG_SECRETS_FILE`` (default: a file in the temporary directory, named in the
session's summary).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast
from urllib.parse import parse_qsl

import pytest

MIN_LENGTH = 8  # shorter values ("secret", "test") are too common to mean anything
_SECRET_KEY = re.compile(
    r"(^|_|-)(password|passwd|secret|token|code)$|^(access|refresh|id)_?token$|"
    r"^client_?secret$|^new_?password|^current_?password|^password", re.I)
_BODY_LIMIT = 1 << 20
_FORMAT = "%(asctime)s %(levelname)s [%(name)s] [%(request_id)s] %(message)s"

_secrets: dict[str, str] = {}  # value -> what it is


def remember(value: Any, kind: str) -> None:
    """Note a secret the session issued or sent; it must not appear in any log."""
    if isinstance(value, str) and len(value) >= MIN_LENGTH:
        _secrets.setdefault(value, kind)


def secret_key(name: str) -> bool:
    return bool(_SECRET_KEY.search(name))


def _walk(data: Any, kind: str) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and isinstance(key, str) and secret_key(key):
                remember(value, f"{kind} field {key}")
            else:
                _walk(value, kind)
    elif isinstance(data, list):
        for item in data:
            _walk(item, kind)


def _authorization(header: str) -> None:
    scheme, _, value = header.partition(" ")
    value = value.strip()
    if scheme.lower() == "basic":
        try:
            _, _, password = base64.b64decode(value).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return
        remember(password, "Basic password")
    else:
        remember(value, f"{scheme} credential")


def _fields(body: bytes, content_type: str, kind: str) -> None:
    if "json" in content_type:
        # Hostile bodies (100,000 levels deep) are the application's to refuse, not ours.
        with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
            _walk(json.loads(body), kind)
    elif "x-www-form-urlencoded" in content_type:
        for key, value in parse_qsl(body.decode("latin-1"), keep_blank_values=True):
            if secret_key(key):
                remember(value, f"{kind} form field {key}")


class SecretRecorder:
    """WSGI middleware (tests only): learns the secrets that pass through it; everything
    else about the app is reached through it unchanged (``.registry``)."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("HTTP_AUTHORIZATION"):
            _authorization(environ["HTTP_AUTHORIZATION"])
        for key, value in parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True):
            if secret_key(key):
                remember(value, f"query parameter {key}")
        for cookie in (environ.get("HTTP_COOKIE") or "").split(";"):
            remember(cookie.partition("=")[2].strip(), "cookie")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        content_type = environ.get("CONTENT_TYPE", "")
        if 0 < length <= _BODY_LIMIT and ("json" in content_type or "form-url" in content_type):
            body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(body)
            _fields(body, content_type, "request")
        seen: dict[str, Any] = {}

        def recording_start(status: str, headers: list[Any], *rest: Any) -> Any:
            seen["type"] = next((v for k, v in headers if k.lower() == "content-type"), "")
            for key, value in headers:
                if key.lower() == "set-cookie":
                    remember(value.split(";", 1)[0].partition("=")[2], "Set-Cookie")
            return start_response(status, headers, *rest)

        result = self.app(environ, recording_start)
        if "json" not in seen.get("type", ""):
            return cast("Iterable[bytes]", result)
        chunks = list(result)
        close = getattr(result, "close", None)
        if close is not None:
            close()
        body = b"".join(chunks)
        if len(body) <= _BODY_LIMIT:
            _fields(body, "json", "response")
        return chunks


class LogRecorder:
    """The session's log file and what has been searched of it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.handler = logging.FileHandler(path, mode="w", encoding="utf-8")
        self.handler.setLevel(logging.DEBUG)
        self.handler.setFormatter(logging.Formatter(_FORMAT))
        self.offset = 0
        self.previous_level = logging.NOTSET

    def start(self) -> None:
        from seqcore.observability.requestid import install_record_factory

        install_record_factory()
        root = logging.getLogger()
        self.previous_level = root.level
        root.addHandler(self.handler)
        root.setLevel(logging.DEBUG)
        # SQLAlchemy turns statement logging on when its loggers are enabled for INFO:
        # statements are not the application's logs, and logging them all is slow.
        logging.getLogger("sqlalchemy").setLevel(logging.WARNING)

    def stop(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self.handler)
        root.setLevel(self.previous_level)
        self.handler.close()

    def new_text(self) -> str:
        self.handler.flush()
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            fh.seek(self.offset)
            text = fh.read()
            self.offset = fh.tell()
        return text

    def all_text(self) -> str:
        self.handler.flush()
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            return fh.read()


def leaks(text: str) -> list[str]:
    """One description per secret found in ``text`` (the secret masked)."""
    found = []
    for value, kind in list(_secrets.items()):
        if value in text:
            line = next(line for line in text.splitlines() if value in line)
            found.append(f"{kind} ({value[:3]}...) in: {line.replace(value, '<SECRET>')[:300]}")
    return found


_recorder: LogRecorder | None = None


def enabled() -> bool:
    return os.environ.get("SEQCORE_LOG_SECRETS", "1") not in ("0", "false", "no", "off")


def _xdist_controller(config: pytest.Config) -> bool:
    """True in pytest-xdist's controller: it runs no test, its workers do (each records its
    own log and reports what it found back, :func:`pytest_testnodedown`)."""
    return (not hasattr(config, "workerinput")
            and bool(getattr(config.option, "numprocesses", None))
            and getattr(config.option, "dist", "no") != "no")


# In xdist's controller: each worker's log file, count of secrets and leaks found at its end.
_workers: dict[str, tuple[str, int, list[str]]] = {}


def pytest_configure(config: pytest.Config) -> None:
    global _recorder
    if not enabled() or _recorder is not None or _xdist_controller(config):
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = os.environ.get("SEQCORE_LOG_SECRETS_FILE") or os.path.join(
        tempfile.gettempdir(), f"seqcore-test-logs-{os.getpid()}-{worker}.log")
    if worker != "main" and os.environ.get("SEQCORE_LOG_SECRETS_FILE"):
        path = f"{path}.{worker}"
    _recorder = LogRecorder(path)
    _recorder.start()


@pytest.fixture(autouse=True)
def _no_secret_in_logs() -> Iterator[None]:
    """After each test: none of the session's secrets in the log lines written since."""
    yield
    if _recorder is None:
        return
    found = leaks(_recorder.new_text())
    if found:
        pytest.fail("secrets appeared in the logs (" + _recorder.path + "):\n" +
                    "\n".join(found), pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _recorder is not None:
        found = leaks(_recorder.all_text())
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller fails the run
            workeroutput["seqcore_log_secrets"] = (_recorder.path, len(_secrets), found)
        if found:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            print("\nseqcore: secrets appeared in the logs (" + _recorder.path + "):\n" +
                  "\n".join(found))
    found = [leak for _, _, leaks_ in _workers.values() for leak in leaks_]
    if found:  # a worker's whole-file search, which only the controller can fail the run on
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist's controller: a worker finished; keep what its log search found."""
    report = getattr(node, "workeroutput", {}).get("seqcore_log_secrets")
    if report is not None:
        _workers[node.gateway.id] = (report[0], report[1], list(report[2]))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _recorder is not None:
        terminalreporter.write_line(
            f"seqcore: every log record of this session is in {_recorder.path}; "
            f"{len(_secrets)} secret(s) issued or sent were searched for there.")
    for worker, (path, count, found) in sorted(_workers.items()):
        terminalreporter.write_line(
            f"seqcore: worker {worker}'s log records are in {path}; {count} secret(s) "
            f"issued or sent were searched for there.")
        if found:
            terminalreporter.write_line(
                f"seqcore: secrets appeared in the logs ({path}):\n" + "\n".join(found))
