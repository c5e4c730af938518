"""Paging parameters of REST collections: ``?limit=N&page=K``.

One reader for every collection that pages, so each refuses the same inputs the same way:
a value that is not a whole number in ASCII digits (``²``), or one outside its range
(``limit`` 1..:data:`MAX_LIMIT`, ``page`` 1..:data:`MAX_PAGE`), is a 400
``{"<param>": ["..."]}``, never a number the database cannot take as an offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyramid.request import Request

from seqcore.parsing.identifiers import parse_natural
from seqcore.rest.errors import validation_error

MAX_LIMIT = 10_000
"""The largest page a client may ask for."""

MAX_PAGE = 2**63 // MAX_LIMIT - 1
"""The last page whose offset, ``(page - 1) * limit``, still fits in 64 bits."""


@dataclass(frozen=True)
class Paging:
    """The page asked for; ``limit`` is ``None`` when the whole collection is wanted."""

    limit: int | None
    page: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * (self.limit or 0)


def int_param(request: Request, name: str, low: int, high: int) -> int | None:
    """Query parameter ``name`` as a whole number between ``low`` and ``high``, ``None``
    when absent, or a 400 naming it."""
    raw = request.GET.get(name)
    if raw is None:
        return None
    number = parse_natural(raw, high)
    if number is None or not low <= number <= high:
        raise validation_error({name: [f"'{name}' must be a whole number between {low} and "
                                       f"{high}."]})
    return number


def paging(request: Request) -> Paging:
    """``?limit`` and ``?page`` of a collection request."""
    limit = int_param(request, "limit", 1, MAX_LIMIT)
    page = int_param(request, "page", 1, MAX_PAGE) or 1
    return Paging(limit, page)


def page_links(request: Request, page: int, more: bool) -> list[dict[str, str]]:
    """``next`` (when ``more``) and ``prev`` (after the first page) of a paged collection,
    keeping the request's other parameters."""
    from urllib.parse import urlencode

    params = dict(request.GET)
    links = []
    if more:
        links.append({"rel": "next",
                      "href": f"{request.path_url}?{urlencode({**params, 'page': page + 1})}"})
    if page > 1:
        links.append({"rel": "prev",
                      "href": f"{request.path_url}?{urlencode({**params, 'page': page - 1})}"})
    return links
