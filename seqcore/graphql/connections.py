"""Connections: ``nodes``, ``edges {cursor node}``, ``pageInfo`` and ``totalCount``, paged
with keyset cursors.

A cursor encodes the sort value and id of a row, so a page is one indexed range query
whatever its offset, and rows added before the cursor do not shift later pages. Pages
default to 25 rows; ``first``/``last`` are clamped to 0..100 (silently, as IRIDA Next does).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from seqcore.parsing.identifiers import parse_id
from seqcore.parsing.jsontext import loads

DEFAULT_PAGE = 25
MAX_CURSOR = 4096  # above any cursor seqcore hands out (255 escaped characters of a name)
MAX_PAGE = 100


class PageInfo(graphene.ObjectType):
    """Where a page sits in the whole list."""

    end_cursor = graphene.String()
    has_next_page = graphene.Boolean(required=True)
    has_previous_page = graphene.Boolean(required=True)
    start_cursor = graphene.String()


@dataclass
class Page:
    """One page of a connection: its items, their cursors, and how to count the whole."""

    items: list[Any]
    cursors: list[str]
    has_next: bool
    has_previous: bool
    count: Callable[[], int] = field(repr=False, default=lambda: 0)


_connections: dict[type, type] = {}


def connection_for(node: type[Any]) -> type[Any]:
    """``<Node>Connection`` (and ``<Node>Edge``) for a graphene object type, made once."""
    if node in _connections:
        return _connections[node]
    name = node._meta.name

    edge = type(f"{name}Edge", (graphene.ObjectType,), {
        "__doc__": f"A {name} and its cursor.",
        "cursor": graphene.String(required=True),
        "node": graphene.Field(node),
    })

    def resolve_edges(page: Page, info: Any) -> list[dict[str, Any]]:
        return [{"cursor": c, "node": n} for c, n in zip(page.cursors, page.items, strict=True)]

    def resolve_page_info(page: Page, info: Any) -> dict[str, Any]:
        return {"start_cursor": page.cursors[0] if page.cursors else None,
                "end_cursor": page.cursors[-1] if page.cursors else None,
                "has_next_page": page.has_next, "has_previous_page": page.has_previous}

    connection = type(f"{name}Connection", (graphene.ObjectType,), {
        "__doc__": f"A page of {name} objects.",
        "edges": graphene.List(edge),
        "nodes": graphene.List(node),
        "page_info": graphene.Field(PageInfo, required=True),
        "total_count": graphene.Int(required=True),
        "resolve_edges": staticmethod(resolve_edges),
        "resolve_nodes": staticmethod(lambda page, info: page.items),
        "resolve_page_info": staticmethod(resolve_page_info),
        "resolve_total_count": staticmethod(lambda page, info: page.count()),
    })
    _connections[node] = connection
    return connection


def connection_args() -> dict[str, Any]:
    return {"first": graphene.Int(), "last": graphene.Int(), "after": graphene.String(),
            "before": graphene.String()}


@dataclass(frozen=True)
class Ordering:
    """Sort by ``key`` (never NULL) then by ``id``, both in ``direction``."""

    key: Any
    id: Any
    descending: bool = False
    temporal: bool = False  # the key is a datetime (cursors carry it as ISO 8601)


def encode_cursor(value: Any, pk: int) -> str:
    if isinstance(value, datetime):
        value = value.isoformat()
    raw = json.dumps([value, pk], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, sample_value: Any) -> tuple[Any, int]:
    """The ``(sort value, id)`` a cursor from :func:`encode_cursor` holds, checked against
    the ordering: a cursor is client input like any other, so its id must be one an id
    column can hold and its value of the type of the sort key (text for names, ISO 8601 for
    times), or the database would be asked a question it cannot answer."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value, pk = loads(raw, max_depth=1)
        pk = parse_id(pk) if isinstance(pk, int) else None
        if pk is None:
            raise ValueError
        if isinstance(sample_value, datetime):
            value = datetime.fromisoformat(value)
        elif not isinstance(value, str):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        shown = cursor if len(cursor) <= 100 else cursor[:100] + "..."
        raise GraphQLError(f"Invalid cursor: {shown!r}.") from None
    return value, pk


def _clamp(value: int | None) -> int | None:
    return None if value is None else max(0, min(MAX_PAGE, value))


def page_arguments(order: Ordering, first: int | None, last: int | None, after: str | None,
                   before: str | None) -> tuple[int | None, int | None, Any, Any]:
    """Relay's page arguments checked and read: ``first`` and ``last`` within the page
    limits (``first`` defaults to a page), the cursors decoded (``""`` and ``"null"`` are no
    cursor, as clients send them)."""
    after = None if after in (None, "", "null") else after
    before = None if before in (None, "", "null") else before
    if after is not None and last is not None and first is None:
        raise GraphQLError("When using `after` you must also provide `first` if also "
                           "providing `last`.")
    if before is not None and first is not None and last is None:
        raise GraphQLError("When using `before` you must also provide `last` if also "
                           "providing `first`.")
    first, last = _clamp(first), _clamp(last)
    if first is None and last is None:
        first = DEFAULT_PAGE
    probe: Any = datetime.now() if order.temporal else ""
    after_key = decode_cursor(after, probe) if after is not None else None
    before_key = decode_cursor(before, probe) if before is not None else None
    return first, last, after_key, before_key


def trim_page(items: list[Any], first: int | None, last: int | None, after_key: Any,
              before_key: Any) -> tuple[list[Any], bool, bool]:
    """A page from the rows fetched for it (one more than wanted, in the order fetched:
    forward when ``first`` is given, else backward): the items in the ordering, and
    whether there are pages after and before."""
    if first is not None:
        has_next = len(items) > first
        items = items[:first]
        has_previous = after_key is not None
        if last is not None and len(items) > last:
            items, has_previous = items[len(items) - last:], True
        return items, has_next, has_previous
    assert last is not None
    return items[:last][::-1], before_key is not None, len(items) > last


def _beyond(order: Ordering, cursor: tuple[Any, int], forward: bool) -> Any:
    """Rows after (``forward``) or before the cursor in the ordering."""
    value, pk = cursor
    greater = forward != order.descending
    if greater:
        return or_(order.key > value, and_(order.key == value, order.id > pk))
    return or_(order.key < value, and_(order.key == value, order.id < pk))


def paginate(db: Session, query: Select, order: Ordering, sort_value: Callable[[Any], Any],
             *, first: int | None = None, last: int | None = None, after: str | None = None,
             before: str | None = None) -> Page:
    """One page of ``query`` (a select of entities) and a lazy count of all of it.

    ``sort_value(item)`` gives an item's value of ``order.key``, for its cursor.
    """
    first, last, after_key, before_key = page_arguments(order, first, last, after, before)

    ranged = query
    if after_key is not None:
        ranged = ranged.where(_beyond(order, after_key, forward=True))
    if before_key is not None:
        ranged = ranged.where(_beyond(order, before_key, forward=False))
    ascending = (order.key.asc(), order.id.asc())
    descending = (order.key.desc(), order.id.desc())
    forward_order = descending if order.descending else ascending
    backward_order = ascending if order.descending else descending

    if first is not None:
        fetched = list(db.scalars(ranged.order_by(*forward_order).limit(first + 1)))
    else:
        assert last is not None
        fetched = list(db.scalars(ranged.order_by(*backward_order).limit(last + 1)))
    items, has_next, has_previous = trim_page(fetched, first, last, after_key, before_key)

    def count() -> int:
        counted = select(func.count()).select_from(query.order_by(None).subquery())
        return db.scalar(counted) or 0

    cursors = [encode_cursor(sort_value(item), item.id) for item in items]
    return Page(items, cursors, has_next, has_previous, count)



def paginate_many(db: Session, query: Select, partition: Any, keys: list[Any], order: Ordering,
                  sort_value: Callable[[Any], Any], *, first: int | None = None,
                  last: int | None = None, after: str | None = None,
                  before: str | None = None) -> dict[Any, Page]:
    """The same page of ``query`` for each of ``keys`` (the value of ``partition``, a column
    of the query: the parent group of a list of subgroups), in one statement, and their
    counts in one more when the first is asked for.

    Each parent's rows are numbered in the ordering (``ROW_NUMBER() OVER (PARTITION BY ...)``,
    SQLite and PostgreSQL alike) and the rows beyond a page dropped, so a page of parents
    with their children costs the same statements at any page size."""
    first, last, after_key, before_key = page_arguments(order, first, last, after, before)

    scoped = query.where(partition.in_(keys))
    ranged = scoped
    if after_key is not None:
        ranged = ranged.where(_beyond(order, after_key, forward=True))
    if before_key is not None:
        ranged = ranged.where(_beyond(order, before_key, forward=False))
    ascending = (order.key.asc(), order.id.asc())
    descending = (order.key.desc(), order.id.desc())
    forward = first is not None
    wanted = (first if forward else last) or 0
    ordering = (descending if order.descending else ascending) if forward else (
        ascending if order.descending else descending)
    number = func.row_number().over(partition_by=partition, order_by=ordering)
    numbered = ranged.add_columns(partition.label("page_key"), number.label("page_row")
                                  ).subquery()
    entity = query.column_descriptions[0]["entity"]
    rows = aliased(entity, numbered)
    found: dict[Any, list[Any]] = {key: [] for key in keys}
    statement = (select(rows, numbered.c.page_key).where(numbered.c.page_row <= wanted + 1)
                 .order_by(numbered.c.page_key, numbered.c.page_row))
    for item, key in db.execute(statement):
        found[key].append(item)

    counts: dict[Any, int] = {}

    def count_of(key: Any) -> int:
        if not counts:
            counted = (scoped.order_by(None).with_only_columns(partition, func.count())
                       .group_by(partition))
            counts.update({k: n for k, n in db.execute(counted)})
            counts.setdefault(object(), 0)  # asked once, even when no key has a row
        return counts.get(key, 0)

    pages: dict[Any, Page] = {}
    for key, items in found.items():
        items, has_next, has_previous = trim_page(items, first, last, after_key, before_key)
        cursors = [encode_cursor(sort_value(item), item.id) for item in items]
        pages[key] = Page(items, cursors, has_next, has_previous,
                          partial(count_of, key))
    return pages
