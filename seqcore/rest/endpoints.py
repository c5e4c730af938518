"""Turning :class:`~seqcore.framework.contrib.Endpoint` declarations into routes and cornice
services.

Each endpoint is a route (public URL pattern) with a traversal path: the context is found by
walking the resource tree from the root, so its ACL, and the ACLs of its parents, decide who
may call the views. Aliases are further endpoints traversing to the same context.
"""

from __future__ import annotations

import re
from typing import Any

from cornice import Service
from pyramid.config import Configurator

from seqcore.framework.contrib import Endpoint
from seqcore.parsing.identifiers import parse_id

# A placeholder that takes digits only: ``{pid:\d+}``.
_ID_PLACEHOLDER = re.compile(r"\{(\w+):\\d\+\}")


def _route_factory(request: Any) -> Any:
    from seqcore.resources.root import Root

    return Root(request)


def ascii_digits(pattern: str) -> str:
    """``pattern`` with ``\\d`` meaning ``[0-9]``: in Python's regular expressions ``\\d`` also
    matches other scripts' digits (Arabic-Indic, Devanagari...), which name no id (see
    :mod:`seqcore.parsing.identifiers`), so such a path matches no id route and is a plain 404."""
    return pattern.replace("\\d", "[0-9]")


def id_placeholders(pattern: str) -> tuple[str, ...]:
    """The names of ``pattern``'s digits-only placeholders (``pid`` in ``{pid:\\d+}``)."""
    return tuple(_ID_PLACEHOLDER.findall(pattern))


class IdsPredicate:
    """Route predicate ``ids``: every named placeholder holds a number an id column can
    hold (see :func:`seqcore.parsing.identifiers.parse_id`). A path with a larger number matches no
    route and is a plain 404, before any view or query sees a number the database would
    refuse to bind."""

    def __init__(self, names: tuple[str, ...], config: Configurator) -> None:
        self.names = tuple(names)

    def text(self) -> str:
        return f"ids = {self.names}"

    phash = text

    def __call__(self, info: dict[str, Any], request: Any) -> bool:
        match = info["match"]
        return all(parse_id(match[name]) is not None for name in self.names)


def add_endpoint(config: Configurator, endpoint: Endpoint) -> None:
    """Register one endpoint; a second endpoint with the same name or path conflicts."""
    traverse = endpoint.traverse or endpoint.path
    extra: dict[str, Any] = {}
    ids = id_placeholders(endpoint.path)
    if ids:
        extra["ids"] = ids
    config.add_route(endpoint.name, ascii_digits(endpoint.path), factory=_route_factory,
                     traverse=traverse, **extra)
    service = Service(name=endpoint.name, pyramid_route=endpoint.name,
                      description=endpoint.description)
    for method, view in endpoint.views.items():
        kwargs: dict[str, Any] = {}
        if view.permission is not None:
            kwargs["permission"] = view.permission
        if view.renderer is not None:
            kwargs["renderer"] = view.renderer
        service.add_view(method, view.callable, **kwargs)

    def register() -> None:
        config.registry.setdefault("seqcore.services_by_route", {})[endpoint.name] = service
        config.registry.setdefault("seqcore.endpoints", {})[endpoint.name] = endpoint

    config.add_cornice_service(service)
    config.action(("seqcore.endpoint.path", endpoint.path), register)


def includeme(config: Configurator) -> None:
    config.add_route_predicate("ids", IdsPredicate)
    config.add_directive("add_endpoint", add_endpoint)
