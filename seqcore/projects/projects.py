"""Operations on projects and their members shared by REST and GraphQL.

Two invariants must hold however many requests arrive at once:

* a project always has at least one owner whose membership does not expire (an owner
  with an expiry does not count: when it passes, the project would be left with none), and
* a project's ``namespace/path`` is unique (the database enforces it; creation without a
  chosen path picks a free one, so two creates with one name both succeed, as they do one
  after the other).

The first cannot be a database constraint (it is about a count of rows), so every change
that can lower the number of owners goes through :func:`remove_member`, which takes the
project's lock before it counts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Conflict, Forbidden, Invalid, NotFound
from seqcore.governance.activity import operation
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.user import User, UserType
from seqcore.notifications.events import member_added
from seqcore.parsing.expiry import check_ahead
from seqcore.projects.expiry import check_own_expiry
from seqcore.projects.namespaces import PATH_TAKEN, free_path, namespace_for, unusable_path

#: How often creation retries with a fresh path when concurrent creates take the one it chose.
PATH_ATTEMPTS = 20


class ProjectValues(TypedDict, total=False):
    """The columns of a project an operation may set, validated (by
    :class:`seqcore.parsing.schemas.ProjectSchema` for the wire); creation needs ``name``."""

    name: str
    description: str | None
    remote_url: str | None
    organism: str | None
    genome_size: int | None
    minimum_coverage: int | None
    maximum_coverage: int | None
    sync_frequency: str | None


# Membership refusals: each is the domain error a transport answers with.


class LastOwner(Invalid):
    def __init__(self) -> None:
        super().__init__(message="A project must keep at least one owner whose membership "
                                 "does not expire: add another owner before removing this "
                                 "one.")


class AlreadyMember(Conflict):
    def __init__(self, username: str, project_id: int) -> None:
        super().__init__(f"An entity already exists with that identifier: {username} is "
                         f"already a member of project {project_id}")


class NoLongerMember(NotFound):
    """The membership to change was removed by a concurrent request."""

    def __init__(self, username: str) -> None:
        super().__init__(f"{username} is not a member of this project.")


class NotAnOwner(Forbidden):
    """The caller's own ownership was removed by a request that committed first, but it is
    still a member (and may read the project)."""

    def __init__(self) -> None:
        super().__init__("You are no longer an owner of this project.")


class NoLongerAMember(NotFound):
    """The caller's own membership was removed by a request that committed first: to it the
    project is now one it cannot see."""


class PathTaken(Exception):
    """The chosen ``namespace/path`` belongs to another project."""


def lock_project(db: Session, project_id: int) -> None:
    """Serialise membership changes of one project until the transaction ends
    (:func:`seqcore.db.locks.lock_row`): every read after this call sees the latest commit."""
    lock_row(db, Project, project_id)


def owner_count(db: Session, project_id: int) -> int:
    """The project's owners whose membership does not expire (those that keep it owned).
    Bot accounts never count: a project must keep a person who owns it."""
    return db.scalar(select(func.count()).select_from(ProjectMember)
                     .join(User, User.id == ProjectMember.user_id).where(
        ProjectMember.project_id == project_id,
        ProjectMember.role == ProjectRole.OWNER.value,
        ProjectMember.expires_at.is_(None),
        User.account_type == UserType.HUMAN.value)) or 0


def _is_human(db: Session, user_id: int) -> bool:
    """Whether the account is a person's (only those count as the owner a project keeps)."""
    return db.scalar(select(User.account_type).where(User.id == user_id)) == UserType.HUMAN.value


def _membership(db: Session, project_id: int, user_id: int) -> ProjectMember | None:
    """The membership as committed now (not the copy the session may hold from before the
    lock)."""
    return db.scalar(select(ProjectMember).where(
        ProjectMember.project_id == project_id, ProjectMember.user_id == user_id)
        .execution_options(populate_existing=True))


def _check_actor(db: Session, project_id: int, actor_id: int | None) -> None:
    """The caller was an owner when the request began; make sure it still is now that the
    project is locked (``actor_id`` ``None``: an administrator, who needs no membership)."""
    if actor_id is None:
        return
    mine = _membership(db, project_id, actor_id)
    if mine is None or not mine.active:
        raise NoLongerAMember()
    if mine.role != ProjectRole.OWNER.value:
        raise NotAnOwner()


@operation("member.add")
def add_member(db: Session, project_id: int, user_id: int, username: str, role: str,
               metadata_role: str, actor_id: int | None,
               expires_at: datetime | None = None) -> ProjectMember:
    """Add ``user_id`` to the project, until ``expires_at`` if given (it must lie ahead);
    :class:`AlreadyMember` if it is one already (also when a concurrent request added it a
    moment ago). A membership that expired is replaced."""
    check_ahead(expires_at, utcnow())
    lock_project(db, project_id)
    _check_actor(db, project_id, actor_id)
    existing = _membership(db, project_id, user_id)
    if existing is not None:
        if existing.active:
            raise AlreadyMember(username, project_id)
        db.delete(existing)
        db.flush()
    member = ProjectMember(project_id=project_id, user_id=user_id, role=role,
                           metadata_role=metadata_role, expires_at=expires_at)
    db.add(member)
    db.flush()
    project = db.get_one(Project, project_id)
    member_added(db, user_id, "project", project.name,
                 "owner" if role == ProjectRole.OWNER.value else "member",
                 f"/-/projects/{project_id}", actor_id)
    return member


@operation("member.update")
def change_member_expiry(db: Session, project_id: int, user_id: int, username: str,
                         expires_at: datetime | None, actor_id: int | None) -> ProjectMember:
    """Set (``None``: remove) the expiry of a membership; an expiry must lie ahead, and the
    last owner whose membership does not expire keeps it so (:class:`LastOwner`)."""
    check_ahead(expires_at, utcnow())
    lock_project(db, project_id)
    _check_actor(db, project_id, actor_id)
    member = _membership(db, project_id, user_id)
    if member is None:
        raise NoLongerMember(username)
    check_own_expiry(actor_id, user_id, member.expires_at, expires_at)
    if (expires_at is not None and member.role == ProjectRole.OWNER.value
            and member.expires_at is None and _is_human(db, user_id)
            and owner_count(db, project_id) <= 1):
        raise LastOwner()
    member.expires_at = expires_at
    db.flush()
    return member


@operation("member.remove")
def remove_member(db: Session, project_id: int, user_id: int, username: str,
                  actor_id: int | None) -> None:
    """Remove a member, refusing (:class:`LastOwner`) to leave the project without an owner.

    The count is taken under :func:`lock_project`, so two owners removing each other at the
    same moment cannot both see "two owners" and both succeed: the second one waits, then
    finds itself (or the other) already gone.
    """
    lock_project(db, project_id)
    _check_actor(db, project_id, actor_id)
    member = _membership(db, project_id, user_id)
    if member is None:
        raise NoLongerMember(username)
    if (member.role == ProjectRole.OWNER.value and member.expires_at is None
            and _is_human(db, user_id) and owner_count(db, project_id) <= 1):
        raise LastOwner()
    db.delete(member)
    db.flush()


def _insert_ignoring_path_conflict(db: Session, values: dict[str, Any]) -> int | None:
    """Insert a project row unless its ``namespace/path`` exists: the new id, or ``None``.

    ``ON CONFLICT DO NOTHING`` (PostgreSQL and SQLite alike) waits for a concurrent insert of
    the same path to commit or roll back, and never aborts the transaction, so the caller can
    pick another path and try again within the same request.
    """
    statement: postgresql.Insert | sqlite.Insert
    if db.get_bind().dialect.name == "sqlite":
        statement = sqlite.insert(Project)
    else:
        statement = postgresql.insert(Project)
    statement = (statement.values(**values)
                 .on_conflict_do_nothing(index_elements=["namespace", "path"]))
    return db.execute(statement.returning(Project.id)).scalar()


def create_project(db: Session, owner_id: int, namespace: str, values: dict[str, Any],
                   path: str | None = None, group_id: int | None = None) -> Project:
    """Create a project owned by ``owner_id``.

    ``path`` given: :class:`PathTaken` if another project has it, even one created by a
    request that committed a moment ago. ``path`` ``None``: a free path derived from the
    name; when a concurrent create takes it first, the next free one.
    """
    row = {"created": utcnow(), **values, "namespace": namespace, "group_id": group_id}
    for _ in range(PATH_ATTEMPTS):
        candidate = path if path is not None else free_path(db, namespace, values["name"])
        project_id = _insert_ignoring_path_conflict(db, {**row, "path": candidate})
        if project_id is not None:
            break
        if path is not None:
            raise PathTaken(path)
    else:  # pragma: no cover - twenty concurrent creates of one name in one namespace
        raise PathTaken(candidate)
    db.add(ProjectMember(project_id=project_id, user_id=owner_id, role=ProjectRole.OWNER.value,
                         metadata_role="LEVEL_4"))
    db.flush()
    project = db.get(Project, project_id)
    assert project is not None
    return project


def check_coverage(minimum: int | None, maximum: int | None) -> None:
    """:class:`~seqcore.errors.domain.Invalid` when the coverage range is upside down."""
    if minimum is not None and maximum is not None and minimum > maximum:
        raise Invalid({"maximumCoverage": [
            "Maximum coverage must not be less than minimum coverage."]})


@operation("project.create")
def new_project(db: Session, owner_id: int, owner_name: str, values: ProjectValues,
                path: str | None = None, group: Any = None) -> Project:
    """Create a project in the personal namespace of ``owner_name`` (or in the namespace of
    ``group``, a :class:`seqcore.models.group.Group` the caller may write), owned by it.
    In a group, only its members at ``MAINTAINER`` or above and administrators create
    (:func:`seqcore.projects.groups.check_may_create_in`: a share's holders do not, since
    the project would outlive the share).

    :class:`~seqcore.errors.domain.Invalid` for an upside
    down coverage range, or a ``path`` that is malformed or taken (also when a concurrent
    create takes it between the check and the insert).
    """
    check_coverage(values.get("minimum_coverage"), values.get("maximum_coverage"))
    namespace = namespace_for(owner_name) if group is None else group.full_path
    if group is not None:
        from seqcore.projects.groups import check_may_create_in

        check_may_create_in(db, group, owner_id, "create a project in this group")
    if path is not None:
        trouble = unusable_path(db, namespace, path)
        if trouble is not None:
            raise Invalid({"path": [trouble]})
    try:
        return create_project(db, owner_id, namespace, dict(values), path=path,
                              group_id=None if group is None else group.id)
    except PathTaken:
        raise Invalid({"path": [PATH_TAKEN]}) from None


@operation("project.update")
def update_project(db: Session, project: Project, values: ProjectValues) -> None:
    """Change the given columns of ``project``; :class:`~seqcore.errors.domain.Invalid` (nothing
    changed) when the coverage range would end up upside down."""
    check_coverage(values.get("minimum_coverage", project.minimum_coverage),
                   values.get("maximum_coverage", project.maximum_coverage))
    for attr, value in values.items():
        setattr(project, attr, value)
    project.modified = utcnow()
    db.flush()


@operation("project.delete")
def delete_project(db: Session, pm: Any, project: Project, request: Any = None) -> None:
    """Delete the project, the samples no other project holds (plugins are told first,
    as :func:`seqcore.samples.samples.delete_samples` says), its data exports (their bundles
    removed once this commits) and its bots (their accounts disabled, their tokens revoked)."""
    from seqcore.exports.jobs import delete_project_exports
    from seqcore.projects.bots import end_project_bots
    from seqcore.samples.samples import delete_samples, orphans_after_removal

    end_project_bots(db, project.id)
    orphans = orphans_after_removal(db, project.id)
    delete_samples(db, pm, orphans, request)
    pm.hook.projects_deleting(project_ids=[project.id], request=request)
    delete_project_exports(db, request.storage, request.tm, [project.id])
    db.delete(project)
    db.flush()
