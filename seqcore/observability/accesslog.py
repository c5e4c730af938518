"""One access log line per request, the request id, and the request metrics.

Two tweens. The outer one, above every other tween, takes the request id (a valid
``X-Request-ID`` or a new one), makes it current for everything the request logs, returns it
in the response's ``X-Request-ID`` header, counts the request for ``/-/metrics`` and writes
the access line to the ``seqcore.access`` logger once the response is complete:

    GET /api/projects?page=2 200 5120B 12.4ms user=7 request_id=4f0c...

with the same values as fields (``method``, ``path``, ``status``, ``bytes``,
``duration_ms``, ``user_id``) for JSON output. Query values whose names suggest a credential
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

from seqcore.observability import instruments, requestid
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


class _Counted:
    """A response body whose size is known only once it has been sent."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], None]) -> None:
        self.body = body
        self.done = done
        self.size = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.body:
            self.size += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done(self.size)


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
            if response.content_length is not None or request.method == "HEAD":
                _record(request, response.status_code, response.content_length or 0, started,
                        rid)
            else:
                status = response.status_code
                response.app_iter = _Counted(
                    response.app_iter,
                    lambda size: _record(request, status, size, started, rid))
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
    user = request.environ.get(USER_KEY)
    path = safe_path(request)
    with requestid.bound(rid):
        log.info("%s %s %s %dB %.1fms user=%s request_id=%s", request.method, path, status,
                 size, elapsed * 1000, user if user is not None else "-", rid,
                 extra={"method": request.method, "path": path, "status": status,
                        "bytes": size, "duration_ms": round(elapsed * 1000, 1),
                        "user_id": user})


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

    config.add_tween("seqcore.observability.accesslog.access_tween_factory", under=INGRESS,
                     over="seqcore.parsing.wellformed.wellformed_tween_factory")
    config.add_tween("seqcore.observability.accesslog.identity_tween_factory",
                     under="pyramid_tm.tm_tween_factory", over=EXCVIEW)
