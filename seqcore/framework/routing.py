"""URL dispatch that tries only the routes a path can match.

Pyramid's routes mapper tries every route in the order they were added until one matches:
with the core's and the plugins' endpoints that is some eighty regular expressions, and a
request for ``/api/projects/1`` tried fifty of them (a Python call and a match each) before
its own. Every pattern begins with literal text (``/api/projects/`` in
``/api/projects/{pid:[0-9]+}``), and a path can only match a route whose literal beginning it
starts with; a pattern that is all literal text (``/api/projects``) matches that path only.
:class:`PrefixRoutesMapper` keeps Pyramid's mapper for everything (adding, listing and
generating routes) and, when matching, tries in their order only the routes whose literal
beginning the path starts with, or whose whole pattern it is: the route chosen is the one
Pyramid's loop would choose, predicates and all.
"""

from __future__ import annotations

import re
from typing import Any, cast

from pyramid.config import Configurator
from pyramid.exceptions import URLDecodeError
from pyramid.interfaces import IRoutesMapper
from pyramid.urldispatch import RoutesMapper
from zope.interface import implementer

# Where a pattern's literal beginning ends: a placeholder ({name}, the old :name) or a
# remainder (*subpath).
_VARIABLE = re.compile(r"[{:*]")
_CANDIDATE_LISTS = 1000  # lists kept (one per distinct set of routes a path may match)


def literal_prefix(pattern: str) -> tuple[str, bool]:
    """The text every path a route with ``pattern`` matches starts with (Pyramid puts a
    leading ``/`` on patterns without one), and whether that is the whole pattern."""
    if not pattern.startswith("/"):
        pattern = "/" + pattern
    variable = _VARIABLE.search(pattern)
    return (pattern, True) if variable is None else (pattern[:variable.start()], False)


@implementer(IRoutesMapper)
class PrefixRoutesMapper:
    """Pyramid's :class:`~pyramid.interfaces.IRoutesMapper`, matching through an index of
    the routes' literal beginnings (see the module)."""

    def __init__(self) -> None:
        self.mapper = RoutesMapper()
        self._prefixes: tuple[str, ...] | None = None
        self._by_prefix: dict[str, list[tuple[int, Any]]] = {}
        self._exact: dict[str, list[tuple[int, Any]]] = {}
        self._candidates: dict[tuple[str | None, ...], tuple[Any, ...]] = {}

    # Pyramid's mapper does the bookkeeping.

    def has_routes(self) -> bool:
        return cast("bool", self.mapper.has_routes())

    def get_routes(self, include_static: bool = False) -> list[Any]:
        return cast("list[Any]", self.mapper.get_routes(include_static=include_static))

    def get_route(self, name: str) -> Any:
        return self.mapper.get_route(name)

    def generate(self, name: str, kw: dict[str, Any]) -> str:
        return cast("str", self.mapper.generate(name, kw))

    def connect(self, name: str, pattern: str, factory: Any = None, predicates: Any = (),
                pregenerator: Any = None, static: bool = False) -> Any:
        route = self.mapper.connect(name, pattern, factory=factory, predicates=predicates,
                                    pregenerator=pregenerator, static=static)
        self._prefixes = None  # the index is built again at the next match
        return route

    # Matching.

    def _index(self) -> tuple[str, ...]:
        by_prefix: dict[str, list[tuple[int, Any]]] = {}
        exact: dict[str, list[tuple[int, Any]]] = {}
        for order, route in enumerate(self.mapper.get_routes()):
            prefix, whole = literal_prefix(route.pattern)
            (exact if whole else by_prefix).setdefault(prefix, []).append((order, route))
        self._by_prefix = by_prefix
        self._exact = exact
        self._candidates = {}
        self._prefixes = prefixes = tuple(by_prefix)
        return prefixes

    def candidates(self, path: str) -> tuple[Any, ...]:
        """The routes ``path`` may match, in the order they were added."""
        prefixes = self._prefixes
        if prefixes is None:
            prefixes = self._index()
        # A regular expression's $ also matches before a final newline: so does this.
        whole = path[:-1] if path.endswith("\n") else path
        matching = [prefix for prefix in prefixes if path.startswith(prefix)]
        key = (whole if whole in self._exact else None, *matching)
        routes = self._candidates.get(key)
        if routes is None:
            entries = [entry for prefix in matching for entry in self._by_prefix[prefix]]
            entries += self._exact.get(whole, ()) if key[0] is not None else ()
            routes = tuple(route for _, route in sorted(entries, key=lambda entry: entry[0]))
            if len(self._candidates) < _CANDIDATE_LISTS:
                self._candidates[key] = routes
        return routes

    def __call__(self, request: Any) -> dict[str, Any]:
        try:
            path = request.path_info or "/"
        except KeyError:
            path = "/"
        except UnicodeDecodeError as e:
            raise URLDecodeError(e.encoding, e.object, e.start, e.end, e.reason) from e
        for route in self.candidates(path):
            match = route.match(path)
            if match is not None:
                predicates = route.predicates
                info = {"match": match, "route": route}
                if predicates and not all(p(info, request) for p in predicates):
                    continue
                return info
        return {"route": None, "match": None}


def includeme(config: Configurator) -> None:
    """Register the mapper before any route is added (``add_route`` uses the registered
    one)."""
    if config.registry.queryUtility(IRoutesMapper) is None:
        config.registry.registerUtility(PrefixRoutesMapper(), IRoutesMapper)
