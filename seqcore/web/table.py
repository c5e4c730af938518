"""A server-side table for any list a page shows: paging, sorting, filtering and selection
decided by the query string, so every state has a URL, works without JavaScript and asks the
database for one page only.

A page describes its table once (:class:`Table`: columns, filters, page sizes, whether rows
can be selected and which bulk actions apply), reads the request's state with
:meth:`Table.state` (bad values are refused with :class:`TableProblem`, which pages answer
with 400), fetches the rows of that state itself, through the domain's own queries (so access
rules stay where they are), and hands :class:`TablePage` to ``table.mako``'s ``render()``.
:func:`page_of` does the fetching for a plain SQLAlchemy statement: one statement for the
count, one for the page. Plugins use the same pieces (``seqcore.plugin`` exports them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeAlias
from urllib.parse import urlencode

from pyramid.i18n import TranslationString
from sqlalchemy import Select, func, select

from seqcore.web.i18n import _

Message: TypeAlias = str | TranslationString


class TableProblem(ValueError):
    """A query-string value the table cannot use (a page that is not a number, an unknown
    sort column, a malformed date): the page answers 400 with this message."""

    def __init__(self, message: Message, **mapping: Any) -> None:
        super().__init__(str(message))
        self.message = message
        self.mapping = mapping


@dataclass(frozen=True)
class Column:
    """One column: ``key`` names it in the query string (``sort=key``) and in the rows."""

    key: str
    label: Message
    sortable: bool = False
    numeric: bool = False


@dataclass(frozen=True)
class Filter:
    """One filter field of the table's form. ``kind``: ``text`` (a substring, case-insensitive
    where the page says so), ``date`` (``YYYY-MM-DD``, checked here) or ``choice`` (one of
    ``choices``: value, label pairs)."""

    key: str
    label: Message
    kind: str = "text"
    choices: tuple[tuple[str, Message], ...] = ()


@dataclass(frozen=True)
class BulkAction:
    """A button of the bulk form: posts the selected row ids (``selected``) to ``url``."""

    name: str
    label: Message
    url: str
    method: str = "post"
    danger: bool = False


@dataclass(frozen=True)
class Cell:
    """What a cell shows: text, optionally a link; ``html`` (already escaped, from a
    template) wins over ``text`` when set."""

    text: str = ""
    href: str | None = None
    html: str | None = None


@dataclass(frozen=True)
class Row:
    id: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class TableState:
    """The table's state as the query string says it."""

    page: int = 1
    per_page: int = 25
    sort: str | None = None
    descending: bool = False
    filters: Mapping[str, str] = field(default_factory=dict)

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def date(self, key: str) -> date | None:
        value = self.filters.get(key)
        return date.fromisoformat(value) if value else None


@dataclass(frozen=True)
class Table:
    """A table's description: ``key`` names it on the page (element ids, the selection's
    storage); ``extra`` lists further query parameters the page keeps across links (the
    chosen columns, a template)."""

    key: str
    columns: tuple[Column, ...]
    filters: tuple[Filter, ...] = ()
    default_sort: str | None = None
    default_descending: bool = False
    page_sizes: tuple[int, ...] = (25, 50, 100)
    selectable: bool = False
    actions: tuple[BulkAction, ...] = ()
    caption: Message = ""
    extra: tuple[str, ...] = ()

    def state(self, params: Mapping[str, str]) -> TableState:
        """The state of ``params`` (a request's ``GET``); :class:`TableProblem` if a value
        cannot be used. Absent values take their defaults."""
        page = _positive(params.get("page", "1"), "page")
        per_page = _positive(params.get("per_page", str(self.page_sizes[0])), "per_page")
        if per_page not in self.page_sizes:
            raise TableProblem(_("Rows per page must be one of ${sizes}."),
                               sizes=", ".join(map(str, self.page_sizes)))
        sort = params.get("sort") or self.default_sort
        sortable = {column.key for column in self.columns if column.sortable}
        if sort is not None and sort not in sortable:
            raise TableProblem(_("The table cannot be sorted by \"${key}\"."), key=sort)
        direction = params.get("direction", "desc" if self.default_descending else "asc")
        if direction not in ("asc", "desc"):
            raise TableProblem(_("The sort direction is \"asc\" or \"desc\"."))
        filters: dict[str, str] = {}
        for spec in self.filters:
            value = (params.get(spec.key) or "").strip()
            if not value:
                continue
            if spec.kind == "date":
                try:
                    date.fromisoformat(value)
                except ValueError:
                    raise TableProblem(_("${label}: a date is written YYYY-MM-DD."),
                                       label=spec.label) from None
            if spec.kind == "choice" and value not in {key for key, _label in spec.choices}:
                raise TableProblem(_("${label}: not one of the choices."), label=spec.label)
            filters[spec.key] = value
        return TableState(page, per_page, sort, direction == "desc", filters)


def _positive(value: str, name: str) -> int:
    if not value.isdigit() or int(value) < 1 or len(value) > 9:
        raise TableProblem(_("\"${name}\" must be a whole number from 1."), name=name)
    return int(value)


@dataclass(frozen=True)
class TablePage:
    """One page of a table, ready to render."""

    table: Table
    state: TableState
    rows: Sequence[Row]
    total: int
    #: The page's other query parameters, kept in every link (``Table.extra``).
    kept: Mapping[str, str | Sequence[str]] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.state.per_page))

    @property
    def first_row(self) -> int:
        return 0 if not self.rows else self.state.offset + 1

    @property
    def last_row(self) -> int:
        return self.state.offset + len(self.rows)

    def query(self, **changes: Any) -> str:
        """The query string of this state with ``changes`` (``page=2``, ``sort=name``)."""
        state = replace(self.state, **{k: v for k, v in changes.items() if k != "direction"})
        direction = changes.get("direction", "desc" if state.descending else "asc")
        pairs: list[tuple[str, str]] = []
        for key, value in self.kept.items():
            values = [value] if isinstance(value, str) else list(value)
            pairs.extend((key, item) for item in values)
        pairs.extend(state.filters.items())
        if state.sort:
            pairs += [("sort", state.sort), ("direction", direction)]
        pairs += [("per_page", str(state.per_page)), ("page", str(state.page))]
        return "?" + urlencode(pairs)

    def sort_query(self, column: Column) -> str:
        """The link of a column's heading: sort by it, or reverse it if it is the sort."""
        if self.state.sort == column.key:
            return self.query(page=1, direction="asc" if self.state.descending else "desc")
        return self.query(page=1, sort=column.key, direction="asc")

    def aria_sort(self, column: Column) -> str | None:
        if self.state.sort != column.key:
            return None
        return "descending" if self.state.descending else "ascending"


def page_of(db: Any, statement: Select, state: TableState,
            sort_columns: Mapping[str, Any], tie_breaker: Any,
            to_row: Callable[[Any], Row]) -> tuple[list[Row], int]:
    """One page of ``statement``'s rows in ``state``'s order, and how many rows there are:
    two statements (the count and the page) whatever the page size. ``sort_columns`` maps
    sortable column keys to SQL expressions; ``tie_breaker`` (a unique column) keeps the
    order stable across pages."""
    total = db.scalar(select(func.count()).select_from(statement.order_by(None).subquery()))
    ordering: list[Any] = []
    if state.sort:
        expression = sort_columns[state.sort]
        ordering.append(expression.desc() if state.descending else expression.asc())
    ordering.append(tie_breaker.desc() if state.descending else tie_breaker.asc())
    rows = db.execute(statement.order_by(*ordering).limit(state.per_page)
                      .offset(state.offset))
    return [to_row(row) for row in rows], int(total or 0)


def kept_params(params: Any, names: Iterable[str]) -> dict[str, list[str]]:
    """The values of ``names`` in a request's ``GET`` (repeated names kept), for
    :attr:`TablePage.kept`."""
    return {name: params.getall(name) for name in names if params.getall(name)}


__all__ = ["BulkAction", "Cell", "Column", "Filter", "Row", "Table", "TablePage",
           "TableProblem", "TableState", "kept_params", "page_of"]
