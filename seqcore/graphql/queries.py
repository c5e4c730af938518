"""The core's ``Query`` fields. Plugins add theirs through ``register_graphql_query_fields``."""

from __future__ import annotations

import inspect
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import or_, select

from seqcore.graphql.connections import connection_args, connection_for, paginate
from seqcore.graphql.filters import (
    ProjectFilter,
    ProjectOrder,
    SampleFilter,
    SampleOrder,
    project_filter_conditions,
    project_ordering,
    sample_filter_conditions,
    sample_ordering,
)
from seqcore.graphql.linelist import linelist_download_field, resolve_linelist_download
from seqcore.graphql.loaders import readable_group, readable_project, readable_sample
from seqcore.graphql.types import Node, Project, Sample, User
from seqcore.models.group import Group as GroupModel
from seqcore.models.group import GroupHierarchy, GroupShare
from seqcore.models.project import Project as ProjectModel
from seqcore.models.puid import PROJECT as PROJECT_KIND
from seqcore.models.puid import SAMPLE as SAMPLE_KIND
from seqcore.models.puid import is_puid
from seqcore.models.sample import ProjectSample
from seqcore.models.sample import Sample as SampleModel
from seqcore.models.user import User as UserModel
from seqcore.projects.namespaces import path_problem
from seqcore.security.fieldaccess import Caller


async def find_node(info: Any, gid: object) -> Any:
    """The object behind a global id, or an error that does not tell a hidden object from a
    missing one (as REST answers 404 for both)."""
    context = info.context
    type_name, pk = context.parse(gid, *sorted(context.node_types))
    node = context.node_types[type_name].get_node(info, pk)
    if inspect.isawaitable(node):
        node = await node
    if node is None:
        raise GraphQLError(f"{type_name} {gid} was not found or is hidden due to permissions",
                           extensions={"code": "not_found"})
    return node


class CoreQuery(graphene.ObjectType):
    current_user = graphene.Field(User, description="The caller.")
    node = graphene.Field(Node, id=graphene.ID(required=True),
                          description="Any object by global id.")
    nodes = graphene.NonNull(graphene.List(Node), ids=graphene.NonNull(
        graphene.List(graphene.NonNull(graphene.ID))),
        description="Objects by global id, in order; null (with an error) where not found.")
    samples = graphene.Field(connection_for(Sample), **connection_args(),
                             filter=SampleFilter(), order_by=SampleOrder(),
                             group_id=graphene.ID(),
                             description="Samples of every project the caller may read "
                                         "(`groupId`: of the projects in that group and "
                                         "below it).")
    projects = graphene.Field(connection_for(Project), **connection_args(),
                              filter=ProjectFilter(), order_by=ProjectOrder(),
                              group_id=graphene.ID(),
                              archived=graphene.Boolean(default_value=False),
                              description="Projects the caller may read (`groupId`: those in "
                                          "that group and below it, and those shared with "
                                          "it). Archived projects only with `archived: "
                                          "true`, which lists them alone (seqcore "
                                          "extension).")
    project = graphene.Field(Project, full_path=graphene.ID(), puid=graphene.ID(),
                             description="A project by `<namespace>/<path>` or PUID; null if "
                                         "there is none the caller may read.")
    sample = graphene.Field(Sample, puid=graphene.ID(required=True),
                            description="A sample by PUID; null if there is none the caller "
                                        "may read.")
    project_sample = graphene.Field(
        Sample, project_puid=graphene.ID(required=True), sample_puid=graphene.ID(),
        sample_name=graphene.String(),
        description="A sample of a project, by the project's PUID and the sample's PUID or "
                    "name; null if the caller may not read the project or it holds no such "
                    "sample.")
    is_puid = graphene.Boolean(required=True, id=graphene.ID(required=True),
                               description="Whether `id` has the shape of a PUID.")
    linelist_download = linelist_download_field()
    resolve_linelist_download = staticmethod(resolve_linelist_download)

    @staticmethod
    def resolve_current_user(root: Any, info: Any) -> UserModel | None:
        return info.context.db.get(UserModel, info.context.identity.user_id)

    @staticmethod
    async def resolve_node(root: Any, info: Any, id: str) -> Any:
        return await find_node(info, id)

    @staticmethod
    def resolve_nodes(root: Any, info: Any, ids: list[str]) -> list[Any]:
        # One awaitable per id: graphql-core reports a failed item at its own path and
        # leaves the others; the loaders fetch every id of one type in one statement.
        return [find_node(info, gid) for gid in ids]

    @staticmethod
    def resolve_is_puid(root: Any, info: Any, id: str) -> bool:
        return is_puid(id)

    @staticmethod
    def resolve_samples(root: Any, info: Any, filter: Any = None,
                        order_by: Any = None, group_id: str | None = None,
                        **page: Any) -> Any:
        conditions = sample_filter_conditions(filter, Caller.of(info.context.identity))
        query = select(SampleModel).where(*conditions, readable_sample(info.context.identity))
        if group_id is not None:
            projects = _group_project_ids(info, group_id)
            query = query.where(SampleModel.id.in_(select(ProjectSample.sample_id).where(
                ProjectSample.project_id.in_(projects))))
        ordering, value = sample_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @staticmethod
    def resolve_projects(root: Any, info: Any, filter: Any = None,
                         order_by: Any = None, group_id: str | None = None,
                         archived: bool | None = False, **page: Any) -> Any:
        query = select(ProjectModel).where(*project_filter_conditions(filter),
                                           readable_project(info.context.identity),
                                           ProjectModel.archived_at.is_not(None) if archived
                                           else ProjectModel.archived_at.is_(None))
        if group_id is not None:
            query = query.where(ProjectModel.id.in_(_group_project_ids(info, group_id)))
        ordering, value = project_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @staticmethod
    async def resolve_project(root: Any, info: Any, full_path: str | None = None,
                              puid: str | None = None) -> Any:
        if (full_path is None) == (puid is None):
            raise GraphQLError("Exactly one of fullPath and puid must be given.",
                               extensions={"code": "invalid_argument"})
        if puid is not None:
            return await project_by_puid(info, puid)
        namespace, _, path = full_path.rpartition("/")  # type: ignore[union-attr]
        if not namespace or path_problem(path) is not None:
            return None
        pk = info.context.db.scalar(select(ProjectModel.id).where(
            ProjectModel.namespace == namespace, ProjectModel.path == path))
        return None if pk is None else await info.context.loaders.project.load(pk)

    @staticmethod
    async def resolve_sample(root: Any, info: Any, puid: str) -> Any:
        if not is_puid(puid, SAMPLE_KIND):
            return None
        pk = info.context.db.scalar(select(SampleModel.id).where(SampleModel.puid == puid))
        return None if pk is None else await info.context.loaders.sample.load(pk)

    @staticmethod
    async def resolve_project_sample(root: Any, info: Any, project_puid: str,
                                     sample_puid: str | None = None,
                                     sample_name: str | None = None) -> Any:
        if (sample_puid is None) == (sample_name is None):
            raise GraphQLError("Exactly one of samplePuid and sampleName must be given.",
                               extensions={"code": "invalid_argument"})
        project = await project_by_puid(info, project_puid)
        if project is None:
            return None
        query = (select(SampleModel).join(ProjectSample,
                                          ProjectSample.sample_id == SampleModel.id)
                 .where(ProjectSample.project_id == project.id))
        if sample_puid is not None:
            query = query.where(SampleModel.puid == sample_puid)
        else:
            query = query.where(ProjectSample.sample_name == sample_name)
        # Whoever reads the project reads every sample it holds (seqcore.security.access).
        return info.context.db.scalar(query)


async def project_by_puid(info: Any, puid: str) -> Any:
    """The readable project with that PUID, or ``None``."""
    if not is_puid(puid, PROJECT_KIND):
        return None
    pk = info.context.db.scalar(select(ProjectModel.id).where(ProjectModel.puid == puid))
    return None if pk is None else await info.context.loaders.project.load(pk)


def _group_project_ids(info: Any, group_id: str) -> Any:
    """The projects in the group or below it, and those shared with it: a select of ids
    (empty when the caller may not read the group)."""
    _, pk = info.context.parse(group_id, "Group")
    readable = select(GroupModel.id).where(GroupModel.id == pk,
                                           readable_group(info.context.identity))
    below = select(GroupHierarchy.descendant_id).where(GroupHierarchy.ancestor_id.in_(readable))
    shared_groups = select(GroupHierarchy.descendant_id).join(
        GroupShare, GroupShare.shared_group_id == GroupHierarchy.ancestor_id).where(
        GroupShare.group_id.in_(readable))
    return select(ProjectModel.id).where(or_(
        ProjectModel.group_id.in_(below), ProjectModel.group_id.in_(shared_groups),
        ProjectModel.id.in_(select(GroupShare.project_id).where(
            GroupShare.group_id.in_(readable)))))
