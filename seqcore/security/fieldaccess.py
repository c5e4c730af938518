"""Which metadata fields a caller may read and write: the one rule every path asks.

IRIDA restricts a project's metadata fields to levels ``LEVEL_1`` (anyone in the project)
to ``LEVEL_4``; each member holds a metadata role of the same levels and reads a field when
its role is at least the field's level. Project owners and administrators read every field.
Sequencer accounts (the uploader), which read every project without being members, read
``LEVEL_1`` fields only. A field the project has not declared is ``LEVEL_1``. Those who reach
a project through groups (``seqcore.security.inheritance``) read every field as maintainers and
owners (they write the project as its owners do) and ``LEVEL_1`` fields at the levels below.

:func:`readable_fields` answers for one project (REST's project metadata table, line lists,
exports, GraphQL's ``metadataSummary``); :func:`readable_entry` is the same rule as a SQL
condition on :class:`~seqcore.models.sample.MetadataEntry` rows, for the places that read a
sample's values without a project in hand (a sample held by several projects shows a field
when any project the caller belongs to lets it read the field there), and for filters, so a
restricted field cannot be probed by filtering on it. ``tests/functional/test_field_access.py``
checks both answers agree on every path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Subquery, and_, exists, or_, select, true
from sqlalchemy.orm import Session, aliased

from seqcore.errors.domain import Forbidden
from seqcore.models.fielddecl import MetadataField
from seqcore.models.group import READ_LEVEL, WRITE_LEVEL
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample
from seqcore.models.user import SystemRole
from seqcore.security.inheritance import PROJECT_ROUTES

LEVELS = ("LEVEL_1", "LEVEL_2", "LEVEL_3", "LEVEL_4")
#: The level of an undeclared field. Levels compare as text (``LEVEL_1 < LEVEL_4``), in SQL too.
OPEN = LEVELS[0]

V = TypeVar("V")


@dataclass(frozen=True)
class Caller:
    """Who asks: an account (``user_id``, system role) or, with ``user_id`` ``None``, the
    service itself (an analysis, an NCBI submission), which reads and writes every field."""

    user_id: int | None
    role: SystemRole | str = SystemRole.USER

    @classmethod
    def of(cls, identity: Any) -> Caller:
        """From a :class:`seqcore.security.identity.Identity` (or ``None``: the service)."""
        if identity is None:
            return SERVICE
        return cls(identity.user_id, identity.role)

    @property
    def sees_all(self) -> bool:
        return self.user_id is None or SystemRole(self.role) is SystemRole.ADMIN

    @property
    def is_sequencer(self) -> bool:
        return SystemRole(self.role) is SystemRole.SEQUENCER


SERVICE = Caller(None)


@dataclass(frozen=True)
class FieldAccess:
    """What one caller may read of one project's metadata: every field except ``hidden``
    (the declared fields above its level). ``level`` is its level there (``None``: all)."""

    level: str | None
    hidden: frozenset[str]

    def can_read(self, field: str) -> bool:
        return field not in self.hidden

    def visible(self, fields: Iterable[str]) -> list[str]:
        return [field for field in fields if field not in self.hidden]

    def restrict(self, values: Mapping[str, V]) -> dict[str, V]:
        """``values`` without the hidden fields."""
        return {field: value for field, value in values.items() if field not in self.hidden}


ALL = FieldAccess(None, frozenset())


@cache
def _route_pairs(level: int) -> tuple[Subquery, ...]:
    """Each route's ``(object_id, user_id)`` pairs at ``level``, built once per process (SQL
    constructs are immutable, so statements share them). Building the routes' aliases,
    joins and column collections again for every condition had cost 11 ms of a 16 ms
    ``GET /api/samples/{id}/metadata``, for the same SQL."""
    return tuple(route(level).subquery() for route in PROJECT_ROUTES)


def through_groups(caller: Caller, project_id: Any, level: int) -> ColumnElement[bool]:
    """True when the caller reaches project ``project_id`` (a value or a column) through
    groups at ``level`` or above."""
    return or_(*(exists(select(pairs.c.object_id).where(
        pairs.c.object_id == project_id, pairs.c.user_id == caller.user_id))
        for pairs in _route_pairs(level)))


def member_level(db: Session, caller: Caller, project_id: int) -> str | None:
    """The caller's metadata level in a project: ``None`` for every field (administrators,
    owners, maintainers and owners through groups, the service), a member's metadata role,
    else ``LEVEL_1``."""
    if caller.sees_all:
        return None
    row = db.execute(select(ProjectMember.role, ProjectMember.metadata_role).where(
        ProjectMember.project_id == project_id, ProjectMember.user_id == caller.user_id)).first()
    if row is not None and row.role == ProjectRole.OWNER.value:
        return None
    if caller.user_id is not None and db.scalar(
            select(through_groups(caller, project_id, WRITE_LEVEL))):
        return None
    if row is None:
        return OPEN
    return row.metadata_role or OPEN


def readable_fields(db: Session, caller: Caller, project_id: int) -> FieldAccess:
    """The fields ``caller`` may read in project ``project_id`` (the one answer for a
    project: REST, GraphQL, line lists and exports all ask this)."""
    level = member_level(db, caller, project_id)
    if level is None:
        return ALL
    hidden = db.scalars(select(MetadataField.name).where(
        MetadataField.project_id == project_id, MetadataField.restriction > level))
    return FieldAccess(level, frozenset(hidden))


# readable_entry's own aliases, made once: an alias adapts each column the first time it is
# asked for it and keeps the answer, so fresh aliases on every call (three per request that
# reads metadata) redid that work each time. The condition is an EXISTS of its own, so the
# aliases never meet the enclosing statement's tables.
_HELD = aliased(ProjectSample, name="readable_held")
_MEMBER = aliased(ProjectMember, name="readable_member")
_DECLARED = aliased(MetadataField, name="readable_declared")


def readable_entry(caller: Caller, entry: Any = MetadataEntry) -> ColumnElement[bool]:
    """True for the metadata rows (of ``entry``, a :class:`MetadataEntry` or an alias) the
    caller may read: some project holding the sample lets it read the field there."""
    if caller.sees_all:
        return true()
    held, member, declared = _HELD, _MEMBER, _DECLARED
    open_field = or_(declared.id.is_(None), declared.restriction == OPEN)
    allowed = and_(member.id.is_not(None),
                   or_(member.role == ProjectRole.OWNER.value, declared.id.is_(None),
                       member.metadata_role >= declared.restriction))
    if caller.is_sequencer:
        allowed = or_(allowed, open_field)
    if caller.user_id is not None:
        allowed = or_(allowed, through_groups(caller, held.project_id, WRITE_LEVEL),
                      and_(open_field, through_groups(caller, held.project_id, READ_LEVEL)))
    return exists(
        select(held.id)
        .outerjoin(member, and_(member.project_id == held.project_id,
                                member.user_id == caller.user_id))
        .outerjoin(declared, and_(declared.project_id == held.project_id,
                                  declared.name == entry.field))
        .where(held.sample_id == entry.sample_id, allowed))


def sample_hidden_fields(db: Session, caller: Caller, sample_id: int,
                         fields: Iterable[str]) -> set[str]:
    """Which of ``fields`` the caller may not read on one sample (as :func:`readable_entry`
    decides, for values that may not exist yet: a write's fields)."""
    names = set(fields)
    if caller.sees_all or not names:
        return set()
    projects = list(db.scalars(select(ProjectSample.project_id).where(
        ProjectSample.sample_id == sample_id)))
    hidden = set(names)
    for project_id in projects:
        level = member_level(db, caller, project_id)
        member = db.scalar(select(ProjectMember.id).where(
            ProjectMember.project_id == project_id, ProjectMember.user_id == caller.user_id))
        if member is None and not caller.is_sequencer:
            continue
        if level is None:
            return set()
        access = readable_fields(db, caller, project_id)
        hidden -= {name for name in names if access.can_read(name)}
    return hidden


def check_writable(db: Session, caller: Caller, sample_ids: Iterable[int],
                   fields: Iterable[str]) -> None:
    """:class:`~seqcore.errors.domain.Forbidden` when a write touches a field above the caller's
    level on one of the samples (nothing is written: callers check before writing)."""
    names = set(fields)
    for sample_id in sample_ids:
        hidden = sample_hidden_fields(db, caller, sample_id, names)
        if hidden:
            raise Forbidden("Your metadata role does not allow writing the field(s) "
                            + ", ".join(sorted(hidden)) + ".")


__all__ = ["ALL", "LEVELS", "OPEN", "SERVICE", "Caller", "FieldAccess", "check_writable",
           "member_level", "readable_entry", "readable_fields", "sample_hidden_fields"]
