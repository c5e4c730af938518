"""``/api/openapi.json``: the OpenAPI description of everything registered
(:mod:`seqcore.rest.openapi`)."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.rest.openapi import document_for
from seqcore.security.permissions import Permission


def openapi_document(request: Request) -> dict[str, Any]:
    return document_for(request.registry)


ENDPOINTS = [
    Endpoint("api.openapi", "/api/openapi.json",
             {"GET": View(openapi_document, Permission.API_READ, renderer="json")},
             traverse="/api",
             description="This document: the OpenAPI 3.1 description of the REST interface, "
                         "the installed plugins' endpoints included."),
]
