"""``GET /api/projects/{id}/activity`` and ``GET /api/samples/{id}/history``: the audit trail
(:mod:`seqcore.governance.activity`), newest first, in pages.

Parameters: ``limit`` (1..500, default 50), ``before`` (the cursor: the ``next`` link
carries it), ``since`` and ``until`` (epoch milliseconds, or ``YYYY-MM-DD`` UTC days;
``until`` is exclusive), ``kind`` (repeatable: ``sample`` selects ``sample.*``). A bad value
is a 400 naming the parameter.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.governance.activity import ActivityQuery, activities
from seqcore.rest.errors import validation_error
from seqcore.rest.paging import int_param
from seqcore.rest.values import epoch_ms
from seqcore.security.fieldaccess import Caller
from seqcore.security.permissions import Permission

MAX_LIMIT = 500


def _time(request: Request, name: str) -> datetime | None:
    raw = request.GET.get(name)
    if raw is None:
        return None
    try:
        if raw.isascii() and raw.isdigit():
            return datetime.fromtimestamp(int(raw) / 1000, UTC).replace(tzinfo=None)
        if len(raw) == 10:
            return datetime.strptime(raw, "%Y-%m-%d")
    except (ValueError, OverflowError, OSError):
        pass
    raise validation_error({name: [f"'{name}' must be epoch milliseconds or a date "
                                   "(YYYY-MM-DD)."]})


def query_of(request: Request) -> ActivityQuery:
    kinds = tuple(request.GET.getall("kind"))
    if any(not k or len(k) > 64 for k in kinds):
        raise validation_error({"kind": ["Each 'kind' is a non-empty name (sample, "
                                         "sample.update, ...)."]})
    return ActivityQuery(since=_time(request, "since"), until=_time(request, "until"),
                         kinds=kinds, limit=int_param(request, "limit", 1, MAX_LIMIT) or 50,
                         before_id=int_param(request, "before", 1, 2**63 - 1))


def _page(request: Request, self_href: str, **subject: Any) -> dict:
    query = query_of(request)
    entries, cursor = activities(request.db, Caller.of(request.identity), query, **subject)
    resources = [{"kind": e["kind"], "createdDate": epoch_ms(e["created"]),
                  "actor": e["actor"], "requestId": e["requestId"], "changes": e["changes"],
                  "identifier": str(e["id"])} for e in entries]
    links = [{"rel": "self", "href": self_href + (f"?{request.query_string}"
                                                 if request.query_string else "")}]
    if cursor is not None:
        params = [(k, v) for k, v in request.GET.items() if k != "before"]
        links.append({"rel": "next",
                      "href": f"{self_href}?{urlencode([*params, ('before', cursor)])}"})
    return {"resource": {"resources": resources, "links": links}}


def project_activity(request: Request) -> dict:
    return _page(request, url_for(request, request.context, "activity"),
                 project_id=request.context.project_id)


def sample_history(request: Request) -> dict:
    return _page(request, url_for(request, request.context, "history"),
                 sample_id=request.context.sample.id)


ENDPOINTS = [
    Endpoint("api.project.activity", "/api/projects/{pid:\\d+}/activity", {
        "GET": View(project_activity, Permission.PROJECT_READ),
    }, traverse="/api/projects/{pid}",
       description="The project's audit trail, newest first (paged; filter by time, kind)."),
    Endpoint("api.sample.history", "/api/samples/{sid:\\d+}/history", {
        "GET": View(sample_history, Permission.SAMPLE_READ),
    }, traverse="/api/samples/{sid}",
       description="A sample's audit trail, newest first (paged; filter by time, kind)."),
]
