"""Collections written as rows arrive.

The view checks permissions and builds the query inside the request's transaction; the rows
are read afterwards, while the response is being written, on a connection of their own with a
streaming cursor. Memory stays flat however large the collection, and the statement count is
that of the query, whatever the row count.

The rows' connection ends its transaction (a streaming cursor needs one) with ``COMMIT``, not
the ``ROLLBACK`` closing it would send: it only read, so either ends it alike, but psycopg
forgets every statement it had prepared on a connection when it rolls back, and the next
requests on that connection would have PostgreSQL plan each statement again (4 ms for a
sample's metadata read, against 0.3 ms prepared).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import Select
from sqlalchemy.engine import Connection

from seqcore.db import request_engine

BATCH = 200

_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def encode(value: Any) -> str:
    """JSON text as the streamed collections write it."""
    return _encode(value)


def stream_collection(
    request: Request,
    links: list[dict] | Callable[[], list[dict]],
    query: Select,
    render: Callable[[Iterable[Any]], Iterator[dict | str]],
    extra: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> Response:
    """A ``{"resource": {"resources": [...], "links": [...]}}`` response streamed from
    ``query``; ``render`` turns the row iterator into entries (it may group rows).

    ``links`` may be a function, called once every entry is written (paging links depend on
    whether more rows followed). ``render`` may yield entries already encoded as JSON text,
    for collections large enough that splicing pre-encoded parts beats encoding dicts.
    ``params`` are the query's parameter values, if it has any.
    """
    engine = request_engine(request)
    extra_json = "".join(f", {_encode(k)}: {_encode(v)}" for k, v in (extra or {}).items())

    def body() -> Iterator[bytes]:
        conn: Connection = engine.connect()
        try:
            rows = conn.execution_options(stream_results=True, yield_per=2000).execute(
                query, params or {})
            yield b'{"resource": {"resources": ['
            batch: list[str] = []
            first = True
            for entry in render(rows):
                batch.append(entry if isinstance(entry, str) else _encode(entry))
                if len(batch) >= BATCH:
                    yield (("" if first else ", ") + ", ".join(batch)).encode()
                    first = False
                    batch = []
            if batch:
                yield (("" if first else ", ") + ", ".join(batch)).encode()
            tail = _encode(links() if callable(links) else links)
            yield f'], "links": {tail}{extra_json}}}}}'.encode()
            conn.commit()
        finally:
            conn.close()

    return Response(app_iter=body(), content_type="application/json", charset="utf-8")
