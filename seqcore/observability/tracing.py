"""Traces: OpenTelemetry spans of requests, SQL statements, worker jobs and outgoing calls,
exported over OTLP/HTTP, and off unless configured.

Tracing is on in a process when ``seqcore.traces.otlp_endpoint`` names a collector (or the
standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` variables
do) and the ``traces`` extra (the OpenTelemetry SDK and its OTLP exporter) is installed.
Off, nothing of the SDK is loaded, no tween or SQL listener is installed, and
:func:`span` costs one test of a module global: the workers' and the storage's spans are
written unconditionally and cost nothing.

The SDK's tracer provider is seqcore's own (:func:`setup`), not the process-wide one of
``opentelemetry.trace``: an application built twice in one process (the tests) replaces it,
and libraries instrumented by a deployment's own OpenTelemetry distribution keep theirs.

Work outlives its request: a request that queues some (an upload's processing, an
analysis) saves :func:`traceparent` (W3C ``traceparent``) with it, as it saves the request
id, and the worker that takes the work up continues that trace (:func:`continued`), in its
own process or on another machine. An analysis job's process is told in ``job.json``
(:func:`job_settings`, :func:`setup_job`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from seqcore.observability import requestid

log = logging.getLogger(__name__)

ENDPOINT = "seqcore.traces.otlp_endpoint"
SERVICE_NAME = "seqcore.traces.service_name"
SAMPLE_RATIO = "seqcore.traces.sample_ratio"
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
# The request id, on a request's span and on the spans of the work it started.
REQUEST_ID = "seqcore.request_id"
# Where a request's span waits for the access log's line (seqcore.observability.tracehooks).
ENVIRON_SPAN = "seqcore.trace_span"
TRACEPARENT = "traceparent"


def parse_ratio(value: Any) -> float:
    ratio = float(value)
    if not 0.0 <= ratio <= 1.0:
        raise ValueError("must be between 0 and 1")
    return ratio


parse_ratio.type_name = "number from 0 to 1"  # type: ignore[attr-defined]


@dataclass(frozen=True)
class TraceSettings:
    """What a process exports: ``endpoint`` is the collector's base URL (``/v1/traces`` is
    added), empty when the standard environment variables name it."""

    endpoint: str
    service_name: str
    sample_ratio: float

    def as_dict(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "service_name": self.service_name,
                "sample_ratio": self.sample_ratio}


class _Tracing:
    """The SDK's objects while tracing is on."""

    def __init__(self, wanted: TraceSettings) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.wanted = wanted
        endpoint = wanted.endpoint.rstrip("/") + "/v1/traces" if wanted.endpoint else None
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": wanted.service_name}),
            sampler=ParentBased(TraceIdRatioBased(wanted.sample_ratio)),
            shutdown_on_exit=True)
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        self.tracer = self.provider.get_tracer("seqcore")
        self.propagator = TraceContextTextMapPropagator()


_state: _Tracing | None = None


def wanted(settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
           ) -> TraceSettings | None:
    """The tracing ``settings`` (and the environment) ask for, ``None`` when off."""
    environ = os.environ if environ is None else environ
    endpoint = str(settings.get(ENDPOINT) or "").strip()
    if not endpoint and not any(environ.get(name) for name in ENDPOINT_VARIABLES):
        return None
    return TraceSettings(endpoint, str(settings.get(SERVICE_NAME) or "seqcore"),
                         float(settings.get(SAMPLE_RATIO, 1.0)))


def available() -> bool:
    """Whether the ``traces`` extra is installed."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return False
    return True


def setup(settings: Mapping[str, Any]) -> bool:
    """Turn tracing on or off in this process as ``settings`` say; whether it is on.

    The application calls it when it is built (web server, ``seqcore worker``, CLI). Set
    up twice with the same settings, the provider is kept; with others, replaced."""
    global _state
    want = wanted(settings)
    if want is not None and _state is not None and _state.wanted == want:
        return True
    shutdown()
    if want is None:
        return False
    if not available():
        if settings.get(ENDPOINT):
            raise RuntimeError(f"{ENDPOINT} is set but the OpenTelemetry SDK is not "
                               "installed (pip install 'seqcore-server[traces]')")
        log.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is not "
                    "installed: seqcore exports no traces")
        return False
    _state = _Tracing(want)
    _install_log_ids()
    return True


def job_settings() -> dict[str, Any] | None:
    """This process's tracing, for an analysis job's ``job.json`` (``None``: off)."""
    return None if _state is None else _state.wanted.as_dict()


def setup_job(values: Mapping[str, Any] | None) -> None:
    """In an analysis job's process (the local executor's child, a Celery worker): turn
    tracing on as ``job.json`` says, unless this process already traces."""
    if _state is not None or not values:
        return
    setup({ENDPOINT: values.get("endpoint") or "", SERVICE_NAME: values.get("service_name"),
           SAMPLE_RATIO: values.get("sample_ratio", 1.0)})


def enabled() -> bool:
    return _state is not None


def flush(timeout_millis: int = 10_000) -> None:
    """Export the spans still waiting (a short-lived process before it exits)."""
    if _state is not None:
        _state.provider.force_flush(timeout_millis)


def shutdown() -> None:
    global _state
    state, _state = _state, None
    if state is not None:
        state.provider.shutdown()


# -- spans ----------------------------------------------------------------------------------


def _attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    values = {k: v for k, v in (attributes or {}).items() if v is not None}
    rid = requestid.current()
    if rid is not None:
        values.setdefault(REQUEST_ID, rid)
    return values


def _kind(name: str) -> Any:
    from opentelemetry.trace import SpanKind

    return getattr(SpanKind, name.upper())


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None,
         kind: str = "internal") -> Iterator[Any]:
    """A span around the ``with`` block, child of the current one (``None`` when off).
    An exception leaving the block is recorded on it and marks it failed."""
    state = _state
    if state is None:
        yield None
        return
    with state.tracer.start_as_current_span(name, kind=_kind(kind),
                                            attributes=_attributes(attributes)) as current:
        yield current


def _within() -> bool:
    """Whether a span of this process is current (one a new span would be a child of)."""
    from opentelemetry import trace

    return bool(trace.get_current_span().get_span_context().is_valid)


@contextmanager
def inner_span(name: str, attributes: Mapping[str, Any] | None = None,
               kind: str = "internal") -> Iterator[Any]:
    """Like :func:`span`, but only inside a span: calls made outside any (a worker's idle
    rounds, polls of long jobs) would each start a trace of their own."""
    if _state is None or not _within():
        yield None
        return
    with span(name, attributes, kind) as current:
        yield current


@contextmanager
def continued(parent: str | None, name: str, attributes: Mapping[str, Any] | None = None,
              kind: str = "internal") -> Iterator[Any]:
    """A span continuing the trace whose W3C ``traceparent`` is ``parent`` (saved with
    queued work, or sent by a client); without one, a new trace."""
    state = _state
    if state is None:
        yield None
        return
    context = state.propagator.extract({TRACEPARENT: parent}) if parent else None
    with state.tracer.start_as_current_span(name, context=context, kind=_kind(kind),
                                            attributes=_attributes(attributes)) as current:
        yield current


@contextmanager
def resumed(current: Any) -> Iterator[None]:
    """Make a span :func:`span` or :func:`continued` gave (and which may have ended)
    current again for the ``with`` block, without ending it: the access log's line, written
    once the answer is sent, names its request's span. ``None``: nothing changes."""
    if current is None or _state is None:
        yield
        return
    from opentelemetry import trace

    with trace.use_span(current, end_on_exit=False):
        yield


def traceparent() -> str | None:
    """The current span as a W3C ``traceparent`` value, to save with work that continues
    it elsewhere (``None`` when off or outside a span)."""
    state = _state
    if state is None:
        return None
    carrier: dict[str, str] = {}
    state.propagator.inject(carrier)
    return carrier.get(TRACEPARENT)


def headers() -> dict[str, str]:
    """Headers carrying the current trace to an HTTP server (empty when off)."""
    value = traceparent()
    return {TRACEPARENT: value} if value else {}


def set_attributes(current: Any, attributes: Mapping[str, Any]) -> None:
    """Add attributes to a span :func:`span` gave (nothing when it gave ``None``)."""
    if current is not None:
        current.set_attributes({k: v for k, v in attributes.items() if v is not None})


# -- SQL ------------------------------------------------------------------------------------

_SQL_SPAN = "_seqcore_span"


def instrument_engine(engine: Any) -> None:
    """Spans of the SQL statements ``engine`` runs inside a span, children of it: the
    statement's text (never its parameters, which may hold secrets) and the database
    system. Installed only when tracing is on when the engine is made."""
    if _state is None:
        return
    from sqlalchemy import event

    system = engine.dialect.name

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        state = _state
        if state is None or context is None or not _within():
            return
        operation = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "SQL"
        setattr(context, _SQL_SPAN, state.tracer.start_span(
            f"{operation} {system}", kind=_kind("client"),
            attributes={"db.system.name": system, "db.query.text": statement[:4096],
                        "db.operation.name": operation}))

    def after(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
              executemany: bool) -> None:
        current = _take(context)
        if current is not None:
            current.end()

    def failed(exception_context: Any) -> None:
        current = _take(exception_context.execution_context)
        if current is not None:
            from opentelemetry.trace import Status, StatusCode

            current.record_exception(exception_context.original_exception)
            current.set_status(Status(StatusCode.ERROR))
            current.end()

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    event.listen(engine, "handle_error", failed)


def _take(context: Any) -> Any:
    current = getattr(context, _SQL_SPAN, None) if context is not None else None
    if current is not None:
        setattr(context, _SQL_SPAN, None)
    return current


# -- log records ----------------------------------------------------------------------------

_log_ids_installed = False


def _install_log_ids() -> None:
    """While tracing is on, log records carry ``trace_id`` and ``span_id`` (hexadecimal) of
    the span current where they were logged (JSON lines show them)."""
    global _log_ids_installed
    if _log_ids_installed:
        return
    from opentelemetry import trace

    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _state is not None:
            context = trace.get_current_span().get_span_context()
            if context.is_valid:
                record.trace_id = format(context.trace_id, "032x")
                record.span_id = format(context.span_id, "016x")
        return record

    logging.setLogRecordFactory(factory)
    _log_ids_installed = True
