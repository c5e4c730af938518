"""The WES client's calls are spans of the trace they are made in, and carry it to the WES
server in ``traceparent``: a server that traces joins the worker's trace."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from seqcore.testing.otlp import OtlpReceiver, traced_here
from seqcore_wes.client import WesClient


@pytest.fixture
def wes_answering():
    """A loopback server answering WES's run status; it keeps each call's headers."""
    calls = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            calls.append((self.path, dict(self.headers)))
            body = json.dumps({"run_id": "r1", "state": "RUNNING"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.calls = calls
    server.url = f"http://127.0.0.1:{server.server_address[1]}/ga4gh/wes/v1"
    yield server
    server.shutdown()
    server.server_close()


def test_a_call_is_a_span_of_its_trace_and_sends_it_on(wes_answering):
    with OtlpReceiver() as receiver:
        with traced_here(receiver) as root:
            assert WesClient(wes_answering.url).status("r1") == "RUNNING"
        call = receiver.wait_for(lambda spans: next(
            (s for s in spans if s.name == "WES GET"), None))
    trace_id = format(root.get_span_context().trace_id, "032x")
    assert (call.trace_id, call.kind) == (trace_id, "SPAN_KIND_CLIENT")
    assert call.parent_id == format(root.get_span_context().span_id, "016x")
    assert call.attributes["url.template"] == "/runs/{run_id}/status"
    assert call.attributes["http.response.status_code"] == 200
    path, headers = wes_answering.calls[0]
    assert path == "/ga4gh/wes/v1/runs/r1/status"
    sent = {k.lower(): v for k, v in headers.items()}["traceparent"]
    assert sent.split("-")[1:3] == [trace_id, call.span_id]


def test_without_traces_nothing_is_sent(wes_answering):
    assert WesClient(wes_answering.url).status("r1") == "RUNNING"
    assert "traceparent" not in {k.lower() for k in wes_answering.calls[0][1]}
