"""Where traces meet the web application: a span per request, and spans around the storage
service's calls. Both are installed only when traces are on in this process
(:mod:`seqcore.observability.tracing`); off, the application is built as if this module
did not exist.

The request's span sits under the access log's tween, so it knows the request id (its
``seqcore.request_id`` attribute) and the access line is written with the trace current;
a ``traceparent`` header sent by the client (or a proxy that traces) is continued. It ends
when the view has answered: a streamed body's sending is not part of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from pyramid_services import IServiceRegistry, ProxyFactory, SingletonServiceWrapper

from seqcore.observability import requestid, tracing
from seqcore.services import IStorage

# ``{pid:[0-9]+}`` → ``{pid}``
_PLACEHOLDER = re.compile(r"\{(\w+):[^}]*\}")


def trace_tween_factory(handler: Callable, registry: Registry) -> Callable:
    if not tracing.enabled():
        return handler

    def tween(request: Request) -> Response:
        # The request id comes from the access log's tween, above this one.
        attributes = {"http.request.method": request.method, "url.path": request.path,
                      tracing.REQUEST_ID: requestid.current()}
        with tracing.continued(request.headers.get("traceparent"), request.method, attributes,
                               kind="server") as span:
            request.environ[tracing.ENVIRON_SPAN] = span
            try:
                response = handler(request)
            except Exception:
                _name(span, request, 500)
                raise
            _name(span, request, response.status_int)
            return response

    return tween


def _name(span: Any, request: Request, status: int) -> None:
    """The span's name and attributes once routing is known: ``GET /api/projects/{pid}``
    (the route's pattern without its placeholders' regular expressions, never the raw
    path)."""
    if span is None:
        return
    route = getattr(request, "matched_route", None)
    if route is not None:
        pattern = _PLACEHOLDER.sub(r"{\1}", route.pattern)
        span.update_name(f"{request.method} {pattern}")
        tracing.set_attributes(span, {"http.route": pattern, "seqcore.route_name": route.name})
    tracing.set_attributes(span, {"http.response.status_code": status})
    if status >= 500:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR))


class TracedStorage:
    """The storage service with a span (``storage.<method>``) around each public call;
    everything else is the service's own."""

    def __init__(self, storage: Any) -> None:
        self._storage = storage

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._storage, name)
        if name.startswith("_") or not callable(value):
            return value

        def traced(*args: Any, **kwargs: Any) -> Any:
            with tracing.inner_span(f"storage.{name}", {"seqcore.storage.class":
                                                  type(self._storage).__name__}):
                return value(*args, **kwargs)

        traced.__name__ = name
        traced.__doc__ = value.__doc__
        return traced

    def __repr__(self) -> str:
        return f"TracedStorage({self._storage!r})"


def _wrap_storage(registry: Registry) -> None:
    """Register the registered storage service again, inside a :class:`TracedStorage`."""
    services = registry.queryUtility(IServiceRegistry)
    found = services.find_factory(IStorage) if services is not None else None
    if found is None:
        return
    storage = found.factory(None, None) if isinstance(found, ProxyFactory) else found(None,
                                                                                        None)
    if isinstance(storage, TracedStorage):
        return
    services.register_factory(ProxyFactory(SingletonServiceWrapper(TracedStorage(storage))),
                              IStorage)


def includeme(config: Configurator) -> None:
    if not tracing.enabled():
        return
    config.add_tween("seqcore.observability.tracehooks.trace_tween_factory",
                     under="seqcore.observability.accesslog.access_tween_factory",
                     over="seqcore.parsing.wellformed.wellformed_tween_factory")
    # After every service is registered (order 0), whoever registered the storage.
    config.action(None, _wrap_storage, args=(config.registry,), order=1)
