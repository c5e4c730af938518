"""Who may read and write what: one definition per resource type.

Each resource type (project, sample, analysis submission, sequencing run, account) is a
:class:`Rules`: a list of :class:`Grant` s, each naming *who* (everyone holding a principal,
the account named in a column of the object's row, or the accounts related to the object
through other tables) and *which permissions*. From that one list come both

* the ACL of the traversal context (:meth:`Rules.acl`), which Pyramid's ``permits`` reads
  for every view and mutation, and
* the SQL condition selecting the rows a caller holds a permission on
  (:meth:`Rules.condition`), which the REST list views and the GraphQL queries and loaders
  use, so a list never shows what a GET of the item would refuse.

The fixed nodes above the objects (the API root and the collections) are :class:`Scope` s,
built from the same kind of grants; a condition counts their grants too, because the ACL of
an object is read along its lineage. Objects below a type (sequencing objects and files,
plugin resources under a sample) inherit through ``__parent__``; their rows are filtered by
passing their foreign-key column to :meth:`Rules.condition`.

``tests/functional/test_access_agreement.py`` generates accounts, projects, samples,
memberships, shares and submissions, and checks for every (account, object, permission) that
the ACL and the condition give the same answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, cached_property, partial
from typing import Any, TypeAlias

from pyramid.authorization import (
    ALL_PERMISSIONS,
    Allow,
    AllPermissionsList,
    Authenticated,
    Deny,
    Everyone,
)
from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Integer,
    and_,
    bindparam,
    exists,
    false,
    literal,
    not_,
    null,
    or_,
    select,
)
from sqlalchemy import true as sql_true
from sqlalchemy.orm import InstrumentedAttribute, Session

from seqcore.db import AnySelect
from seqcore.models.analysis import AnalysisSubmission, SubmissionProject
from seqcore.models.export import DataExport
from seqcore.models.group import READ_LEVEL, UPLOAD_LEVEL, WRITE_LEVEL, Group
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import ProjectSample, Sample
from seqcore.models.sequencing import SequencingRun
from seqcore.models.user import SystemRole, User
from seqcore.security.archived import (
    PROJECT_READ_ONLY,
    SAMPLE_READ_ONLY,
    archived_project,
    owned_by_archived_project,
)
from seqcore.security.inheritance import GROUP_ROUTES, PROJECT_ROUTES
from seqcore.security.permissions import Permission
from seqcore.security.principals import (
    ADMIN,
    MANAGER,
    SEQUENCER,
    USER,
    account_principals,
    user_principal,
)

Permissions: TypeAlias = tuple[str, ...] | AllPermissionsList
# An access control entry as pyramid reads it: (Allow, principal, permissions).
Ace: TypeAlias = tuple[str, str, Permissions]


# -- who ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Role:
    """Every caller holding ``principal`` (a system role, ``Authenticated``); on every object
    of the type, or only on those for which ``when(object id)`` is true."""

    principal: str
    when: Callable[[Any], ColumnElement[bool]] | None = None


@dataclass(frozen=True)
class Holder:
    """The account named in a column of the object's own row (a submission's submitter, a
    run's creator, an account itself)."""

    column: InstrumentedAttribute[Any]


@dataclass(frozen=True)
class Related:
    """Accounts related to the object through other tables. ``pairs()`` selects columns
    labelled ``object_id`` and ``user_id``: the ACL asks it for the accounts of one object,
    the condition for the objects of one account (each by adding a ``WHERE`` to it)."""

    pairs: Callable[[], AnySelect]


@cache
def _objects_by_account(related: Related) -> tuple[AnySelect, Any]:
    """``related``'s object ids and the account column to filter them by, built once: list
    queries ask for them on every request, and building the routes' joins and aliases cost
    more than running them (half of a 1,000-project collection request)."""
    pairs = related.pairs()
    columns = pairs.selected_columns
    return pairs.with_only_columns(columns.object_id), columns.user_id


@dataclass(frozen=True)
class Grant:
    who: Role | Holder | Related
    permissions: Permissions

    def covers(self, permission: str) -> bool:
        return permission in self.permissions


@dataclass(frozen=True)
class Frozen:
    """Objects for which ``when(object id)`` is true are read-only: ``permissions`` are
    denied to everyone, administrators included, before any grant is read (an archived
    project, the samples it owns). The ACL starts with ``ace`` (one object, so a refusal
    can say why it was refused), and :meth:`Rules.condition` leaves those objects out."""

    when: Callable[[Any], ColumnElement[bool]]
    permissions: tuple[str, ...]

    @property
    def ace(self) -> Ace:
        return (Deny, Everyone, self.permissions)


#: The grant index of a frozen object's row in an ACL statement.
FROZEN_ROW = -1


def _ace(principal: str, grant: Grant) -> Ace:
    return (Allow, principal, grant.permissions)


# -- fixed nodes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """A node of the tree with a fixed ACL (the API root, a collection): role grants only."""

    grants: tuple[Grant, ...]
    parent: Scope | None = None

    def __post_init__(self) -> None:
        for grant in self.grants:
            if not isinstance(grant.who, Role) or grant.who.when is not None:
                raise TypeError("a scope grants to roles, unconditionally")

    def acl(self) -> list[Ace]:
        return [_ace(grant.who.principal, grant) for grant in self.grants]  # type: ignore[union-attr]

    def lineage(self) -> Iterable[Scope]:
        node: Scope | None = self
        while node is not None:
            yield node
            node = node.parent


# -- resource types -----------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """Who holds which permission on the objects of one type (rows of ``model``), below the
    fixed node ``parent``."""

    name: str
    model: type
    read: Permission  # what a caller needs to know an object exists
    grants: tuple[Grant, ...]
    parent: Scope
    frozen: Frozen | None = None

    @property
    def id_column(self) -> InstrumentedAttribute[Any]:
        return self.model.id  # type: ignore[attr-defined, no-any-return]

    # The ACL of one object.

    @cached_property
    def _acl_query(self) -> AnySelect | CompoundSelect[*tuple[Any, ...]] | None:
        """One statement for the related accounts and conditional roles of every grant of
        one object (its id bound as ``object_id``), built once per type: building it costs
        more than running it."""
        object_id = bindparam("object_id", type_=Integer)
        parts: list[AnySelect] = []
        if self.frozen is not None:
            parts.append(select(literal(FROZEN_ROW).label("grant"), null().label("user_id"))
                         .where(self.frozen.when(object_id)))
        for index, grant in enumerate(self.grants):
            who = grant.who
            if isinstance(who, Role) and who.when is not None:
                parts.append(select(literal(index).label("grant"), null().label("user_id"))
                             .where(who.when(object_id)))
            elif isinstance(who, Related):
                pairs = who.pairs()
                columns = pairs.selected_columns
                parts.append(pairs.with_only_columns(literal(index).label("grant"),
                                                     columns.user_id)
                             .where(columns.object_id == object_id))
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else parts[0].union_all(*parts[1:])

    def acl(self, db: Session, obj: Any) -> list[Ace]:
        """The ACL of the context standing for ``obj`` (one SQL statement at most: the
        related accounts and the conditional roles of every grant together)."""
        statement = self._acl_query
        if statement is None:
            return self.acl_of(obj, ())
        # On the session's connection (the statement is core SQL): the ORM's execution path
        # costs more than the query. Pending changes are flushed first, as the ORM would.
        db.flush()
        return self.acl_of(obj, db.connection().execute(statement, {"object_id": obj.id}))

    def acl_of(self, obj: Any, entries: Iterable[tuple[int | None, int | None]]) -> list[Ace]:
        """The ACL of ``obj`` from the ``(grant, user_id)`` rows of its ACL statement (as
        :meth:`acl` runs it, or as :meth:`with_acl` returns them beside the object's row;
        a row whose grant is ``NULL`` stands for none)."""
        acl: list[Ace] = []
        frozen: list[Ace] = []
        for grant in self.grants:
            who = grant.who
            if isinstance(who, Role) and who.when is None:
                acl.append(_ace(who.principal, grant))
            elif isinstance(who, Holder):
                user_id = getattr(obj, who.column.key)
                if user_id is not None:
                    acl.append(_ace(user_principal(user_id), grant))
        for index, user_id in entries:
            if index is None:
                continue
            if index == FROZEN_ROW:
                assert self.frozen is not None
                frozen = [self.frozen.ace]
                continue
            grant = self.grants[index]
            who = grant.who
            if isinstance(who, Role):
                acl.append(_ace(who.principal, grant))
            elif user_id is not None:  # a related account's row always names it
                acl.append(_ace(user_principal(user_id), grant))
        return frozen + acl

    def with_acl(self, *columns: Any) -> AnySelect:
        """One statement for an object's ``columns`` and its ACL (the object's id bound as
        ``object_id``): a row per ACL entry (``grant``, ``user_id``), or one row with both
        ``NULL`` when there is none, each carrying the object's columns; no row when there
        is no such object. Traversal reads a context's row and the ACL Pyramid will ask for
        in one round trip instead of two; :meth:`acl_of` turns the rows into the ACL."""
        object_id = bindparam("object_id", type_=Integer)
        statement = self._acl_query
        if statement is None:
            return select(*columns, null().label("grant"), null().label("user_id")).where(
                self.id_column == object_id)
        entries = statement.subquery("acl")
        return (select(*columns, entries.c.grant, entries.c.user_id)
                .select_from(self.model)
                .outerjoin(entries, sql_true())
                .where(self.id_column == object_id))

    # The rows a caller holds a permission on.

    def condition(self, permission: str, user_id: int, role: SystemRole | str,
                  column: Any = None) -> ColumnElement[bool]:
        """True for the objects on which the account ``user_id`` with system role ``role``
        holds ``permission``, as their ACLs (and those of the nodes above) say. ``column``
        is the object id to test (default: the model's id; a child's foreign key filters
        the child's rows)."""
        column = self.id_column if column is None else column
        granted = self._granted(permission, user_id, role, column)
        if self.frozen is not None and permission in self.frozen.permissions:
            return and_(not_(self.frozen.when(column)), granted)
        return granted

    def _granted(self, permission: str, user_id: int, role: SystemRole | str,
                 column: Any) -> ColumnElement[bool]:
        """:meth:`condition` before a frozen object's refusal."""
        principals = set(account_principals(user_id, role))
        for scope in self.parent.lineage():
            if any(g.covers(permission) and g.who.principal in principals  # type: ignore[union-attr]
                   for g in scope.grants):
                return sql_true()
        conditions: list[ColumnElement[bool]] = []
        for grant in self.grants:
            if not grant.covers(permission):
                continue
            who = grant.who
            if isinstance(who, Role):
                if who.principal not in principals:
                    continue
                if who.when is None:
                    return sql_true()
                conditions.append(who.when(column))
            elif isinstance(who, Holder):
                if column is self.id_column:
                    conditions.append(who.column == user_id)
                else:
                    conditions.append(column.in_(
                        select(self.id_column).where(who.column == user_id)))
            else:
                objects, account = _objects_by_account(who)
                conditions.append(column.in_(objects.where(account == user_id)))
        if not conditions:
            return false()
        return conditions[0] if len(conditions) == 1 else or_(*conditions)

    def readable(self, user_id: int, role: SystemRole | str,
                 column: Any = None) -> ColumnElement[bool]:
        """:meth:`condition` for the type's read permission."""
        return self.condition(self.read, user_id, role, column)


# -- the tree's fixed nodes ---------------------------------------------------------------

API = Scope((
    Grant(Role(ADMIN), ALL_PERMISSIONS),  # administrators may do anything anywhere
    Grant(Role(Authenticated), (Permission.API_READ,)),
))
PROJECTS = Scope((Grant(Role(USER), (Permission.PROJECT_CREATE,)),), API)
SAMPLES = Scope((), API)
SUBMISSIONS = Scope((Grant(Role(Authenticated), (Permission.ANALYSIS_LAUNCH,)),), API)
RUNS = Scope((Grant(Role(SEQUENCER), (Permission.RUN_CREATE,)),), API)
GROUPS = Scope((Grant(Role(USER), (Permission.GROUP_CREATE,)),), API)
EXPORTS = Scope((), API)
USERS = Scope((
    Grant(Role(USER), (Permission.USER_LIST, Permission.USER_READ)),
    Grant(Role(MANAGER), (Permission.USER_CREATE,)),
), API)


# -- relations ----------------------------------------------------------------------------


def project_members() -> AnySelect:
    """Direct members of the project whose membership has not expired (every relation
    below built on project membership starts from this condition)."""
    return (select(ProjectMember.project_id.label("object_id"), ProjectMember.user_id)
            .where(ProjectMember.active))


def project_owners() -> AnySelect:
    return project_members().where(ProjectMember.role == ProjectRole.OWNER.value)


def export_requesters() -> AnySelect:
    """The account that asked for an export, while it is a member of the export's project
    (one removed from the project no longer reads what it exported from it)."""
    return (select(DataExport.id.label("object_id"), ProjectMember.user_id)
            .join(ProjectMember, (ProjectMember.project_id == DataExport.project_id)
                  & (ProjectMember.user_id == DataExport.requester_id))
            .where(ProjectMember.active))


def sample_readers() -> AnySelect:
    """Members of any project holding the sample."""
    return (select(ProjectSample.sample_id.label("object_id"), ProjectMember.user_id)
            .join(ProjectMember, ProjectMember.project_id == ProjectSample.project_id)
            .where(ProjectMember.active))


def sample_owners() -> AnySelect:
    """Owners of a project that owns the sample (holds it with ``owner``)."""
    return sample_readers().where(ProjectMember.role == ProjectRole.OWNER.value,
                                  ProjectSample.owner.is_(True))


def submission_readers() -> AnySelect:
    """Members of the projects a submission is shared with."""
    return (select(SubmissionProject.submission_id.label("object_id"), ProjectMember.user_id)
            .join(ProjectMember, ProjectMember.project_id == SubmissionProject.project_id)
            .where(ProjectMember.active))


def _through_projects(route: Callable[[], AnySelect], object_column: Any, project_column: Any,
                      *where: Any) -> Callable[[], AnySelect]:
    """The pairs of a project ``route`` carried over to what the project holds
    (``object_column``, on rows whose ``project_column`` names the project): whoever reaches
    a project through groups reaches its samples and the submissions shared with it."""

    def pairs() -> AnySelect:
        projects = route().subquery()
        return (select(object_column.label("object_id"), projects.c.user_id)
                .join(projects, projects.c.object_id == project_column).where(*where))

    return pairs


def _routes(routes: Iterable[Callable[[int], AnySelect]],
            level: int) -> list[Callable[[], AnySelect]]:
    """Each route as a pairs function at ``level``."""
    return [partial(route, level) for route in routes]


GROUP_READERS = _routes(GROUP_ROUTES, READ_LEVEL)
GROUP_WRITERS = _routes(GROUP_ROUTES, WRITE_LEVEL)
PROJECT_READERS = _routes(PROJECT_ROUTES, READ_LEVEL)
PROJECT_WRITERS = _routes(PROJECT_ROUTES, WRITE_LEVEL)
#: Routes at exactly the uploader's level (IRIDA Next's ``token_active?`` rules: the
#: uploader creates and fills samples; the analyst and guest do not).
PROJECT_UPLOADERS = [partial(route, UPLOAD_LEVEL, True) for route in PROJECT_ROUTES]


def shared_with_a_project(submission_id: Any) -> ColumnElement[bool]:
    return exists(select(SubmissionProject.id).where(
        SubmissionProject.submission_id == submission_id))


# -- the resource types -------------------------------------------------------------------

OWNER_PERMISSIONS = (Permission.PROJECT_READ, Permission.PROJECT_WRITE, Permission.SAMPLE_CREATE,
                     Permission.NCBI_SUBMIT, Permission.EXPORT_CREATE)
SAMPLE_OWNER_PERMISSIONS = (Permission.SAMPLE_READ, Permission.SAMPLE_WRITE, Permission.SAMPLE_OWN)

PROJECT = Rules("project", Project, Permission.PROJECT_READ, (
    # Sequencer accounts (the uploader) read every project and create samples in it.
    Grant(Role(SEQUENCER), (Permission.PROJECT_READ, Permission.SAMPLE_CREATE)),
    # Members export the project's data (sequencer accounts do not).
    Grant(Related(project_members), (Permission.PROJECT_READ, Permission.EXPORT_CREATE)),
    # Owners (IRIDA's project managers) change the project and submit it to NCBI.
    Grant(Related(project_owners), OWNER_PERMISSIONS),
    # Through groups: every access level reads and exports, as members do; maintainers and
    # owners write like owners.
    *(Grant(Related(route), (Permission.PROJECT_READ, Permission.EXPORT_CREATE))
      for route in PROJECT_READERS),
    *(Grant(Related(route), OWNER_PERMISSIONS) for route in PROJECT_WRITERS),
    # Uploaders (through groups, or a project bot made at that level) create samples.
    *(Grant(Related(route), (Permission.SAMPLE_CREATE,)) for route in PROJECT_UPLOADERS),
), PROJECTS, frozen=Frozen(archived_project, PROJECT_READ_ONLY))

SAMPLE = Rules("sample", Sample, Permission.SAMPLE_READ, (
    # Sequencer accounts read and write every sample (they upload into it) but own none,
    # so they cannot hand ownership on.
    Grant(Role(SEQUENCER), (Permission.SAMPLE_READ, Permission.SAMPLE_WRITE)),
    Grant(Related(sample_readers), (Permission.SAMPLE_READ,)),
    Grant(Related(sample_owners), SAMPLE_OWNER_PERMISSIONS),
    *(Grant(Related(_through_projects(route, ProjectSample.sample_id,
                                      ProjectSample.project_id)), (Permission.SAMPLE_READ,))
      for route in PROJECT_READERS),
    *(Grant(Related(_through_projects(route, ProjectSample.sample_id, ProjectSample.project_id,
                                      ProjectSample.owner.is_(True))), SAMPLE_OWNER_PERMISSIONS)
      for route in PROJECT_WRITERS),
    # Uploaders change the samples their project owns (files, attachments, metadata) but
    # own none of them, so they hand no ownership on.
    *(Grant(Related(_through_projects(route, ProjectSample.sample_id, ProjectSample.project_id,
                                      ProjectSample.owner.is_(True))), (Permission.SAMPLE_WRITE,))
      for route in PROJECT_UPLOADERS),
), SAMPLES, frozen=Frozen(owned_by_archived_project, SAMPLE_READ_ONLY))

SUBMISSION = Rules("submission", AnalysisSubmission, Permission.SUBMISSION_READ, (
    Grant(Holder(AnalysisSubmission.submitter_id),
          (Permission.SUBMISSION_READ, Permission.SUBMISSION_DELETE)),
    Grant(Related(submission_readers), (Permission.SUBMISSION_READ,)),
    *(Grant(Related(_through_projects(route, SubmissionProject.submission_id,
                                      SubmissionProject.project_id)),
            (Permission.SUBMISSION_READ,))
      for route in PROJECT_READERS),
    # Sequencer accounts read every project, hence what is shared with one.
    Grant(Role(SEQUENCER, when=shared_with_a_project), (Permission.SUBMISSION_READ,)),
), SUBMISSIONS)

GROUP = Rules("group", Group, Permission.GROUP_READ, (
    # Every access level reads the group (and sees its subgroups and projects as their own
    # rules allow); maintainers and owners create subgroups and projects in it, change its
    # members and share it.
    *(Grant(Related(route), (Permission.GROUP_READ,)) for route in GROUP_READERS),
    *(Grant(Related(route), (Permission.GROUP_READ, Permission.GROUP_WRITE))
      for route in GROUP_WRITERS),
), GROUPS)

RUN = Rules("run", SequencingRun, Permission.RUN_READ, (
    Grant(Holder(SequencingRun.user_id), (Permission.RUN_UPDATE,)),
), RUNS)

def _export_requesters_through(route: Callable[[], AnySelect]) -> Callable[[], AnySelect]:
    """The requester of an export, while a project ``route`` (through groups) still reaches
    the export's project."""

    def pairs() -> AnySelect:
        projects = route().subquery()
        return (select(DataExport.id.label("object_id"), projects.c.user_id)
                .join(projects, (projects.c.object_id == DataExport.project_id)
                      & (projects.c.user_id == DataExport.requester_id)))

    return pairs


EXPORT = Rules("export", DataExport, Permission.EXPORT_READ, (
    Grant(Related(export_requesters), (Permission.EXPORT_READ, Permission.EXPORT_DELETE)),
    *(Grant(Related(_export_requesters_through(route)),
            (Permission.EXPORT_READ, Permission.EXPORT_DELETE))
      for route in PROJECT_READERS),
), EXPORTS)

ACCOUNT = Rules("user", User, Permission.USER_READ, (
    Grant(Holder(User.id),
          (Permission.USER_READ, Permission.USER_UPDATE, Permission.USER_PROJECTS)),
), USERS)

# -- the questions the transports ask ----------------------------------------------------


def readable_projects(user_id: int, role: SystemRole | str) -> AnySelect:
    """The projects an account may read, by id (one statement, whatever the count)."""
    return select(Project).where(PROJECT.readable(user_id, role)).order_by(Project.id)


__all__ = [
    "ACCOUNT",
    "API",
    "EXPORT",
    "EXPORTS",
    "GROUP",
    "GROUPS",
    "PROJECT",
    "PROJECTS",
    "RUN",
    "RUNS",
    "SAMPLE",
    "SAMPLES",
    "SUBMISSION",
    "SUBMISSIONS",
    "USERS",
    "Frozen",
    "Grant",
    "Holder",
    "Related",
    "Role",
    "Rules",
    "Scope",
    "readable_projects",
]
