"""The response envelope: ``{"resource": {...fields, "links": [...]}}``.

Collections are ``{"resource": {"resources": [...], "links": [...]}}`` and returned whole
unless the client asks for a page. Each entry carries its own links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyramid.request import Request

from seqcore.framework.links import links_for


def entry(request: Request, context: Any, fields: Mapping[str, Any],
          self_href: str | None = None, identifier: Any = None) -> dict[str, Any]:
    """One resource's fields followed by its links and ``identifier``."""
    body = dict(fields)
    body["links"] = links_for(request, context, self_href=self_href)
    if identifier is not None:
        body["identifier"] = str(identifier)
    return body


def single(request: Request, context: Any, fields: Mapping[str, Any],
           self_href: str | None = None, identifier: Any = None) -> dict[str, Any]:
    return {"resource": entry(request, context, fields, self_href, identifier)}


def collection(request: Request, context: Any, entries: Iterable[dict[str, Any]],
               self_href: str | None = None) -> dict[str, Any]:
    """A collection answer. Every collection honours ``?limit=N&page=K``
    (:func:`seqcore.rest.paging.paging`: the page's entries, with ``next``/``prev`` links);
    without ``limit`` it answers every entry, as IRIDA's collections do."""
    from seqcore.rest.paging import page_links, paging

    # Every entry is read first, even for a page or a refused ?limit: the entries may come
    # from a database cursor already open, which must not be left half-read (on SQLite it
    # keeps its connection's read snapshot after the request, and the next write on that
    # connection fails with "database is locked").
    everything = entries if isinstance(entries, list) else list(entries)  # no second copy
    page = paging(request)
    links = links_for(request, context, self_href=self_href)
    if page.limit is None:
        resources = everything
    else:
        resources = everything[page.offset:page.offset + page.limit]
        more = len(everything) > page.offset + page.limit
        links = [*links, *page_links(request, page.page, more)]
    return {"resource": {"resources": resources, "links": links}}


def links_only(links: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Responses of PATCH and DELETE: where to go next."""
    return {"resource": {"links": [{"rel": rel, "href": href} for rel, href in links]}}
