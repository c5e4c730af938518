"""Data exports in GraphQL: the ``DataExport`` type (IRIDA Next's model names: ``status``,
``exportParameters``, ``manifest``, ``expiresAt``; seqcore's ``state`` beside them),
``Query.dataExport(id:)``, ``Query.dataExports`` and ``Project.dataExports``, for whoever
reads the export in REST (its requester while a member, administrators);
``createDataExport`` and ``deleteDataExport`` are in :mod:`seqcore.graphql.mutations.exports`."""

from __future__ import annotations

from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import select

from seqcore.graphql.connections import Ordering, connection_args, connection_for, paginate
from seqcore.graphql.nodes import Node, _gid
from seqcore.graphql.scalars import JSON
from seqcore.models.export import DataExport as ExportModel
from seqcore.models.export import ExportState
from seqcore.security.access import EXPORT
from seqcore.security.permissions import Permission

#: IRIDA Next's ``status`` of an export, by seqcore's state.
STATUS = {ExportState.QUEUED.value: "processing", ExportState.RUNNING.value: "processing",
          ExportState.READY.value: "ready", ExportState.ERROR.value: "error",
          ExportState.EXPIRED.value: "expired"}


class DataExport(graphene.ObjectType):
    """A bundle (zip) of a project's samples, files, line list and analysis outputs,
    prepared by the worker for the account that asked (docs/exports.md)."""

    class Meta:
        interfaces = (Node,)
        possible_types = (ExportModel,)

    name = graphene.String()
    status = graphene.String(required=True, description="IRIDA Next's: processing, ready "
                                                        "(and error, expired).")
    state = graphene.String(required=True, description="QUEUED, RUNNING, READY, ERROR or "
                                                       "EXPIRED.")
    export_parameters = graphene.Field(JSON, required=True,
                                       description="What was asked, as checked: samples, "
                                                   "fileKinds, analyses, analysisOutputs, "
                                                   "metadataFields.")
    manifest = graphene.Field(JSON, description="Every entry's path, size and sha256, once "
                                                "ready.")
    size = graphene.Float(description="Bytes of the zip, once ready.")
    error = graphene.String()
    download_url = graphene.String(description="Where the zip is downloaded (REST, with "
                                               "ranges), while ready.")
    project = graphene.Field("seqcore.graphql.types.Project")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    expires_at = graphene.DateTime()
    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_status(export: ExportModel, info: Any) -> str:
        return STATUS.get(export.state, export.state.lower())

    @staticmethod
    def resolve_export_parameters(export: ExportModel, info: Any) -> dict[str, Any]:
        return dict(export.selection or {})

    @staticmethod
    def resolve_download_url(export: ExportModel, info: Any) -> str | None:
        if export.state != ExportState.READY.value:
            return None
        request = info.context.request
        return f"{request.application_url}/api/exports/{export.id}/download"

    @staticmethod
    def resolve_project(export: ExportModel, info: Any) -> Any:
        return info.context.loaders.project.load(export.project_id)

    @staticmethod
    def resolve_created_at(export: ExportModel, info: Any) -> Any:
        return export.created

    @staticmethod
    def resolve_updated_at(export: ExportModel, info: Any) -> Any:
        return export.modified or export.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> ExportModel | None:
        request = info.context.request
        try:
            context = request.root["api"]["exports"][str(pk)]
        except KeyError:
            return None
        if not request.has_permission(Permission.EXPORT_READ, context):
            return None
        return context.export


def readable_exports(info: Any, project_id: int | None = None) -> Any:
    """The exports the caller reads (of one project), from :data:`seqcore.security.access.EXPORT`'s
    SQL condition, as the item's ACL says."""
    identity = info.context.identity
    query = select(ExportModel).where(EXPORT.readable(identity.user_id, identity.role))
    if project_id is not None:
        query = query.where(ExportModel.project_id == project_id)
    return query


def _page(info: Any, query: Any, **page: Any) -> Any:
    order = Ordering(ExportModel.created, ExportModel.id, True, temporal=True)
    return paginate(info.context.db, query, order, lambda e: e.created, **page)


def project_data_exports(project: Any, info: Any, **page: Any) -> Any:
    """``Project.dataExports``: the project's exports the caller may read (its own;
    administrators: all), newest first."""
    return _page(info, readable_exports(info, project.id), **page)


class ExportQuery(graphene.ObjectType):
    """``dataExport(id:)`` and ``dataExports``."""

    data_export = graphene.Field(DataExport, id=graphene.ID(required=True),
                                 description="One data export by global id.")
    data_exports = graphene.Field(lambda: connection_for(DataExport), **connection_args(),
                                  description="The data exports the caller may read (its "
                                              "own), newest first.")

    @staticmethod
    def resolve_data_export(root: Any, info: Any, id: str) -> Any:
        _, pk = info.context.parse(id, "DataExport")
        export = DataExport.get_node(info, pk)
        if export is None:
            raise GraphQLError(f"DataExport {id} was not found or is hidden due to "
                               "permissions", extensions={"code": "not_found"})
        return export

    @staticmethod
    def resolve_data_exports(root: Any, info: Any, **page: Any) -> Any:
        return _page(info, readable_exports(info), **page)


EXPORT_TYPES = [DataExport]
