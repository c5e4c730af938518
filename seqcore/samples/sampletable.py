"""A page of a project's samples with chosen metadata columns: the line list as a table a
person browses, sorts and filters, at any project size.

:func:`sample_page` answers one page in a fixed number of statements whatever the page size
or the number of columns: the count of matching samples, the page's samples (sorted by a
sample column or by one metadata field through one outer join), and the page's metadata
values (one statement for every sample and column of the page). The columns are the caller's
readable fields only (:func:`seqcore.security.fieldaccess.readable_fields`): a hidden field
can be neither shown, sorted on nor filtered on, so its values cannot be probed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from seqcore.errors.domain import Invalid
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.security.fieldaccess import FieldAccess

#: Sample columns a table may sort on.
SAMPLE_SORTS = {"name": Sample.name, "puid": Sample.puid, "created": Sample.created,
                "modified": Sample.modified}


@dataclass(frozen=True)
class SampleQuery:
    """What the table asks: ``text`` (name or PUID contains it, any case), created between
    ``created_from`` and ``created_to`` (days, inclusive), ``field`` holding ``value`` (a
    substring, any case), the order (``sort``: a key of :data:`SAMPLE_SORTS` or ``m:<field>``)
    and the page (``offset``, ``limit``)."""

    text: str = ""
    created_from: date | None = None
    created_to: date | None = None
    field: str = ""
    value: str = ""
    sort: str = "name"
    descending: bool = False
    offset: int = 0
    limit: int = 25


@dataclass(frozen=True)
class SampleRow:
    id: int
    puid: str
    name: str
    created: datetime
    modified: datetime | None
    values: dict[str, str] = field(default_factory=dict)


def _check_field(access: FieldAccess, name: str, what: str) -> None:
    if not access.can_read(name):
        # The same words as for a field nobody has set: a hidden field is not confirmed.
        raise Invalid.field(what, f"There is no metadata field \"{name}\" to use here.")


def matching(project_id: int, query: SampleQuery, access: FieldAccess) -> Select[Any]:
    """The ids of the project's samples matching ``query`` (unordered)."""
    statement = (select(Sample.id).join(ProjectSample, ProjectSample.sample_id == Sample.id)
                 .where(ProjectSample.project_id == project_id))
    if query.text:
        pattern = f"%{_escape(query.text.lower())}%"
        statement = statement.where(or_(func.lower(Sample.name).like(pattern, escape="\\"),
                                        func.lower(Sample.puid).like(pattern, escape="\\")))
    if query.created_from is not None:
        statement = statement.where(Sample.created >= datetime.combine(query.created_from,
                                                                       time.min))
    if query.created_to is not None:
        statement = statement.where(Sample.created < datetime.combine(
            query.created_to + timedelta(days=1), time.min))
    if query.field:
        _check_field(access, query.field, "field")
        entry = aliased(MetadataEntry, name="filtered")
        condition = and_(entry.sample_id == Sample.id, entry.field == query.field,
                         access.entries(entry))
        if query.value:
            condition = and_(condition, func.lower(entry.value).like(
                f"%{_escape(query.value.lower())}%", escape="\\"))
        statement = statement.where(select(entry.id).where(condition).exists())
    return statement


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def sample_page(db: Session, project_id: int, query: SampleQuery, columns: Sequence[str],
                access: FieldAccess) -> tuple[list[SampleRow], int]:
    """One page of the project's samples matching ``query`` with the values of ``columns``
    (readable fields only), and how many samples match: three statements."""
    shown = [name for name in columns if access.can_read(name)]
    ids = matching(project_id, query, access)
    total = db.scalar(select(func.count()).select_from(ids.subquery())) or 0
    page = select(Sample.id, Sample.puid, Sample.name, Sample.created, Sample.modified).where(
        Sample.id.in_(ids))
    if query.sort.startswith("m:"):
        name = query.sort[2:]
        _check_field(access, name, "sort")
        entry = aliased(MetadataEntry, name="sorted")
        page = page.outerjoin(entry, and_(entry.sample_id == Sample.id, entry.field == name,
                                          access.entries(entry)))
        key: Any = entry.value
    elif query.sort in SAMPLE_SORTS:
        key = SAMPLE_SORTS[query.sort]
    else:
        raise Invalid.field("sort", f"The samples cannot be sorted by \"{query.sort}\".")
    order = [key.desc().nulls_last() if query.descending else key.asc().nulls_last(),
             Sample.id.desc() if query.descending else Sample.id.asc()]
    rows = db.execute(page.order_by(*order).offset(query.offset).limit(query.limit)).all()
    found = [SampleRow(row.id, row.puid, row.name, row.created, row.modified, {})
             for row in rows]
    if found and shown:
        by_id = {row.id: row for row in found}
        for sample_id, name, value in db.execute(
                select(MetadataEntry.sample_id, MetadataEntry.field, MetadataEntry.value)
                .where(MetadataEntry.sample_id.in_(list(by_id)),
                       MetadataEntry.field.in_(shown), access.entries())):
            by_id[sample_id].values[name] = value
    return found, int(total)


def matching_ids(db: Session, project_id: int, query: SampleQuery,
                 access: FieldAccess) -> list[int]:
    """Every sample id matching ``query`` (a bulk action on "all matching rows")."""
    return list(db.scalars(matching(project_id, query, access)))


def linelist_of(db: Session, sample_ids: Sequence[int], columns: Sequence[str],
                access: FieldAccess, batch: int = 500) -> Iterator[list[str]]:
    """The line list rows (PUID, name, then ``columns``' values; readable fields only) of
    ``sample_ids``, in id order, two statements per ``batch`` samples."""
    shown = [name for name in columns if access.can_read(name)]
    ordered = sorted(set(sample_ids))
    for start in range(0, len(ordered), batch):
        chunk = ordered[start:start + batch]
        values: dict[int, dict[str, str]] = {sample_id: {} for sample_id in chunk}
        if shown:
            for sample_id, name, value in db.execute(
                    select(MetadataEntry.sample_id, MetadataEntry.field, MetadataEntry.value)
                    .where(MetadataEntry.sample_id.in_(chunk),
                           MetadataEntry.field.in_(shown), access.entries())):
                values[sample_id][name] = value
        for sample_id, puid, name in db.execute(
                select(Sample.id, Sample.puid, Sample.name).where(Sample.id.in_(chunk))
                .order_by(Sample.id)):
            yield [puid or "", name, *(values[sample_id].get(c, "") for c in shown)]


def project_field_names(db: Session, project_id: int, access: FieldAccess) -> list[str]:
    """The metadata fields the caller may choose as columns: those declared by the project
    or set on one of its samples, readable ones only, by name."""
    from seqcore.models.fielddecl import MetadataField

    declared = select(MetadataField.name).where(MetadataField.project_id == project_id)
    used = (select(MetadataEntry.field).join(
        ProjectSample, ProjectSample.sample_id == MetadataEntry.sample_id)
        .where(ProjectSample.project_id == project_id, access.entries()))
    names = db.scalars(select(declared.union(used).subquery().c[0]).distinct())
    return sorted(access.visible(set(names)))


__all__ = ["SAMPLE_SORTS", "SampleQuery", "SampleRow", "linelist_of", "matching",
           "matching_ids",
           "project_field_names", "sample_page"]
