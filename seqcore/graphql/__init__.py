"""The GraphQL API at ``/api/graphql`` (graphene 3), in IRIDA Next's dialect.

* :mod:`seqcore.graphql.schema` assembles the schema from the core's and plugins'
  contributions, once, at start-up;
* :mod:`seqcore.graphql.types`, :mod:`~seqcore.graphql.queries` and
  :mod:`~seqcore.graphql.mutations` are the core's contributions;
* :mod:`seqcore.graphql.loaders` batches database reads so a page costs a fixed number of
  statements; :mod:`seqcore.graphql.limits` refuses too deep or too costly queries;
* :mod:`seqcore.graphql.view` is the HTTP endpoint and its authentication (a personal access
  token over HTTP Basic, or the signed-in session).

``docs/graphql.md`` describes the schema, authentication and limits.
"""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    from seqcore.graphql.analyses import AnalysisSubmission
    from seqcore.graphql.exports import EXPORT_TYPES, ExportQuery
    from seqcore.graphql.groupqueries import GroupQuery
    from seqcore.graphql.groups import GROUP_TYPES
    from seqcore.graphql.ncbi import NCBI_TYPES
    from seqcore.graphql.pipelines import Pipeline, PipelineQuery
    from seqcore.graphql.queries import CoreQuery
    from seqcore.graphql.types import CORE_TYPES
    from seqcore.graphql.workflows import (
        SamplesWorkflowExecution,
        WorkflowExecution,
        WorkflowQuery,
    )

    config.include("seqcore.graphql.schema")
    # The core contributes like a plugin does, so a plugin claiming a core name conflicts.
    core_types: list[type[Any]] = [*CORE_TYPES, *GROUP_TYPES, AnalysisSubmission, *NCBI_TYPES,
                                   *EXPORT_TYPES, Pipeline, WorkflowExecution,
                                   SamplesWorkflowExecution]
    for graphene_type in core_types:
        sub = config.with_package(config.package)
        sub.info = f"seqcore core: GraphQL type {graphene_type._meta.name!r}"
        sub.add_graphql_type(graphene_type)
    sub = config.with_package(config.package)
    sub.info = "seqcore core: GraphQL query fields of CoreQuery"
    sub.add_graphql_query_fields(CoreQuery)
    sub = config.with_package(config.package)
    sub.info = "seqcore core: GraphQL query fields of GroupQuery"
    sub.add_graphql_query_fields(GroupQuery)
    sub = config.with_package(config.package)
    sub.info = "seqcore core: GraphQL query fields of PipelineQuery"
    sub.add_graphql_query_fields(PipelineQuery)
    sub = config.with_package(config.package)
    sub.info = "seqcore core: GraphQL query fields of ExportQuery"
    sub.add_graphql_query_fields(ExportQuery)
    sub = config.with_package(config.package)
    sub.info = "seqcore core: GraphQL query fields of WorkflowQuery"
    sub.add_graphql_query_fields(WorkflowQuery)
    config.include("seqcore.graphql.view")
