"""One request class for the application, holding every request extension.

``config.add_request_method`` (seqcore's ``request.db``, pyramid_tm's ``request.tm``,
pyramid_services' ``request.find_service``, cornice's ``request.current_service``...) keeps
the extensions in the registry's :class:`~pyramid.interfaces.IRequestExtensions`, and Pyramid
applies them to every request as it starts: methods are bound one by one, and properties
(``reify=True``) are put on a new subclass of the request class made for that request alone.
Making a class costs more than a small request's own work, its methods' lookups start cold,
and it lives in a reference cycle until the garbage collector runs.

So, once every other configuration action has run, this module makes the subclass once: the
registered request class (``IRequestFactory``, Pyramid's :class:`~pyramid.request.Request`
by default) with every extension as a class attribute, registered as the request factory,
and leaves Pyramid an empty set of extensions to apply. A request behaves as before (the
same names, reified once per request); an extension added later still works the old way.
"""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.interfaces import IRequestExtensions, IRequestFactory
from pyramid.registry import Registry
from pyramid.request import Request
from zope.interface import implementer

_MISSING = object()

LAST = 10_000
"""The order of the action: after every other (Pyramid's and plugins' run at 0 or less)."""


@implementer(IRequestExtensions)
class Extensions:
    """Extensions Pyramid applies per request: none once they live on the class."""

    def __init__(self) -> None:
        self.descriptors: dict[str, Any] = {}
        self.methods: dict[str, Any] = {}


def request_class(base: type[Request], extensions: Any) -> type[Request]:
    """``base`` with ``extensions``' properties and methods as class attributes, as
    Pyramid's per-request subclass would hold them."""
    attrs: dict[str, Any] = {**extensions.methods, **extensions.descriptors}
    attrs["__module__"] = base.__module__
    # As Pyramid does for its per-request class: the subclass shares the base's interface
    # declarations, so it is looked up (views, adapters) exactly as the base is.
    for name in ("__implemented__", "__provides__"):
        value = getattr(base, name, _MISSING)
        if value is not _MISSING:
            attrs[name] = value
    return type(base.__name__, (base, object), attrs)


def install(registry: Registry) -> None:
    """Move the registered extensions onto one request class (see the module)."""
    extensions = registry.queryUtility(IRequestExtensions)
    if extensions is None or not (extensions.descriptors or extensions.methods):
        return
    base = registry.queryUtility(IRequestFactory, default=Request)
    if not (isinstance(base, type) and issubclass(base, Request)):
        return  # a factory function: leave Pyramid to apply the extensions per request
    registry.registerUtility(request_class(base, extensions), IRequestFactory)
    registry.registerUtility(Extensions(), IRequestExtensions)


def includeme(config: Configurator) -> None:
    config.action("seqcore.request_class", lambda: install(config.registry), order=LAST)
