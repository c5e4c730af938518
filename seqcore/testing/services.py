"""Swapping an application's services in tests.

The core and plugins find storage, the QC engine, the link service, executors and the
database through the interfaces of :mod:`seqcore.services`; a test replaces one by
registering another object for the same interface::

    def test_reports_come_from_the_engine(swap_service, testapp):
        swap_service(IQCEngine, RecordingEngine())
        ...

The ``swap_service`` fixture swaps on the session's application and puts the original back
when the test ends. :func:`replace_service` does the same on any built application (the
registry, a Configurator, a router or a WebTest app) and returns the function that undoes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pyramid.registry import Registry
from pyramid_services import IServiceRegistry, ProxyFactory, SingletonServiceWrapper
from zope.interface import Interface


def _registry(app: Any) -> Registry:
    """The registry of a Registry, Configurator, router or WebTest ``TestApp``."""
    if isinstance(app, Registry):
        return app
    for candidate in (getattr(app, "registry", None),
                      getattr(getattr(app, "app", None), "registry", None)):
        if isinstance(candidate, Registry):
            return candidate
    raise TypeError(f"cannot find a Pyramid registry on {app!r}")


def replace_service(app: Any, iface: type[Interface], service: Any,
                    name: str = "") -> Callable[[], None]:
    """Register ``service`` for ``iface`` (and ``name``) on a committed application.

    Requests that start afterwards, and workers built afterwards, get ``service``. Returns a
    function that registers the previous service again. Raises :class:`LookupError` when
    nothing was registered for ``iface``: a swap replaces a service, it does not invent one
    (a misspelt interface would otherwise pass silently).
    """
    services = _registry(app).getUtility(IServiceRegistry)
    previous = services.find_factory(iface, name=name)
    if previous is None:
        raise LookupError(f"no service registered for {iface.__name__}"
                          + (f" named {name!r}" if name else "") + " to swap")
    services.register_factory(ProxyFactory(SingletonServiceWrapper(service)), iface,
                              name=name)

    def restore() -> None:
        services.register_factory(previous, iface, name=name)

    return restore


@pytest.fixture
def swap_service(app: Any) -> Iterator[Callable[..., Any]]:
    """``swap_service(iface, service, name="")`` replaces a service of the test
    application until the test ends; returns ``service``."""
    restores: list[Callable[[], None]] = []

    def swap(iface: type[Interface], service: Any, name: str = "") -> Any:
        restores.append(replace_service(app, iface, service, name))
        return service

    yield swap
    for restore in reversed(restores):
        restore()
