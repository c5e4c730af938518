"""An OpenTelemetry collector's OTLP/HTTP trace receiver on loopback, for tests of traces: it
decodes each ``POST /v1/traces`` (protobuf ``ExportTraceServiceRequest``, as the SDK's
exporter sends it) with opentelemetry-proto's classes (the test extra) and keeps the spans.

Point ``seqcore.traces.otlp_endpoint`` (or ``OTEL_EXPORTER_OTLP_ENDPOINT``) at its ``url``::

    with OtlpReceiver() as receiver:
        ...
        span = receiver.wait_for(lambda spans: next((s for s in spans if ...), None))
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

from seqcore.observability import tracing


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: str
    service: str
    attributes: dict[str, Any] = field(default_factory=dict)


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    return None if which is None else getattr(value, which)


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.requests = 0
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                receiver._keep(ExportTraceServiceRequest.FromString(body))
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _keep(self, request: ExportTraceServiceRequest) -> None:
        spans = []
        for resource in request.resource_spans:
            resource_attributes = {a.key: _value(a.value) for a in resource.resource.attributes}
            service = str(resource_attributes.get("service.name", ""))
            for scope in resource.scope_spans:
                for span in scope.spans:
                    spans.append(Span(
                        span.trace_id.hex(), span.span_id.hex(), span.parent_span_id.hex(),
                        span.name, ProtoSpan.SpanKind.Name(span.kind), service,
                        {a.key: _value(a.value) for a in span.attributes}))
        with self._lock:
            self.requests += 1
            self.spans.extend(spans)

    def trace(self, trace_id: str) -> list[Span]:
        with self._lock:
            return [s for s in self.spans if s.trace_id == trace_id]

    def wait_for(self, found: Callable[[list[Span]], Any], timeout: float = 60) -> Any:
        """The first true value of ``found(spans)``, asked until ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                spans = list(self.spans)
            value = found(spans)
            if value or time.monotonic() > deadline:
                assert value, [(s.name, s.trace_id) for s in spans]
                return value
            time.sleep(0.1)


@contextmanager
def traced_here(receiver: OtlpReceiver, name: str = "test") -> Iterator[Any]:
    """Traces on in this process, exported to ``receiver``, inside a span ``name`` (which the
    block receives); every span is exported when the block ends, and traces are off again.
    For tests of code that makes spans inside a trace (a plugin's client calls)."""
    tracing.setup({tracing.ENDPOINT: receiver.url, tracing.SERVICE_NAME: "seqcore-test"})
    try:
        with tracing.span(name) as root:
            yield root
        tracing.flush()
    finally:
        tracing.shutdown()


def stop_tracing() -> None:
    """Traces off in this process again (after an application built with
    ``seqcore.traces.otlp_endpoint`` in a test), every span exported first."""
    tracing.flush()
    tracing.shutdown()
