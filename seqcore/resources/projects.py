"""Projects and their membership."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from seqcore.access import PROJECT, PROJECTS
from seqcore.models.project import Project, ProjectMember
from seqcore.models.user import User
from seqcore.resources.base import Context, int_key
from seqcore.resources.users import UserResource
from seqcore.security.permissions import Permission


class ProjectsCollection(Context):
    __acl__ = PROJECTS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        project = self.db.get(Project, int_key(key))
        if project is None:
            raise KeyError(key)
        return ProjectResource(self.request, str(project.id), self, project)

    def resource_for(self, project: Project) -> ProjectResource:
        """The context of a project already loaded (collection entries: no extra query)."""
        return ProjectResource(self.request, str(project.id), self, project)


class ProjectResource(Context):
    read_permission = PROJECT.read

    def __init__(self, request: Any, name: str, parent: Context, project: Project) -> None:
        super().__init__(request, name, parent)
        self.project = project

    @property
    def __acl__(self) -> list:
        """From :data:`seqcore.access.PROJECT`: owners write, every member reads, sequencer
        accounts (the uploader) read every project."""
        if not hasattr(self, "_acl"):
            self._acl = PROJECT.acl(self.db, self.project)
        return self._acl

    def child(self, key: str) -> Any:
        if key == "users":
            return ProjectUsers(self.request, key, self)
        if key == "samples":
            from seqcore.resources.samples import ProjectSamples

            return ProjectSamples(self.request, key, self)
        if key == "analyses":
            return ProjectAnalyses(self.request, key, self)
        if key == "automatedAnalyses":
            from seqcore.resources.analyses import AutomatedAnalyses

            return AutomatedAnalyses(self.request, key, self)
        raise KeyError(key)


class ProjectUsers(Context):
    """``/api/projects/{id}/users``: the members."""

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
