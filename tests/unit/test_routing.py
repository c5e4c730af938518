"""URL dispatch through ``seqcore.framework.routing``: for every route of the application under test
and paths built from their patterns (and their neighbours), the route chosen is the one
Pyramid's own mapper chooses."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pyramid.interfaces import IRequestFactory, IRoutesMapper
from pyramid.urldispatch import RoutesMapper

from seqcore.framework.routing import PrefixRoutesMapper, literal_prefix, slash_count

_PLACEHOLDER = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")


def paths_for(pattern: str) -> list[str]:
    """Paths a route's pattern may or may not match: its placeholders filled in several
    ways, with and without a trailing slash or a further segment."""
    base = pattern if pattern.startswith("/") else "/" + pattern
    paths = []
    for value in ("1", "42", "abc", "A_b-c", "1x", "%20"):
        path = _PLACEHOLDER.sub(value, base).replace("*subpath", "a/b.css")
        paths += [path, path + "/", path + "/extra", path + "\n", path[:-1]]
    return paths


EDGE_PATHS = ["/", "", "/api", "/api/", "/apix", "/api/projects", "/api/projects/",
              "/api/projects/1", "/api/projects//1", "/API/projects/1", "/api/projects/1/x/y",
              "/-/static/x.css", "/-/health", "/nothing", "/api/samples/1/pairs/2/files/3/qc",
              "/api/sequencingrun/MiSeq", "/api/sequencingrun/7", "/users/sign_in"]


@pytest.fixture(scope="module")
def mappers(app: Any) -> tuple[Any, RoutesMapper]:
    ours = app.registry.getUtility(IRoutesMapper)
    reference = RoutesMapper()
    for route in ours.get_routes():
        reference.connect(route.name, route.pattern, route.factory,
                          predicates=route.predicates, pregenerator=route.pregenerator)
    return ours, reference


def test_the_application_dispatches_through_the_prefix_index(app: Any) -> None:
    assert isinstance(app.registry.getUtility(IRoutesMapper), PrefixRoutesMapper)


def test_every_path_gets_the_route_pyramid_would_choose(app: Any, mappers: Any) -> None:
    ours, reference = mappers
    paths = {p for route in ours.get_routes() for p in paths_for(route.pattern)}
    paths.update(EDGE_PATHS)
    factory = app.registry.getUtility(IRequestFactory)
    chosen = 0
    for method in ("GET", "POST"):
        for path in sorted(paths):
            request = factory.blank("/", environ={"REQUEST_METHOD": method})
            request.registry = app.registry
            request.path_info = path
            got, expected = ours(request), reference(request)
            assert (got["route"] and got["route"].name) == \
                (expected["route"] and expected["route"].name), (method, path)
            assert got["match"] == expected["match"], (method, path)
            chosen += got["route"] is not None
    assert chosen > 100  # most of the paths name a route


@pytest.mark.parametrize("pattern, prefix", [
    ("/api/projects/{pid:[0-9]+}", ("/api/projects/", False)),
    ("/api/projects", ("/api/projects", True)),
    ("api/projects", ("/api/projects", True)),
    ("-/static/*subpath", ("/-/static/", False)),
    ("/old/:name/style", ("/old/", False)),
    ("/x{a}y", ("/x", False)),
    ("", ("/", True)),
])
def test_the_literal_beginning_of_a_pattern(pattern: str, prefix: tuple[str, bool]) -> None:
    assert literal_prefix(pattern) == prefix


def test_routes_added_later_are_matched_in_their_order() -> None:
    mapper = PrefixRoutesMapper()
    mapper.connect("any", "/a/{x}")
    request = type("R", (), {"path_info": "/a/b"})()
    assert mapper(request)["route"].name == "any"
    mapper.connect("first", "/a/b")  # added after a match: the index is made again
    assert mapper(request)["route"].name == "any"  # still first in order
    mapper.connect("any", "/z/{x}")  # a route replaced under its name
    assert mapper(request)["route"].name == "first"


@pytest.mark.parametrize("pattern, slashes", [
    ("/api/projects/{pid:[0-9]+}", 3),
    ("/api/projects", 2),
    ("api/projects/{pid}/samples", 4),
    ("/api/sequencingrun/{type:[A-Za-z][A-Za-z0-9_\\-]*}", 3),
    ("/x/{a:\\d{4}}-{b:\\w+}", 2),
    ("/x/{a:[\\w.]+}", 2),
    # Placeholders that may match a "/", or that are not recognised: any count.
    ("-/static/*subpath", None),
    ("/old/:name/style", None),
    ("/x/{a:.*}", None),
    ("/x/{a:[^x]+}", None),
    ("/x/{a:[ -~]+}", None),
    ("/x/{a:[+-9]}", None),
    ("/x/{a:[\\/a]+}", None),
    ("/x/{a:[\\D]+}", None),
    ("/x/{a:\\S+}", None),
    ("/x/{a:a|b/c}", None),
    ("/x/{a:(?:[0-9]+)}", None),
])
def test_how_many_slashes_a_pattern_fixes(pattern: str, slashes: int | None) -> None:
    assert slash_count(pattern) == slashes


def test_routes_of_another_shape_are_not_tried() -> None:
    """A plugin's deeper routes under the same beginning, added first, are not candidates for
    a path with fewer segments: what ``/api/projects/1`` tries does not grow with them."""
    mapper = PrefixRoutesMapper()
    for n in range(20):
        mapper.connect(f"plugin.{n}", f"/api/projects/{{pid:[0-9]+}}/plugin{n}")
        mapper.connect(f"plugin.{n}.item", f"/api/projects/{{pid:[0-9]+}}/plugin{n}/{{x}}")
    mapper.connect("project", "/api/projects/{pid:[0-9]+}")
    mapper.connect("anything", "/api/projects/{rest:.*}")
    assert [r.name for r in mapper.candidates("/api/projects/1")] == ["project", "anything"]
    assert [r.name for r in mapper.candidates("/api/projects/1/plugin3")] == \
        [f"plugin.{n}" for n in range(20)] + ["anything"]
    request = type("R", (), {"path_info": "/api/projects/1/plugin3"})()
    assert mapper(request)["route"].name == "plugin.3"
    request.path_info = "/api/projects/1/plugin3/a/b"
    assert mapper(request)["route"].name == "anything"


def test_variable_patterns_choose_as_pyramid_does() -> None:
    patterns = ["/a/{x:[0-9]+}", "/a/{x:.*}/b", "/a/{x}/{y}", "/a/*rest", "/a/{x:[^0-9]+}",
                "/a", "/a/{x:[0-9]+}/c"]
    ours, reference = PrefixRoutesMapper(), RoutesMapper()
    for n, pattern in enumerate(patterns):
        ours.connect(str(n), pattern)
        reference.connect(str(n), pattern)
    for path in ["/a", "/a/", "/a/1", "/a/1/", "/a/1/b", "/a/x/y/b", "/a/1/c", "/a/x/y",
                 "/a/x/y/z", "/a/1\n", "/a/1/c\n", "/a/x", "/a//"]:
        request = type("R", (), {"path_info": path})()
        got, expected = ours(request), reference(request)
        assert (got["route"] and got["route"].name) == \
            (expected["route"] and expected["route"].name), path
        assert got["match"] == expected["match"], path
