"""The core's ``Query`` fields. Plugins add theirs through ``register_graphql_query_fields``."""

from __future__ import annotations

import inspect
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import select

from seqcore.fieldaccess import Caller
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
from seqcore.graphql.loaders import readable_project, readable_sample
from seqcore.graphql.types import Node, Project, Sample, User
from seqcore.models.project import Project as ProjectModel
from seqcore.models.sample import Sample as SampleModel
from seqcore.models.user import User as UserModel
from seqcore.namespaces import path_problem


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
                             description="Samples of every project the caller may read.")
    projects = graphene.Field(connection_for(Project), **connection_args(),
                              filter=ProjectFilter(), order_by=ProjectOrder(),
                              description="Projects the caller may read.")
    linelist_download = linelist_download_field()
    resolve_linelist_download = staticmethod(resolve_linelist_download)
    project = graphene.Field(Project, full_path=graphene.ID(required=True),
                             description="A project by `<namespace>/<path>`; null if there "
                                         "is none the caller may read.")

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
    def resolve_samples(root: Any, info: Any, filter: Any = None,
                        order_by: Any = None, **page: Any) -> Any:
        conditions = sample_filter_conditions(filter, Caller.of(info.context.identity))
        query = select(SampleModel).where(*conditions, readable_sample(info.context.identity))
        ordering, value = sample_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @staticmethod
    def resolve_projects(root: Any, info: Any, filter: Any = None,
                         order_by: Any = None, **page: Any) -> Any:
        query = select(ProjectModel).where(*project_filter_conditions(filter),
                                           readable_project(info.context.identity))
        ordering, value = project_ordering(order_by)
        return paginate(info.context.db, query, ordering, value, **page)

    @staticmethod
    async def resolve_project(root: Any, info: Any, full_path: str) -> Any:
        namespace, _, path = full_path.partition("/")
        if not namespace or path_problem(path) is not None:
            return None
        pk = info.context.db.scalar(select(ProjectModel.id).where(
            ProjectModel.namespace == namespace, ProjectModel.path == path))
        return None if pk is None else await info.context.loaders.project.load(pk)
