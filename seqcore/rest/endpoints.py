"""Turning :class:`~seqcore.contrib.Endpoint` declarations into routes and cornice services.

Each endpoint is a route (public URL pattern) with a traversal path: the context is found by
walking the resource tree from the root, so its ACL, and the ACLs of its parents, decide who
may call the views. Aliases are further endpoints traversing to the same context.
"""

from __future__ import annotations

from typing import Any

from cornice import Service
from pyramid.config import Configurator

from seqcore.contrib import Endpoint


def _route_factory(request: Any) -> Any:
    from seqcore.resources.root import Root

    return Root(request)


def ascii_digits(pattern: str) -> str:
    """``pattern`` with ``\\d`` meaning ``[0-9]``: in Python's regular expressions ``\\d`` also
    matches other scripts' digits (Arabic-Indic, Devanagari...), which name no id (see
    :mod:`seqcore.identifiers`), so such a path matches no id route and is a plain 404."""
    return pattern.replace("\\d", "[0-9]")


def add_endpoint(config: Configurator, endpoint: Endpoint) -> None:
    """Register one endpoint; a second endpoint with the same name or path conflicts."""
    traverse = endpoint.traverse or endpoint.path
    config.add_route(endpoint.name, ascii_digits(endpoint.path), factory=_route_factory,
                     traverse=traverse)
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
    config.add_directive("add_endpoint", add_endpoint)
