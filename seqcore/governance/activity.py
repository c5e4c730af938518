"""The audit trail: every domain write operation leaves exactly one activity record, in
the transaction of its change.

A write operation is declared with :func:`operation` (``@operation("sample.update")``),
which registers it in :data:`OPERATIONS` and wraps it: while it runs, an ``after_flush``
listener collects what the flushes change in the audited tables (before and after of each
column, each metadata value); when it returns, one :class:`~seqcore.models.activity.Activity`
row is added to the same session, so the record commits with the change or rolls back with
it. An operation that raises leaves nothing. An operation called by another is part of it
(one record). Bulk statements, which the listener cannot see, are described with
:func:`note`.

Who acted comes from the session: a request's session carries the request
(``session.info["seqcore.request"]``: the caller's account and how it authenticated), work
outside a request says it with :func:`acting` (an analysis, an NCBI submission). The
acceptance test walks :data:`OPERATIONS`, so a new operation without a scenario there fails.

Reading the trail (:func:`activities`) honours field restrictions: a metadata change of a
field the viewer may not read is left out (:mod:`seqcore.security.fieldaccess`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar

from sqlalchemy import event, inspect, or_, select
from sqlalchemy.orm import Session

from seqcore.db import AnySelect
from seqcore.governance.readonly import refuse_in_synchronized
from seqcore.models.activity import Activity, ActivitySubject
from seqcore.models.attachment import Attachment
from seqcore.models.fielddecl import MetadataField, MetadataTemplate
from seqcore.models.group import Group, GroupMember, GroupShare
from seqcore.models.ncbi import NcbiSubmission
from seqcore.models.project import Project, ProjectMember
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import SequencingObject, SequencingRun
from seqcore.observability.requestid import current as current_request_id
from seqcore.security.fieldaccess import Caller, FieldAccess, held_back_fields, readable_fields

F = TypeVar("F", bound=Callable[..., Any])

SCOPE = "seqcore.activity.scope"
ACTOR = "seqcore.activity.actor"
REQUEST = "seqcore.request"


# -- who ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    """Who made a change: ``type`` is ``user``, ``client``, ``token``, ``analysis``,
    ``ncbi``, ``service`` or ``sync`` (the worker mirroring a synchronized project)."""

    type: str
    user_id: int | None = None
    name: str | None = None
    client_id: str | None = None
    token_id: int | None = None
    submission_id: int | None = None


SERVICE = Actor("service")


def actor_of_request(request: Any) -> Actor:
    """The account behind a request and the credential it used."""
    from seqcore.security.policy.top_level import credentials

    found = credentials(request)
    identity = found.identity
    if identity is None:
        return SERVICE
    if found.method == "token":
        kind = "token"
    elif identity.client_id is not None:
        kind = "client"
    else:
        kind = "user"
    return Actor(kind, identity.user_id, identity.username, identity.client_id,
                 found.token_id)


def current_actor(db: Session) -> Actor:
    actor = db.info.get(ACTOR)
    if actor is not None:
        return actor  # type: ignore[no-any-return]
    request = db.info.get(REQUEST)
    return actor_of_request(request) if request is not None else SERVICE


@contextmanager
def acting(db: Session, actor: Actor) -> Iterator[None]:
    """Record the changes made in the block as ``actor``'s (an analysis, a submission)."""
    previous = db.info.get(ACTOR)
    db.info[ACTOR] = actor
    try:
        yield
    finally:
        if previous is None:
            db.info.pop(ACTOR, None)
        else:
            db.info[ACTOR] = previous


# -- what ----------------------------------------------------------------------------------


@dataclass
class _Scope:
    kind: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    projects: set[int] = field(default_factory=set)
    samples: set[int] = field(default_factory=set)
    depth: int = 1


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


#: The audited tables: how each names itself in a change and which project/sample it is of.
AUDITED: dict[type, tuple[str, Callable[[Any], int | None], Callable[[Any], int | None]]] = {
    Project: ("project", lambda o: o.id, lambda o: None),
    ProjectMember: ("member", lambda o: o.project_id, lambda o: None),
    Sample: ("sample", lambda o: None, lambda o: o.id),
    ProjectSample: ("projectSample", lambda o: o.project_id, lambda o: o.sample_id),
    MetadataEntry: ("metadata", lambda o: None, lambda o: o.sample_id),
    MetadataField: ("metadataField", lambda o: o.project_id, lambda o: None),
    MetadataTemplate: ("metadataTemplate", lambda o: o.project_id, lambda o: None),
    SequencingObject: ("sequencingObject", lambda o: None, lambda o: o.sample_id),
    SequencingRun: ("run", lambda o: None, lambda o: None),
    NcbiSubmission: ("ncbiSubmission", lambda o: o.project_id, lambda o: None),
    # A group's writes concern no project of their own: the record names the group in its
    # changes (``group_id``); a share of a project concerns that project.
    Group: ("group", lambda o: None, lambda o: None),
    GroupMember: ("groupMember", lambda o: None, lambda o: None),
    GroupShare: ("groupShare", lambda o: o.project_id, lambda o: None),
    Attachment: ("attachment", lambda o: o.project_id, lambda o: o.sample_id),
}
#: Columns never written to the trail: bookkeeping, and an attachment's download
#: capability (``download_key``), which is a secret.
SKIPPED = {"id", "created", "modified", "puid", "download_key"}


def _columns(obj: Any) -> list[Any]:
    return [attr for attr in inspect(obj).mapper.column_attrs if attr.key not in SKIPPED]


def _describe(obj: Any, action: str) -> list[dict[str, Any]]:
    """The changes of one flushed object: a metadata value as ``field`` with ``before`` and
    ``after``; other rows as their changed columns."""
    on = AUDITED[type(obj)][0]
    state = inspect(obj)
    if isinstance(obj, MetadataEntry):
        history = state.attrs.value.history
        before = (history.deleted[0] if history.deleted else
                  None if action == "created" else obj.value)
        after = None if action == "deleted" else obj.value
        if action == "updated" and before == after:
            return []
        return [{"on": on, "sample": obj.sample_id, "field": obj.field, "before": before,
                 "after": after, "provenance": provenance_of(obj)}]
    values: dict[str, Any] = {}
    for attr in _columns(obj):
        history = state.attrs[attr.key].history
        if action == "updated":
            if not history.has_changes():
                continue
            values[attr.key] = {"before": _plain(history.deleted[0] if history.deleted
                                                 else None),
                                "after": _plain(getattr(obj, attr.key))}
        else:
            values[attr.key] = _plain(getattr(obj, attr.key))
    if action == "updated" and not values:
        return []
    change = {"on": on, "id": state.identity[0] if state.identity else None,
              "action": action, "values": values}
    if isinstance(obj, MetadataField):
        change["field"] = obj.name
    return [change]


def provenance_of(entry: MetadataEntry) -> dict[str, Any] | None:
    """Where a metadata value came from, as IRIDA Next's ``metadata_provenance``: an
    analysis submission, an NCBI submission or an import from another install (``seqcore
    import``; ``id`` is the import's run) (``None``: a person or client wrote it)."""
    if entry.submission_id is not None:
        return {"source": "analysis", "id": entry.submission_id}
    if entry.ncbi_submission_id is not None:
        return {"source": "ncbiSubmission", "id": entry.ncbi_submission_id}
    if entry.import_id is not None:
        return {"source": "import", "id": entry.import_id}
    return None


def _collect(session: Session, flush_context: Any) -> None:
    scope: _Scope | None = session.info.get(SCOPE)
    if scope is None:
        return
    for objects, action in ((session.new, "created"), (session.dirty, "updated"),
                            (session.deleted, "deleted")):
        for obj in objects:
            described = AUDITED.get(type(obj))
            if described is None:
                continue
            if action == "updated" and not session.is_modified(obj, include_collections=False):
                continue
            changes = _describe(obj, action)
            if not changes:
                continue
            scope.changes.extend(changes)
            project_id, sample_id = described[1](obj), described[2](obj)
            if project_id is not None:
                scope.projects.add(project_id)
            if sample_id is not None:
                scope.samples.add(sample_id)


event.listen(Session, "after_flush", _collect)


def note(db: Session, *, projects: Iterable[int] = (), samples: Iterable[int] = (),
         **change: Any) -> None:
    """Describe what a bulk statement of the running operation does (the listener sees only
    the ORM's flushes). Outside an operation (start-up, the test kit) it does nothing."""
    scope: _Scope | None = db.info.get(SCOPE)
    if scope is None:
        return
    scope.projects.update(projects)
    scope.samples.update(samples)
    if change:
        scope.changes.append(change)


# -- the operations -------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    kind: str
    function: Callable[..., Any]
    doc: str


#: Every registered domain write operation, by kind.
OPERATIONS: dict[str, Operation] = {}


def operation(kind: str, actor: Callable[..., Actor | None] | None = None) -> Callable[[F], F]:
    """Declare a domain write operation (its first argument is the session, or something
    with the session as ``.db``: a request): it is
    registered as ``kind`` and leaves one activity record per call. ``actor`` (given the
    call's arguments) names who acts when the session does not say (an analysis)."""

    def wrap(function: F) -> F:
        if kind in OPERATIONS:
            raise ValueError(f"two write operations named {kind!r}")

        @functools.wraps(function)
        def recorded(first: Any, *args: Any, **kwargs: Any) -> Any:
            db: Session = first if isinstance(first, Session) else first.db
            scope: _Scope | None = db.info.get(SCOPE)
            if scope is not None:  # part of an operation already running
                scope.depth += 1
                try:
                    return function(first, *args, **kwargs)
                finally:
                    scope.depth -= 1
            scope = db.info[SCOPE] = _Scope(kind)
            try:
                result = function(first, *args, **kwargs)
                db.flush()
            finally:
                db.info.pop(SCOPE, None)
            who = (actor(first, *args, **kwargs) if actor is not None else None) or (
                current_actor(db))
            projects = _touched_projects(db, scope)
            refuse_in_synchronized(db, scope.kind, projects, who, scope.changes)
            _write(db, scope, who, projects)
            return result

        OPERATIONS[kind] = Operation(kind, recorded, (function.__doc__ or "").strip())
        return recorded  # type: ignore[return-value]

    return wrap


def _touched_projects(db: Session, scope: _Scope) -> set[int]:
    projects = set(scope.projects)
    if scope.samples:  # a sample's change shows in the projects holding it
        projects.update(db.scalars(select(ProjectSample.project_id).where(
            ProjectSample.sample_id.in_(sorted(scope.samples)))))
    return projects


def _write(db: Session, scope: _Scope, actor: Actor, projects: set[int]) -> None:
    record = Activity(kind=scope.kind, actor_type=actor.type, actor_user_id=actor.user_id,
                      actor_name=actor.name, actor_client_id=actor.client_id,
                      actor_token_id=actor.token_id,
                      actor_submission_id=actor.submission_id,
                      request_id=current_request_id(), changes=scope.changes)
    for project_id in sorted(projects):
        record.subjects.append(ActivitySubject(project_id=project_id))
    for sample_id in sorted(scope.samples):
        record.subjects.append(ActivitySubject(sample_id=sample_id))
    db.add(record)
    db.flush()


# -- reading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActivityQuery:
    """A page of the trail: newest first, optionally since/until a time and of some kinds
    (a kind ``sample`` selects ``sample.*``)."""

    since: datetime | None = None
    until: datetime | None = None
    kinds: tuple[str, ...] = ()
    limit: int = 50
    before_id: int | None = None  # the cursor: records older than this one


def _statement(subject: Any, query: ActivityQuery) -> AnySelect:
    statement = (select(Activity).where(Activity.id.in_(
        select(ActivitySubject.activity_id).where(subject)))
        .order_by(Activity.id.desc()).limit(query.limit + 1))
    if query.since is not None:
        statement = statement.where(Activity.created >= query.since)
    if query.until is not None:
        statement = statement.where(Activity.created < query.until)
    if query.before_id is not None:
        statement = statement.where(Activity.id < query.before_id)
    if query.kinds:
        statement = statement.where(or_(*[
            or_(Activity.kind == k, Activity.kind.like(f"{k}.%")) for k in query.kinds]))
    return statement


def activities(db: Session, caller: Caller, query: ActivityQuery, *,
               project_id: int | None = None, sample_id: int | None = None
               ) -> tuple[list[dict[str, Any]], int | None]:
    """One page of a project's or a sample's trail as the caller may see it, and the cursor
    of the next page (``None``: no more). Metadata changes (and declarations) of fields the
    caller may not read are left out (also a value of a field another project holding its
    sample restricts above the caller); records left empty by that are still listed, without
    the hidden changes, so the caller knows that something happened and when."""
    subject = (ActivitySubject.project_id == project_id if project_id is not None
               else ActivitySubject.sample_id == sample_id)
    rows = list(db.scalars(_statement(subject, query)))
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    if project_id is not None:
        accesses = [readable_fields(db, caller, project_id)]
    else:  # a sample's field shows when some project holding it lets the caller read it
        projects = list(db.scalars(select(ProjectSample.project_id).where(
            ProjectSample.sample_id == sample_id)))
        accesses = [readable_fields(db, caller, p) for p in projects] or [
            readable_fields(db, caller, -1)]
    entries = _entries(db, caller, rows, lambda row: accesses)
    return entries, (rows[-1].id if more and rows else None)


def feed(db: Session, caller: Caller, query: ActivityQuery, projects: AnySelect
         ) -> tuple[list[dict[str, Any]], int | None]:
    """One page of the trails of several projects at once (``projects``: a statement
    selecting their ids, such as those the caller may read), newest first, and the cursor of
    the next page (``None``: no more). Each entry names the first of those projects it
    concerns (``projectId``); a metadata change shows when one of its projects among them
    lets the caller read the field (and no other project holding the sample restricts it
    above the caller), as in :func:`activities`. A few statements whatever the page size:
    the page, the projects of its entries, and each of those projects' field levels."""
    rows = list(db.scalars(_statement(ActivitySubject.project_id.in_(projects), query)))
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    concerned: dict[int, list[int]] = {}
    if rows:
        for activity_id, project_id in db.execute(
                select(ActivitySubject.activity_id, ActivitySubject.project_id)
                .where(ActivitySubject.activity_id.in_([row.id for row in rows]),
                       ActivitySubject.project_id.in_(projects))
                .order_by(ActivitySubject.project_id)):
            if project_id is not None:
                concerned.setdefault(activity_id, []).append(project_id)
    levels: dict[int, FieldAccess] = {}

    def accesses(row: Activity) -> list[FieldAccess]:
        found = []
        for project_id in concerned.get(row.id, []):
            if project_id not in levels:
                levels[project_id] = readable_fields(db, caller, project_id)
            found.append(levels[project_id])
        return found

    entries = _entries(db, caller, rows, accesses)
    for entry in entries:
        found = concerned.get(entry["id"])
        entry["projectId"] = found[0] if found else None
    return entries, (rows[-1].id if more and rows else None)


def _entries(db: Session, caller: Caller, rows: list[Activity],
             accesses_of: Callable[[Activity], list[FieldAccess]]) -> list[dict[str, Any]]:
    """The records as the caller may see them: metadata changes (and declarations) of
    fields none of ``accesses_of(row)`` lets the caller read are left out, and so is a
    value of a field another project holding its sample restricts above the caller;
    records left empty by that are still listed, without the hidden changes, so the caller
    knows that something happened and when."""
    kept: dict[tuple[int, str], bool] = {}
    known: dict[int, Any] = {}  # each project's answer, asked once for the page

    def can_read(change: dict[str, Any], accesses: list[FieldAccess]) -> bool:
        if not any(access.can_read(change["field"]) for access in accesses):
            return False
        sample = change.get("sample") if change.get("on") == "metadata" else None
        if sample is None:
            return True
        key = (sample, change["field"])
        if key not in kept:  # restricted by another project holding the sample
            kept[key] = not held_back_fields(db, caller, sample, [change["field"]], known)
        return kept[key]

    entries = []
    for row in rows:
        accesses = accesses_of(row)
        changes = [c for c in row.changes or []
                   if c.get("on") not in ("metadata", "metadataField")
                   or can_read(c, accesses)]
        entries.append({"id": row.id, "kind": row.kind, "created": row.created,
                        "actor": {"type": row.actor_type, "userId": row.actor_user_id,
                                  "name": row.actor_name, "clientId": row.actor_client_id,
                                  "tokenId": row.actor_token_id,
                                  "submissionId": row.actor_submission_id},
                        "requestId": row.request_id, "changes": changes})
    return entries


__all__ = ["ACTOR", "OPERATIONS", "REQUEST", "SERVICE", "ActivityQuery", "Actor",
           "Operation", "acting", "activities", "actor_of_request", "current_actor", "feed", "note",
           "operation", "provenance_of"]
