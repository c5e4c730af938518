"""``/api/openapi.json``: the OpenAPI description of everything registered
(:mod:`seqcore.rest.openapi`)."""

from __future__ import annotations

from pyramid.request import Request
from pyramid.response import Response

from seqcore.framework.contrib import Endpoint, View
from seqcore.rest.openapi import document_bytes
from seqcore.security.permissions import Permission


def openapi_document(request: Request) -> Response:
    """The document's JSON, serialised once per application: it is fixed at start-up and
    large (every endpoint of the core and plugins), so serialising it per request would
    cost far more than answering."""
    return Response(body=document_bytes(request.registry), content_type="application/json",
                    charset="utf-8")


ENDPOINTS = [
    Endpoint("api.openapi", "/api/openapi.json",
             {"GET": View(openapi_document, Permission.API_READ, renderer="json")},
             traverse="/api",
             description="This document: the OpenAPI 3.1 description of the REST interface, "
                         "the installed plugins' endpoints included."),
]
