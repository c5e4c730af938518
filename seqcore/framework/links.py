"""One authority for hypermedia links.

Links are registered per context type (``config.add_link(LinkSpec(...))``, or a plugin's
``register_links`` hook) into the application's :class:`LinkService` (the
:class:`~seqcore.services.ILinkService`) and rendered by :func:`links_for`; views never
format URLs. The discriminator ``("seqcore.link", context, rel)`` makes two registrations of
one rel on one context type a start-up conflict that names both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from pyramid.config import Configurator
from pyramid.request import Request
from zope.interface import implementer

from seqcore.framework.contrib import LinkSpec
from seqcore.resources.base import Context
from seqcore.services import ILinkService, registry_service

Href = Callable[[Request, Any], "str | None"]


@implementer(ILinkService)
class LinkService:
    """The registered links of one application, by the context type they were declared on."""

    def __init__(self) -> None:
        self._table: dict[type, list[LinkSpec]] = {}

    def add(self, spec: LinkSpec, after: Iterable[str] = ()) -> None:
        """Append ``spec`` to its context type's links; with ``after``, place it right after
        the last link already there whose rel is one of those (links answer in this order)."""
        specs = self._table.setdefault(spec.context, [])
        anchors = set(after)
        if not anchors:
            specs.append(spec)
            return
        anchor = max((i for i, s in enumerate(specs) if s.rel in anchors), default=-1)
        specs.insert(anchor + 1, spec)

    def specs_for(self, context_type: type) -> list[LinkSpec]:
        return self._table.get(context_type, [])


def link_service(request: Request) -> LinkService:
    """The application's link service: ``request.link_service``, looked up once per
    request (rendering a page of entries asks for it once per entry)."""
    registry = request.registry
    service = registry.get(SERVICE_KEY)
    if service is None:  # looked up once per application: find_service is not cheap
        service = registry[SERVICE_KEY] = request.find_service(ILinkService, context=None)
    return cast("LinkService", service)


SERVICE_KEY = "seqcore.link_service"


def resource_path(resource: Any) -> str:
    """``/api/projects/5`` for a context, from its ``__name__``/``__parent__`` lineage;
    kept on the context once worked out (one resource's links ask for it about six times,
    and a context's place in the tree never changes)."""
    cached = getattr(resource, "__dict__", {}).get(_PATH)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    names = []
    node = resource
    while node is not None:
        name = getattr(node, "__name__", "")
        if name:
            names.append(str(name))
        node = getattr(node, "__parent__", None)
    path = "/" + "/".join(reversed(names))
    if isinstance(resource, Context):
        resource.__dict__[_PATH] = path
    return path


_PATH = "_seqcore_resource_path"


def url_for(request: Request, resource: Any, *elements: str) -> str:
    """The absolute URL of ``resource`` (no trailing slash), plus optional path elements.

    A context reached through another one (a sample listed under a project) names its
    canonical location in ``canonical``; URLs point there.
    """
    path = resource_path(getattr(resource, "canonical", resource))
    if elements:
        path = path.rstrip("/") + "/" + "/".join(str(e) for e in elements)
    return application_url(request) + path


def application_url(request: Request) -> str:
    """``request.application_url``, worked out once per request (webob rebuilds it from the
    environ on every access, and one resource's links need it about six times)."""
    cached = request.__dict__.get(_APPLICATION_URL)
    if cached is None:
        cached = request.__dict__[_APPLICATION_URL] = request.application_url
    return cast("str", cached)


_APPLICATION_URL = "_seqcore_application_url"


def static(href: Href) -> Href:
    """Mark an href function as depending only on where the resource is, not on its state.

    Collections of thousands of entries render the links of one entry and substitute each
    entry's id into them, instead of calling every href for every entry; that is only
    correct for hrefs marked static (and links without a ``when`` guard).
    """
    href.static = True  # type: ignore[attr-defined]
    return href


def child_href(*elements: str) -> Href:
    """An href for a sub-path of the resource: ``child_href("samples")``."""
    return static(lambda request, resource: url_for(request, resource, *elements))


def api_href(*elements: str) -> Href:
    """An href below ``/api`` regardless of the resource: ``api_href("users")``."""
    return static(lambda request, resource: application_url(request) + "/api/" +
                  "/".join(elements))


def links_template(request: Request, sentinel: Any, sentinel_id: str
                   ) -> Callable[[str], list[dict[str, Any]]] | None:
    """Links for many resources of one type at the cost of one.

    ``sentinel`` is a resource of the type whose id is ``sentinel_id`` (a string that occurs
    nowhere else in a URL). Returns a function from an id to that resource's links, or
    ``None`` when some link depends on the resource's state (then call :func:`links_for`
    per resource).
    """
    service = request.link_service
    for cls in type(sentinel).__mro__:
        for spec in service.specs_for(cls):
            if spec.when is not None or not getattr(spec.href, "static", False):
                return None
    template = links_for(request, sentinel)

    def render(identifier: str) -> list[dict[str, Any]]:
        return [{"rel": link["rel"], "href": link["href"].replace(sentinel_id, identifier)}
                for link in template]

    return render


def add_link(config: Configurator, spec: LinkSpec, info: str | None = None,
             after: Callable[[], Iterable[str]] | None = None) -> None:
    """Register ``spec`` as a conflict-checked action; ``after()``, asked when the action
    runs, names the rels it goes right after (see :meth:`LinkService.add`)."""

    def register() -> None:
        registry_service(config.registry, ILinkService).add(spec, after() if after else ())

    intr = config.introspectable("seqcore links", (spec.context, spec.rel),
                                 f"{spec.context.__name__} {spec.rel}", "seqcore link")
    intr["spec"] = spec
    # order=1: after the services are registered (order 0), whichever object a deployment or
    # test registered for ILinkService.
    config.action(("seqcore.link", spec.context, spec.rel), register, introspectables=(intr,),
                  order=1)


def links_for(request: Request, resource: Any,
              self_href: str | None = None) -> list[dict[str, Any]]:
    """Every link of ``resource``: ``self`` first, then registered rels in order.

    Links registered on a base class appear on subclasses; a ``when`` guard or an ``href``
    returning ``None`` leaves the link out.
    """
    service = request.link_service
    links = []
    if getattr(resource, "has_self_link", True):
        links.append({"rel": "self", "href": self_href or url_for(request, resource)})
    seen = {"self"}
    for cls in reversed(type(resource).__mro__):
        for spec in service.specs_for(cls):
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
    config.register_service(LinkService(), ILinkService)
    config.add_request_method(link_service, "link_service", reify=True)
    config.add_directive("add_link", add_link)
