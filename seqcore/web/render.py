"""Server-rendered pages: Mako templates with HTML escaping on by default."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from mako.lookup import TemplateLookup
from pyramid.request import Request
from pyramid.response import Response

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"


def static_path(request: Request, name: str) -> str:
    """The URL path of one of seqcore's own static files."""
    return request.static_path(str(STATIC / name))


@cache
def lookup() -> TemplateLookup:
    return TemplateLookup(directories=[str(TEMPLATES)], default_filters=["h"],
                          strict_undefined=True, input_encoding="utf-8")


def page(request: Request, template: str, status: int = 200, **values: Any) -> Response:
    from seqcore.security.policy import session_identity

    body = lookup().get_template(template).render(
        request=request, identity=session_identity(request),
        csrf_token=request.session.get_csrf_token(),
        static=lambda name: static_path(request, name), **values)
    response = Response(body, status=status, content_type="text/html", charset="utf-8")
    # Pages may hold a token's secret or a CSRF token: never cache them.
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    return response
