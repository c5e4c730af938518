"""Request extensions live on one request class (``seqcore.framework.requestclass``), not on a class
Pyramid makes for every request."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
from pyramid.interfaces import IRequestExtensions, IRequestFactory
from pyramid.request import Request
from webob.request import environ_from_url


def test_the_application_s_requests_are_one_class_with_every_extension(app: Any) -> None:
    factory = app.registry.getUtility(IRequestFactory)
    extensions = app.registry.getUtility(IRequestExtensions)
    assert issubclass(factory, Request)
    assert extensions.descriptors == {} and extensions.methods == {}
    classes = set()
    for _ in range(3):
        with app.request_context(environ_from_url("/api/projects")) as request:
            classes.add(type(request))
            # seqcore's, pyramid_tm's, pyramid_services' and cornice's extensions
            assert request.tm is request.tm  # reified once per request
            assert callable(request.find_service)
            assert request.link_service is not None
            assert request.current_service is None
    assert classes == {factory}


def extension_app(*, late: bool) -> Any:
    counted: list[int] = []

    def counter(request: Request) -> int:
        counted.append(1)
        return len(counted)

    config = Configurator()
    config.include("seqcore.framework.requestclass")
    config.add_request_method(counter, "counter", reify=True)
    config.add_request_method(lambda request, x: x * 2, "double")
    if late:  # after the class was made: Pyramid applies it per request, as before
        config.commit()
        config.add_request_method(lambda request: "late", "late", property=True)
    return config.make_wsgi_app()


def test_reified_properties_and_methods_behave_as_pyramid_s() -> None:
    app = extension_app(late=False)
    for expected in (1, 2):
        with app.request_context(environ_from_url("/")) as request:
            assert request.counter == expected  # computed once per request...
            assert request.counter == expected  # ...then kept
            assert request.double(4) == 8


def test_an_extension_added_later_still_applies() -> None:
    app = extension_app(late=True)
    with app.request_context(environ_from_url("/")) as request:
        assert request.late == "late"
        assert request.counter == 1
