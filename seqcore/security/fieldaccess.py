"""Which metadata fields a caller may read and write: the one rule every path asks.

IRIDA restricts a project's metadata fields to levels ``LEVEL_1`` (anyone in the project)
to ``LEVEL_4``; each member holds a metadata role of the same levels and reads a field when
its role is at least the field's level. Project owners and administrators read every field.
Sequencer accounts (the uploader), which read every project without being members, read
``LEVEL_1`` fields only. A field the project has not declared is ``LEVEL_1``. Those who reach
a project through groups (``seqcore.security.inheritance``) read every field as maintainers and
owners (they write the project as its owners do) and ``LEVEL_1`` fields at the levels below.

**A restriction goes with the sample.** A sample may be held by several projects (shared,
copied). A field one of them restricts is read on that sample only by those that project lets
read it, whatever the other projects say (:func:`held_back`): otherwise a ``LEVEL_1`` member
who copies a sample into a project of their own would read the fields the first project keeps
from them there. So sharing or copying never widens the (sample, field) pairs anyone reads, and
a transfer, which takes the sample away from the project whose restriction would no longer
hold, is refused when it would (:func:`check_no_widening`).

:func:`readable_fields` answers for one project (REST's project metadata table, line lists,
exports, GraphQL's ``metadataSummary``); :func:`readable_entry` is the same rule as a SQL
condition on :class:`~seqcore.models.sample.MetadataEntry` rows, for the places that read a
sample's values without a project in hand (a sample held by several projects shows a field
when a project the caller belongs to lets it read the field there and no holder restricts it
above the caller), and for filters, so a restricted field cannot be probed by filtering on
it. ``tests/functional/test_field_access.py`` checks both answers agree on every path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import (
    ColumnElement,
    Integer,
    Subquery,
    and_,
    bindparam,
    exists,
    false,
    or_,
    select,
    true,
)
from sqlalchemy.orm import Session, aliased

from seqcore.db.prepared import PreparedRead
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

#: The SQL parameter naming the caller in the conditions built for :func:`caller_form`.
CALLER_ID = "field_access_caller_id"

#: What a condition of this module depends on in a caller, besides its id: whether it reads
#: every field (the service, administrators) and whether it is a sequencer account.
CallerKind = tuple[bool, bool]


def caller_kind(caller: Caller) -> CallerKind:
    """``caller``'s kind (:data:`CallerKind`): callers of one kind get the same conditions
    but for their id."""
    return (caller.sees_all, not caller.sees_all and caller.is_sequencer)


@cache
def caller_form(kind: CallerKind) -> Caller:
    """A caller of ``kind`` whose id is the SQL parameter :data:`CALLER_ID`: a statement built
    from it (with :func:`readable_entry`, :func:`held_back`) is built once and run for any
    caller of that kind with :func:`caller_params`, so SQLAlchemy neither builds its
    conditions again nor hashes its cache key again per request (5 of the 8 ms of
    ``GET /api/samples/{id}/metadata`` in process)."""
    sees_all, sequencer = kind
    role = (SystemRole.ADMIN if sees_all else SystemRole.SEQUENCER if sequencer
            else SystemRole.USER)
    user_id: Any = bindparam(CALLER_ID, type_=Integer)
    return Caller(user_id, role)


def caller_params(caller: Caller) -> dict[str, Any]:
    """The parameters that make a statement built from :func:`caller_form` answer for
    ``caller``."""
    return {CALLER_ID: caller.user_id}


@dataclass(frozen=True)
class FieldAccess:
    """What one caller may read of one project's metadata: every field except ``hidden``
    (the declared fields above its level). ``level`` is its level there (``None``: all).

    On a sample the project shares with others, a field another holder restricts above the
    caller is hidden too: :meth:`entries` is that rule for the rows a reader selects
    (``caller`` ``None``: the service or an administrator, who read every field)."""

    level: str | None
    hidden: frozenset[str]
    caller: Caller | None = None

    def can_read(self, field: str) -> bool:
        return field not in self.hidden

    def visible(self, fields: Iterable[str]) -> list[str]:
        return [field for field in fields if field not in self.hidden]

    def restrict(self, values: Mapping[str, V]) -> dict[str, V]:
        """``values`` without the hidden fields."""
        return {field: value for field, value in values.items() if field not in self.hidden}

    def entries(self, entry: Any = MetadataEntry) -> ColumnElement[bool]:
        """True for the metadata rows (of ``entry``) of the project's samples the caller may
        read: a field it reads in the project, not held back by another project holding
        the sample (:func:`held_back`)."""
        condition: ColumnElement[bool] = true()
        if self.hidden:
            condition = entry.field.not_in(sorted(self.hidden))
        if self.caller is not None and not self.caller.sees_all:
            condition = and_(condition, ~held_back(self.caller, entry))
        return condition


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


_READS_MEMBER = aliased(ProjectMember, name="reads_member")


def reads_field_in(caller: Caller, project_id: Any, restriction: Any) -> ColumnElement[bool]:
    """True when the caller reads, in project ``project_id`` (a value or a column), a field
    restricted at ``restriction`` (a value or a column) above ``LEVEL_1``: an owner, a member
    whose metadata role reaches it, or a maintainer or owner through groups."""
    member = _READS_MEMBER
    by_membership = exists(select(member.id).where(
        member.project_id == project_id, member.user_id == caller.user_id, member.active,
        or_(member.role == ProjectRole.OWNER.value, member.metadata_role >= restriction)))
    if caller.user_id is None:
        return true()
    return or_(by_membership, through_groups(caller, project_id, WRITE_LEVEL))


def member_level(db: Session, caller: Caller, project_id: int) -> str | None:
    """The caller's metadata level in a project: ``None`` for every field (administrators,
    owners, maintainers and owners through groups, the service), a member's metadata role,
    else ``LEVEL_1``."""
    if caller.sees_all:
        return None
    row = db.execute(select(ProjectMember.role, ProjectMember.metadata_role).where(
        ProjectMember.project_id == project_id, ProjectMember.user_id == caller.user_id,
        ProjectMember.active)).first()
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
    if caller.sees_all:
        return ALL
    level = member_level(db, caller, project_id)
    if level is None:
        return FieldAccess(None, frozenset(), caller)
    hidden = db.scalars(select(MetadataField.name).where(
        MetadataField.project_id == project_id, MetadataField.restriction > level))
    return FieldAccess(level, frozenset(hidden), caller)


# readable_entry's own aliases, made once: an alias adapts each column the first time it is
# asked for it and keeps the answer, so fresh aliases on every call (three per request that
# reads metadata) redid that work each time. The condition is an EXISTS of its own, so the
# aliases never meet the enclosing statement's tables.
_HELD = aliased(ProjectSample, name="readable_held")
_MEMBER = aliased(ProjectMember, name="readable_member")
_DECLARED = aliased(MetadataField, name="readable_declared")
_HOLDER = aliased(ProjectSample, name="restricting_holder")
_RESTRICTING = aliased(MetadataField, name="restricting_field")
_RESTRICTED = aliased(MetadataField, name="restricted_field")


def held_back(caller: Caller, entry: Any = MetadataEntry) -> ColumnElement[bool]:
    """True for the metadata rows (of ``entry``) that some project holding their sample
    restricts above the caller: the caller reads them nowhere, whatever other projects
    holding the sample say (a restriction goes with the sample)."""
    if caller.sees_all:
        return false()
    holder, declared = _HOLDER, _RESTRICTING
    # A field no project restricts is held back nowhere: asked first, of one uncorrelated
    # list (read once per statement), so most rows skip the correlated search below (half
    # of what reading 2,000 values cost on SQLite).
    restricted_somewhere = entry.field.in_(
        select(_RESTRICTED.name).where(_RESTRICTED.restriction > OPEN))
    return and_(restricted_somewhere, exists(
        select(holder.id)
        .join(declared, and_(declared.project_id == holder.project_id,
                             declared.name == entry.field, declared.restriction > OPEN))
        .where(holder.sample_id == entry.sample_id,
               ~reads_field_in(caller, holder.project_id, declared.restriction))))


def readable_entry(caller: Caller, entry: Any = MetadataEntry) -> ColumnElement[bool]:
    """True for the metadata rows (of ``entry``, a :class:`MetadataEntry` or an alias) the
    caller may read: some project holding the sample lets it read the field there, and none
    restricts it above the caller (:func:`held_back`)."""
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
    return and_(exists(
        select(held.id)
        .outerjoin(member, and_(member.project_id == held.project_id,
                                member.user_id == caller.user_id, member.active))
        .outerjoin(declared, and_(declared.project_id == held.project_id,
                                  declared.name == entry.field))
        .where(held.sample_id == entry.sample_id, allowed)), ~held_back(caller, entry))


@cache
def readable_metadata(kind: CallerKind) -> PreparedRead:
    """A sample's values (``GET /api/samples/{id}/metadata``) a caller of ``kind`` may read,
    by field: built once per kind (:func:`caller_form`), parameters ``sample_id`` and the
    caller's (:func:`caller_params`; an administrator's statement has none). Prepared
    (:mod:`seqcore.db.prepared`): the rows are read as plain values, not loaded as mapped
    entries, which had been most of that request's CPU under ``bench/api.py --mix``."""
    statement = (select(*MetadataEntry.__table__.columns)
                 .where(MetadataEntry.sample_id == bindparam("sample_id"),
                        readable_entry(caller_form(kind)))
                 .order_by(MetadataEntry.field))
    bound = statement.compile().params
    return PreparedRead(statement, tuple(name for name in ("sample_id", CALLER_ID)
                                         if name in bound))


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
            ProjectMember.project_id == project_id, ProjectMember.user_id == caller.user_id,
            ProjectMember.active))
        # A project the caller does not reach says nothing of what it may write; one it
        # reaches through groups (a maintainer, an uploader, a project bot) does.
        if member is None and not caller.is_sequencer and not _reaches(db, caller, project_id):
            continue
        if level is None:
            return set()
        access = readable_fields(db, caller, project_id)
        hidden -= {name for name in names if access.can_read(name)}
    return hidden | held_back_fields(db, caller, sample_id, names)


def held_back_fields(db: Session, caller: Caller, sample_id: int, fields: Iterable[str],
                     known: dict[int, FieldAccess] | None = None) -> set[str]:
    """Which of ``fields`` a project holding the sample restricts above the caller
    (:func:`held_back`). ``known`` keeps each project's answer across calls (a feed asks
    for many samples of the same projects)."""
    names = set(fields)
    if caller.sees_all or not names:
        return set()
    known = {} if known is None else known
    kept: set[str] = set()
    for project_id in set(db.scalars(select(ProjectSample.project_id).where(
            ProjectSample.sample_id == sample_id))):
        if project_id not in known:
            known[project_id] = readable_fields(db, caller, project_id)
        kept |= known[project_id].hidden & names
    return kept


def _reaches(db: Session, caller: Caller, project_id: int) -> bool:
    """Whether the caller reads project ``project_id`` at all: a member, or through groups."""
    return bool(db.scalar(select(or_(
        exists(select(ProjectMember.id).where(ProjectMember.project_id == project_id,
                                              ProjectMember.user_id == caller.user_id,
                                              ProjectMember.active)),
        through_groups(caller, project_id, READ_LEVEL)))))


def widened_fields(db: Session, samples: Iterable[Any], source_id: int, target_id: int
                   ) -> tuple[dict[int, set[str]], set[int]]:
    """The fields, by sample id, that moving ``samples`` from project ``source_id`` to
    ``target_id`` would let an account read where it reads them nowhere now, and those
    accounts: values of fields restricted by a project holding the sample (the source's
    restriction would no longer hold once the sample has left it). Administrators read every
    field, so they never gain; every other account that reaches a project holding the sample
    afterwards (sequencer accounts reach every project and read its open fields) is asked, as
    :func:`readable_entry` would answer before and after."""
    from seqcore.models.user import User

    accesses: dict[tuple[int, int], FieldAccess] = {}
    reach: dict[tuple[int, int], bool] = {}

    def reads(user: Caller, holders: set[int], field: str) -> bool:
        readable = False
        for project_id in holders:
            key = (user.user_id or 0, project_id)
            if key not in accesses:
                accesses[key] = readable_fields(db, user, project_id)
            if not accesses[key].can_read(field):
                return False
            if not readable:
                if key not in reach:
                    reach[key] = user.is_sequencer or _reaches(db, user, project_id)
                readable = reach[key]
        return readable

    widened: dict[int, set[str]] = {}
    gainers: set[int] = set()
    for sample in samples:
        before = set(db.scalars(select(ProjectSample.project_id).where(
            ProjectSample.sample_id == sample.id)))
        after = (before - {source_id}) | {target_id}
        restricted = set(db.scalars(select(MetadataEntry.field).join(
            MetadataField, and_(MetadataField.name == MetadataEntry.field,
                                MetadataField.project_id.in_(before),
                                MetadataField.restriction > OPEN))
            .where(MetadataEntry.sample_id == sample.id)))
        if not restricted:
            continue
        users = set(db.scalars(select(ProjectMember.user_id).where(
            ProjectMember.project_id.in_(after), ProjectMember.active)))
        for pairs in _route_pairs(READ_LEVEL):
            users.update(db.scalars(select(pairs.c.user_id).where(
                pairs.c.object_id.in_(after))))
        users.update(db.scalars(select(User.id).where(
            User.system_role == SystemRole.SEQUENCER.value)))
        roles = dict(db.execute(select(User.id, User.system_role).where(User.id.in_(users))
                                ).all()) if users else {}
        for user_id, role in sorted(roles.items()):
            user = Caller(user_id, role)
            if user.sees_all:
                continue
            for field in sorted(restricted):
                if reads(user, after, field) and not reads(user, before, field):
                    widened.setdefault(sample.id, set()).add(field)
                    gainers.add(user_id)
    return widened, gainers


def widening_message(names: Iterable[str], fields: Iterable[str], accounts: int) -> str:
    return (f"Moving sample(s) {', '.join(sorted(names))} would let {accounts} account(s) "
            f"read the field(s) {', '.join(sorted(set(fields)))}, which a project holding them "
            "restricts from them. Restrict the fields in the target project as the source "
            "does, or lower the restriction in the source, first.")


def check_no_widening(db: Session, samples: Sequence[Any], source_id: int,
                      target_id: int) -> None:
    """:class:`~seqcore.errors.domain.Forbidden` (nothing moved: callers check first) when
    moving ``samples`` would widen what anyone reads (:func:`widened_fields`)."""
    widened, gainers = widened_fields(db, samples, source_id, target_id)
    if widened:
        names = [sample.name for sample in samples if sample.id in widened]
        raise Forbidden(widening_message(names, set().union(*widened.values()),
                                         len(gainers)))


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


__all__ = [
    "ALL",
    "CALLER_ID",
    "LEVELS",
    "OPEN",
    "SERVICE",
    "Caller",
    "CallerKind",
    "FieldAccess",
    "caller_form",
    "caller_kind",
    "caller_params",
    "check_no_widening",
    "check_writable",
    "held_back",
    "held_back_fields",
    "member_level",
    "readable_entry",
    "readable_fields",
    "readable_metadata",
    "reads_field_in",
    "sample_hidden_fields",
    "widened_fields",
    "widening_message",
]
