"""Projects and their membership."""

from __future__ import annotations

from functools import cache
from typing import Any, cast

from sqlalchemy import BindParameter, Integer, bindparam, select
from sqlalchemy.sql.visitors import iterate

from seqcore.db.base import stored
from seqcore.db.prepared import PreparedRead, attach
from seqcore.models.project import Project, ProjectMember
from seqcore.models.user import SystemRole, User
from seqcore.resources.base import Context, int_key
from seqcore.resources.users import UserResource
from seqcore.security.access import PROJECT, PROJECTS, Ace, readable_projects
from seqcore.security.permissions import Permission

PROJECT_COLUMNS = tuple(Project.__table__.columns)


@cache
def project_with_acl() -> PreparedRead:
    """A project's columns by id, with its ACL's rows
    (:meth:`seqcore.security.access.Rules.with_acl`), built on first use: traversal reads a plain
    row (no ORM object, no identity map) and the ACL in one prepared statement
    (:mod:`seqcore.db.prepared`) on the request's connection; the mapped Project is loaded only if a
    view asks for it."""
    return PreparedRead(PROJECT.with_acl(*PROJECT_COLUMNS), ("object_id",))


# A collection entry's columns (``GET /api/projects``), the timestamps as the driver returns
# them (seqcore.db.base.stored_epoch_ms converts them straight to epoch milliseconds).
LIST_COLUMNS = (Project.id, Project.name, stored(Project.created), stored(Project.modified),
                Project.description, Project.remote_url, Project.organism,
                Project.genome_size, Project.minimum_coverage, Project.maximum_coverage,
                Project.sync_frequency)
# The caller's id in the statements of :func:`listing`.
LIST_CALLER = "project_list_caller_id"


@cache
def listing(role: str, archived: bool) -> PreparedRead:
    """:data:`LIST_COLUMNS` of every project a caller of ``role`` may read (archived ones
    or live ones), by id, the caller's id a parameter (:data:`LIST_CALLER`): built, compiled
    and hashed once per role rather than on every request (the conditions over the readers'
    routes and their cache key were a tenth of a thousand-project collection's time), and
    run as a prepared read (:mod:`seqcore.db.prepared`) whose rows are the driver's own
    tuples."""
    caller: Any = bindparam(LIST_CALLER, type_=Integer)
    condition = (Project.archived_at.is_not(None) if archived
                 else Project.archived_at.is_(None))
    statement = readable_projects(caller, SystemRole(role)).where(condition).with_only_columns(
        *LIST_COLUMNS)
    # A role that reads every project (an administrator's) has no condition on the caller.
    binds = {bind.key for bind in iterate(statement) if isinstance(bind, BindParameter)}
    return PreparedRead(statement, (LIST_CALLER,) if LIST_CALLER in binds else ())


def attach_project(db: Any, row: Any) -> Project:
    """The mapped project for a row of its columns, without another query
    (:func:`seqcore.db.prepared.attach`)."""
    return attach(db, Project, row)  # type: ignore[no-any-return]


class ProjectsCollection(Context):
    __acl__ = PROJECTS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        pid = int_key(key)
        self.db.flush()  # as an ORM query would (autoflush): the row includes this request's
        rows = project_with_acl().all(self.db.connection(), object_id=pid)
        if not rows:
            raise KeyError(key)
        row = rows[0]
        context = ProjectResource(self.request, str(row.id), self, row=row)
        context._acl = PROJECT.acl_of(row, [(r.grant, r.user_id) for r in rows])
        return context

    def resource_for(self, project: Project) -> ProjectResource:
        """The context of a project already loaded (collection entries: no extra query)."""
        return ProjectResource(self.request, str(project.id), self, project)


class ProjectResource(Context):
    """A project. ``row`` holds its columns as traversal read them; ``project`` is the
    mapped :class:`Project` (views that change it, plugins), loaded on first use."""

    read_permission = PROJECT.read

    def __init__(self, request: Any, name: str, parent: Context,
                 project: Project | None = None, row: Any = None) -> None:
        super().__init__(request, name, parent)
        if project is not None:
            self.project = project
        self.row: Any = row if row is not None else project

    @property
    def project(self) -> Project:
        if "_project" not in self.__dict__:
            self.__dict__["_project"] = attach_project(self.db, self.row)
        return cast("Project", self.__dict__["_project"])

    @project.setter
    def project(self, value: Project) -> None:
        self.__dict__["_project"] = value

    @property
    def project_id(self) -> int:
        project_id: int = self.row.id
        return project_id

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.PROJECT`: owners write, every member reads, sequencer
        accounts (the uploader) read every project."""
        if not hasattr(self, "_acl"):
            self._acl = PROJECT.acl(self.db, self.row)
        return self._acl

    def child(self, key: str) -> Any:
        if key == "users":
            return ProjectUsers(self.request, key, self)
        if key == "samples":
            from seqcore.resources.samples import ProjectSamples

            return ProjectSamples(self.request, key, self)
        if key == "analyses":
            return ProjectAnalyses(self.request, key, self)
        if key == "ncbiSubmissions":
            from seqcore.resources.ncbi import ProjectNcbiSubmissions

            return ProjectNcbiSubmissions(self.request, key, self)
        if key == "shares":
            from seqcore.resources.groups import ProjectShares

            return ProjectShares(self.request, key, self)
        if key == "exports":
            from seqcore.resources.exports import ProjectExports

            return ProjectExports(self.request, key, self)
        if key == "sampleImports":
            return ProjectSampleImports(self.request, key, self)
        if key == "bots":
            from seqcore.resources.bots import NamespaceBots

            return NamespaceBots(self.request, key, self)
        if key == "automatedAnalyses":
            from seqcore.resources.analyses import AutomatedAnalyses

            return AutomatedAnalyses(self.request, key, self)
        raise KeyError(key)


class ProjectSampleImports(Context):
    """``/api/projects/{id}/sampleImports``: inherits the project's ACL (``sample:create``)."""

    __parent__: ProjectResource


class ProjectUsers(Context):
    """``/api/projects/{id}/users``: the members."""

    __parent__: ProjectResource

    def child(self, key: str) -> Any:
        row = self.db.execute(
            select(ProjectMember, User)
            .join(User, ProjectMember.user_id == User.id)
            .where(ProjectMember.project_id == self.__parent__.project.id)
            .where(User.username == key)
        ).first()
        if row is None:
            raise KeyError(key)
        return ProjectMemberResource(self.request, row.User.username, self, row.ProjectMember,
                                     row.User)


class ProjectMemberResource(Context):
    def __init__(self, request: Any, name: str, parent: Context, member: ProjectMember,
                 user: User) -> None:
        super().__init__(request, name, parent)
        self.member = member
        self.user = user


class ProjectAnalyses(Context):
    """``/api/projects/{id}/analyses``: analysis submissions shared with the project."""

    def child(self, key: str) -> Any:
        from seqcore.analysis.registry import analysis_registry
        from seqcore.resources.analyses import ProjectAnalysesByType

        analysis_type = analysis_registry(self.request.registry).type(key)
        if analysis_type is None:
            raise KeyError(key)
        return ProjectAnalysesByType(self.request, key, self, analysis_type)


class ProjectMemberEntry(UserResource):
    """A member as listed under a project: linked by username, with its ``relationship``."""

    def __init__(self, request: Any, name: str, parent: Context, user: User,
                 project_ctx: ProjectResource) -> None:
        super().__init__(request, name, parent, user)
        self.project_ctx = project_ctx

    @classmethod
    def for_user(cls, request: Any, project_ctx: ProjectResource, user: User
                 ) -> ProjectMemberEntry:
        users = request.root["api"]["users"]
        return cls(request, user.username, users, user, project_ctx)
