"""One access log line per request, the request id, and the request metrics.

Two tweens and the execution policy. The outer tween, above every other tween, takes the
request id (a valid ``X-Request-ID`` or a new one), makes it current for everything the
request logs and returns it in the response's ``X-Request-ID`` header. The execution policy
(:func:`execution_policy`, the WSGI side of the router, so every app ``make_wsgi_app`` builds
has it) watches the response as the server sends it, counts the request for ``/-/metrics``
and writes the access line to the ``seqcore.access`` logger once the server has closed the
body:

    GET /api/projects?page=2 200 5120B 12.4ms user=7 request_id=4f0c...

with the same values as fields (``method``, ``path``, ``status``, ``bytes``,
``duration_ms``, ``user_id``) for JSON output. The status is the one the server was given
and the bytes are those of the body the server took: webob answers a ``Range`` (206, 416),
a conditional request (304) and ``HEAD`` (no body) only when the response is called as a
WSGI application, after every tween, so a tween would log 200 and the whole size. A client
that goes away midway is logged with the bytes the server took before it stopped asking. A
whole file the server sends itself (its ``wsgi.file_wrapper``: gunicorn's ``sendfile``,
waitress's file buffer) is left to it, so it keeps sending without copying, and is logged
with its ``Content-Length`` once the server closes it. Query values whose names suggest a credential
(``access_token``, ``password``, ``client_secret``, ``code``...) are written as ``***``. The
inner tween, inside the transaction, notes who the request authenticated as, reading what the
security policy already decided for the request (it never checks credentials on its own).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote

from pyramid.config import Configurator
from pyramid.interfaces import IRoutesMapper
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from pyramid.router import Router, default_execution_policy

from seqcore.observability import instruments, requestid, tracing
from seqcore.security.proxies import FORWARDED

log = logging.getLogger("seqcore.access")

USER_KEY = "seqcore.user_id"
_SECRET_NAME = re.compile(r"token|secret|passw|code|key|sig|auth|session|credential", re.I)


def safe_path(request: Request) -> str:
    """The path with its query, credential-like values replaced by ``***`` (query values by
    name; path segments the route names like a credential, after their first four
    characters)."""
    # The raw path as sent (bytes that are not UTF-8 included), percent-encoded.
    raw = request.environ.get("PATH_INFO", "").encode("latin-1", "replace")
    path = quote(raw or b"/", safe="/:@!$&'()*+,;=-._~%")
    # A capability in the path (a direct upload's key, a line-list download's token): the
    # route names it, and only its first four characters are written.
    for name, value in (getattr(request, "matchdict", None) or {}).items():
        if isinstance(value, str) and len(value) > 4 and _SECRET_NAME.search(name):
            segment = quote(value, safe="-._~")
            path = path.replace(f"/{segment}", f"/{segment[:4]}***")
    query = request.environ.get("QUERY_STRING", "")
    if not query:
        return path
    pairs = parse_qsl(query, keep_blank_values=True)
    shown = "&".join(
        f"{quote(name, safe='')}={'***' if _SECRET_NAME.search(name) else quote(value, safe='')}"
        for name, value in pairs)
    return f"{path}?{shown}" if shown else path


def route_label(request: Request) -> str:
    """A bounded label for metrics: the route's pattern, never the raw path. A request
    answered before routing (401 from the /api credentials check) is labelled with the
    route its path would have matched; one that matches none is ``unmatched``."""
    route = getattr(request, "matched_route", None)
    if route is not None:
        return route.pattern
    mapper = request.registry.queryUtility(IRoutesMapper)
    try:
        path = request.path_info
    except UnicodeDecodeError:
        return "unmatched"
    for candidate in mapper.get_routes() if mapper is not None else ():
        if candidate.match(path) is not None:
            return candidate.pattern
    return "unmatched"


# The environ key under which the tween leaves, for the execution policy, the function that
# writes the request's line once the response has been sent.
PENDING = "seqcore.access.finish"

Finish = Callable[[int, int], None]


class _Counted:
    """A response body whose size is known only once it has been sent: a chunk counts once
    the server comes back for the next one (or to end), so a chunk whose write failed
    because the client went away does not."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], None]) -> None:
        self.body = body
        self.done = done
        self.size = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.body:
            yield chunk
            self.size += len(chunk)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done(self.size)


class _SizedCounted(_Counted):
    """A counted body that keeps its length (waitress sets ``Content-Length`` from a
    one-chunk body that has none)."""

    def __len__(self) -> int:
        return len(self.body)  # type: ignore[arg-type]


class _Sent:
    """The response as the server sends it: the status given to ``start_response`` and the
    bytes of the body the server takes, written to the log when the server closes it."""

    def __init__(self, response: Callable, finish: Finish) -> None:
        self.response = response
        self.finish = finish

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        status = 500  # until start_response says otherwise
        sent_headers: list[tuple[str, str]] = []
        written = 0

        def observe(line: str, headers: list[tuple[str, str]],
                    exc_info: Any = None) -> Callable[[bytes], None]:
            nonlocal status, sent_headers
            status = int(line[:3])
            sent_headers = headers
            write = (start_response(line, headers) if exc_info is None
                     else start_response(line, headers, exc_info))

            def counted_write(data: bytes) -> None:
                nonlocal written
                write(data)
                written += len(data)

            return counted_write

        try:
            body: Any = self.response(environ, observe)
        except BaseException:
            self.finish(status if status >= 500 else 500, written)
            raise
        if "wsgi.file_wrapper" in environ and self._left_to_server(
                environ, body, sent_headers, lambda size: self.finish(status, size)):
            return body
        counted = _SizedCounted if hasattr(body, "__len__") else _Counted
        return counted(body, lambda size: self.finish(status, written + size))

    @staticmethod
    def _left_to_server(environ: dict[str, Any], body: Any, headers: list[tuple[str, str]],
                        done: Callable[[int], None]) -> bool:
        """Whether the body is the server's file wrapper with a ``Content-Length``, now set
        to call ``done`` with that length when the server closes it (after the last byte,
        or when the client went away)."""
        file_wrapper = environ.get("wsgi.file_wrapper")
        if not isinstance(file_wrapper, type) or not isinstance(body, file_wrapper):
            return False
        length = next((v for k, v in headers if k.lower() == "content-length"), "")
        if not length.isdigit():
            return False
        original = getattr(body, "close", None)

        def close() -> None:
            try:
                if original is not None:
                    original()
            finally:
                done(int(length))

        try:
            setattr(body, "close", close)  # noqa: B010 - an instance attribute the server calls
        except (AttributeError, TypeError):
            return False
        return True


def execution_policy(environ: dict[str, Any], router: Router) -> Callable:
    """Pyramid's own policy, with the response handed to the server through :class:`_Sent`
    so its line is written once it has been sent. A request that fails after the access
    tween returned (a response callback) is logged as 500."""
    try:
        response = default_execution_policy(environ, router)
    except BaseException:
        finish = environ.pop(PENDING, None)
        if finish is not None:
            finish(500, 0)
        raise
    finish = environ.pop(PENDING, None)
    return response if finish is None else _Sent(response, finish)


def access_tween_factory(handler: Callable, registry: Registry) -> Callable:
    write_line = bool(registry.settings.get("seqcore.log.access", True))

    def _record(request: Request, status: int, size: int, started: float, rid: str) -> None:
        record(request, status, size, started, rid, write_line)

    def tween(request: Request) -> Response:
        rid = requestid.accept(request.headers.get(requestid.HEADER))
        token = requestid.bind(rid)
        request.environ["seqcore.request_id"] = rid
        # Who connected, before a trusted proxy's X-Forwarded-For replaces it (/-/metrics).
        request.environ["seqcore.peer"] = request.environ.get("REMOTE_ADDR")
        request.environ["seqcore.forwarded"] = any(
            name in request.environ for name in FORWARDED)
        started = time.perf_counter()
        try:
            try:
                response = handler(request)
            except Exception:
                _record(request, 500, 0, started, rid)
                raise
            response.headers[requestid.HEADER] = rid
            # The status and size are the ones sent, known once the server is done
            # (execution_policy).
            request.environ[PENDING] = (
                lambda status, size: _record(request, status, size, started, rid))
            return response
        finally:
            requestid.unbind(token)

    return tween


# The instruments' children by label values, so a request's figures cost two dictionary
# look-ups (prometheus_client's ``labels`` checks and joins its arguments on every call). The
# label values are the ones prometheus_client keeps children for anyway.
_REQUESTS: dict[tuple[str, str, int], Any] = {}
_LATENCY: dict[tuple[str, str], Any] = {}


def _children(route: str, method: str, status: int) -> tuple[Any, Any]:
    counter = _REQUESTS.get((route, method, status))
    if counter is None:
        counter = _REQUESTS[(route, method, status)] = instruments.REQUESTS.labels(
            route=route, method=method, status=str(status))
    histogram = _LATENCY.get((route, method))
    if histogram is None:
        histogram = _LATENCY[(route, method)] = instruments.LATENCY.labels(route=route,
                                                                           method=method)
    return counter, histogram


def record(request: Request, status: int, size: int, started: float, rid: str,
           write_line: bool = True) -> None:
    """Count the finished request for /-/metrics and write its access line."""
    elapsed = time.perf_counter() - started
    method = request.method
    counter, histogram = _children(route_label(request), method, status)
    counter.inc()
    histogram.observe(elapsed)
    # The path is made safe only for a line that will be written.
    if not write_line or not log.isEnabledFor(logging.INFO):
        return
    environ = request.environ
    user = environ.get(USER_KEY)
    path = safe_path(request)
    args = (method, path, status, size, elapsed * 1000, user if user is not None else "-", rid)
    extra = {"method": method, "path": path, "status": status, "bytes": size,
             "duration_ms": round(elapsed * 1000, 1), "user_id": user}
    # Made in the request id's context, and with traces on in its request's span, as the
    # record factories copy both onto it.
    token = requestid.bind(rid)
    try:
        span = environ.get(tracing.ENVIRON_SPAN)
        if span is None:
            _write(args, extra)
        else:
            with tracing.resumed(span):
                _write(args, extra)
    finally:
        requestid.unbind(token)


def _write(args: tuple[Any, ...], extra: dict[str, Any]) -> None:
    """What ``log.info(_MESSAGE, *args, extra=extra)`` does, but for where the record says
    it was made: :func:`record`, known without walking the stack (``Logger.findCaller``)."""
    log.handle(log.makeRecord(log.name, logging.INFO, _SOURCE, _LINE, _MESSAGE, args, None,
                              _FUNCTION, extra))


_MESSAGE = "%s %s %s %dB %.1fms user=%s request_id=%s"
# Where an access line's record says it was made: record(), in this file.
_SOURCE = record.__code__.co_filename
_LINE = record.__code__.co_firstlineno
_FUNCTION = record.__code__.co_name


# Routes that never look at credentials: asking who the caller is there would cost a token
# or session lookup the request itself did not need (and /-/metrics' bearer token is not an
# OAuth token).
UNAUTHENTICATED_ROUTES = ("ops.", "web.graphiql_asset")


def _carries_identity(request: Request) -> bool:
    """Whether the request sent credentials to a route that reads them (so the security
    policy has already judged them, and asking again costs nothing)."""
    environ = request.environ
    if "HTTP_AUTHORIZATION" not in environ and not environ.get("HTTP_COOKIE"):
        return False
    route = getattr(request, "matched_route", None)
    return route is None or not route.name.startswith(UNAUTHENTICATED_ROUTES)


def identity_tween_factory(handler: Callable, registry: Registry) -> Callable:
    def tween(request: Request) -> Response:
        response = handler(request)
        if _carries_identity(request):
            try:
                request.environ[USER_KEY] = request.authenticated_userid
            except Exception:  # the access log never fails a request
                logging.getLogger(__name__).debug("no user id for the access log",
                                                  exc_info=True)
        return response

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import EXCVIEW, INGRESS

    config.set_execution_policy(execution_policy)
    config.add_tween("seqcore.observability.accesslog.access_tween_factory", under=INGRESS,
                     over="seqcore.parsing.wellformed.wellformed_tween_factory")
    config.add_tween("seqcore.observability.accesslog.identity_tween_factory",
                     under="pyramid_tm.tm_tween_factory", over=EXCVIEW)
