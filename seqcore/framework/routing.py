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

The literal beginning alone still left, for ``/api/projects/1``, every route under
``/api/projects/`` a plugin adds (``/api/projects/{pid}/referenceFiles`` and the like, added
before the core's own): each installed plugin would have added regular expressions to every
project request. Most patterns also fix how many ``/`` a path they match holds (their
placeholders match no ``/``: Pyramid's default ``[^/]+``, ``[0-9]+``...); such a route is a
candidate only for paths with as many. A route whose placeholders might match a ``/`` (a
``*remainder``, ``.``, a negated class, anything :func:`slash_count` does not recognise) is a
candidate whatever the count. What a request tries thus depends on the routes of the same
shape, not on how many routes the plugins add elsewhere; the candidate lists are made once per
distinct (beginnings, count) and kept.
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
# A placeholder as Pyramid reads it: {name} or {name:regex}, the regex holding at most one
# level of braces ({x:[0-9]{4}}).
_PLACEHOLDER = re.compile(r"\{[_a-zA-Z][^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
# One item of a placeholder's regex that cannot match "/": a character class (checked below),
# \d, \w or a plain character, with an optional quantifier.
_SLASH_FREE_ITEM = re.compile(
    r"(?:\[(?P<cls>(?:[^\]\\]|\\.)*)\]|\\[dw]|[A-Za-z0-9_~-])(?:[+*?]|\{\d+(?:,\d*)?\})?")
# An escape in a class that stands for itself (\- \. \_ ...) or for digits or word characters.
_CLASS_ESCAPE = re.compile(r"\\(?:[dw]|[^A-Za-z0-9])")


def literal_prefix(pattern: str) -> tuple[str, bool]:
    """The text every path a route with ``pattern`` matches starts with (Pyramid puts a
    leading ``/`` on patterns without one), and whether that is the whole pattern."""
    if not pattern.startswith("/"):
        pattern = "/" + pattern
    variable = _VARIABLE.search(pattern)
    return (pattern, True) if variable is None else (pattern[:variable.start()], False)


def _class_without_slash(body: str) -> bool:
    """Whether the character class ``[body]`` certainly excludes "/": not negated, no "/" in
    it, no range across it, escapes only for \\d, \\w or a character standing for itself."""
    if not body or body.startswith("^"):
        return False
    items: list[str] = []  # single characters, or "" for an escape (no range from or to it)
    i = 0
    while i < len(body):
        if body[i] == "\\":
            escape = _CLASS_ESCAPE.match(body, i)
            if escape is None or escape.group() == "\\/":
                return False
            items.append("" if escape.group()[1] in "dw" else escape.group()[1])
            i = escape.end()
        else:
            items.append(body[i])
            i += 1
    j = 0
    while j < len(items):
        if j + 2 < len(items) and items[j + 1] == "-" and items[j] and items[j + 2]:
            if items[j] <= "/" <= items[j + 2]:
                return False
            j += 3
        elif items[j] == "/":
            return False
        else:
            j += 1
    return True


def slash_free(regex: str) -> bool:
    """Whether a placeholder's regular expression certainly matches no "/" (a conservative
    reading: ``False`` for anything not recognised)."""
    pos = 0
    while pos < len(regex):
        item = _SLASH_FREE_ITEM.match(regex, pos)
        if item is None or item.end() == pos:
            return False
        body = item.group("cls")
        if body is not None and not _class_without_slash(body):
            return False
        pos = item.end()
    return bool(regex)


def slash_count(pattern: str) -> int | None:
    """How many "/" every path a route with ``pattern`` matches holds, or ``None`` when its
    placeholders might match some (a ``*remainder``, an old-style ``:name``, a regex
    :func:`slash_free` does not vouch for)."""
    if not pattern.startswith("/"):
        pattern = "/" + pattern
    literal = []
    pos = 0
    for placeholder in _PLACEHOLDER.finditer(pattern):
        literal.append(pattern[pos:placeholder.start()])
        _, colon, regex = placeholder.group()[1:-1].partition(":")
        if colon and not slash_free(regex.strip()):
            return None
        pos = placeholder.end()
    literal.append(pattern[pos:])
    text = "".join(literal)
    if "*" in text or ":" in text or "{" in text or "}" in text:
        return None
    return text.count("/")


@implementer(IRoutesMapper)
class PrefixRoutesMapper:
    """Pyramid's :class:`~pyramid.interfaces.IRoutesMapper`, matching through an index of
    the routes' literal beginnings (see the module)."""

    def __init__(self) -> None:
        self.mapper = RoutesMapper()
        self._prefixes: tuple[str, ...] | None = None
        self._by_prefix: dict[str, list[tuple[int, int | None, Any]]] = {}
        self._exact: dict[str, list[tuple[int, int | None, Any]]] = {}
        self._candidates: dict[tuple[Any, ...], tuple[Any, ...]] = {}

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
        by_prefix: dict[str, list[tuple[int, int | None, Any]]] = {}
        exact: dict[str, list[tuple[int, int | None, Any]]] = {}
        for order, route in enumerate(self.mapper.get_routes()):
            prefix, whole = literal_prefix(route.pattern)
            (exact if whole else by_prefix).setdefault(prefix, []).append(
                (order, slash_count(route.pattern), route))
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
        slashes = path.count("/")
        key = (slashes, whole if whole in self._exact else None, *matching)
        routes = self._candidates.get(key)
        if routes is None:
            entries = [entry for prefix in matching for entry in self._by_prefix[prefix]
                       if entry[1] is None or entry[1] == slashes]
            entries += self._exact.get(whole, ()) if key[1] is not None else ()
            routes = tuple(route for _, _, route in sorted(entries, key=lambda e: e[0]))
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
