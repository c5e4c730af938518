"""One authority for hypermedia links.

Links are registered per context type (``config.add_link(LinkSpec(...))``, or a plugin's
``register_links`` hook) and rendered by :func:`links_for`; views never format URLs. The
discriminator ``("seqcore.link", context, rel)`` makes two registrations of one rel on one
context type a start-up conflict that names both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request

from seqcore.contrib import LinkSpec

Href = Callable[[Request, Any], "str | None"]


def resource_path(resource: Any) -> str:
    """``/api/projects/5`` for a context, from its ``__name__``/``__parent__`` lineage."""
    names = []
    node = resource
    while node is not None:
        name = getattr(node, "__name__", "")
        if name:
            names.append(str(name))
        node = getattr(node, "__parent__", None)
    return "/" + "/".join(reversed(names))


def url_for(request: Request, resource: Any, *elements: str) -> str:
    """The absolute URL of ``resource`` (no trailing slash), plus optional path elements."""
    path = resource_path(resource)
    if elements:
        path = path.rstrip("/") + "/" + "/".join(str(e) for e in elements)
    return request.application_url + path


def child_href(*elements: str) -> Href:
    """An href for a sub-path of the resource: ``child_href("samples")``."""
    return lambda request, resource: url_for(request, resource, *elements)


def api_href(*elements: str) -> Href:
    """An href below ``/api`` regardless of the resource: ``api_href("users")``."""
    return lambda request, resource: request.application_url + "/api/" + "/".join(elements)


def add_link(config: Configurator, spec: LinkSpec, info: str | None = None) -> None:
    def register() -> None:
        table = config.registry.setdefault("seqcore.links", {})
        table.setdefault(spec.context, []).append(spec)

    intr = config.introspectable("seqcore links", (spec.context, spec.rel),
                                 f"{spec.context.__name__} {spec.rel}", "seqcore link")
    intr["spec"] = spec
    config.action(("seqcore.link", spec.context, spec.rel), register, introspectables=(intr,))


def links_for(request: Request, resource: Any, self_href: str | None = None) -> list[dict]:
    """Every link of ``resource``: ``self`` first, then registered rels in order.

    Links registered on a base class appear on subclasses; a ``when`` guard or an ``href``
    returning ``None`` leaves the link out.
    """
    table: dict[type, list[LinkSpec]] = request.registry.get("seqcore.links", {})
    links = []
    if getattr(resource, "has_self_link", True):
        links.append({"rel": "self", "href": self_href or url_for(request, resource)})
    seen = {"self"}
    for cls in reversed(type(resource).__mro__):
        for spec in table.get(cls, ()):
            if spec.rel in seen:
                continue
            if spec.when is not None and not spec.when(request, resource):
                continue
            href = spec.href(request, resource)
            if href is None:
                continue
            seen.add(spec.rel)
            links.append({"rel": spec.rel, "href": href})
    return links


def includeme(config: Configurator) -> None:
    config.add_directive("add_link", add_link)
