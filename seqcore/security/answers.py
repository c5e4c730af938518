"""Answers the security tweens give before any transport is reached.

They answer ``/api`` requests in the shape of every API error (``{"message": ...}``) and
other paths as pages. Built here rather than borrowed from the REST transport, because
security sits below the transports (``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Mapping

from pyramid.response import Response


def is_api(path: str) -> bool:
    """Whether ``path`` belongs to the API (``/api`` and below)."""
    return path == "/api" or path.startswith("/api/")


def json_error(status: int, message: str, headers: Mapping[str, str] | None = None
               ) -> Response:
    """``{"message": ...}`` with ``status`` (and any ``headers``, such as
    ``WWW-Authenticate``)."""
    response = Response(status=status, json_body={"message": message})
    if headers:
        response.headers.update(headers)
    return response
