"""``createDataExport`` and ``deleteDataExport``: REST's ``POST /api/projects/{id}/exports``
and ``DELETE /api/exports/{id}``, with the same checks and messages, answering problems in
the payload at their input paths."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.analysis.launching import Actor
from seqcore.errors.domain import DomainError
from seqcore.exports.contents import export_kinds
from seqcore.exports.jobs import delete_export
from seqcore.exports.selection import create_export
from seqcore.graphql.exports import DataExport
from seqcore.graphql.mutations.base import (
    UserError,
    api_context,
    find_project,
    problem,
    problems_from,
    run,
)
from seqcore.security.permissions import Permission

# GraphQL argument -> the body key the domain reads (REST's).
_KEYS = {"name": "name", "file_kinds": "fileKinds", "analysis_outputs": "analysisOutputs",
         "metadata_fields": "metadataFields"}


class CreateDataExport(graphene.relay.ClientIDMutation):
    """Export samples, their files, a line list and analysis outputs of a project (its
    members, owners and administrators): the selection is checked first and its problems
    come back in ``errors`` with nothing stored; the worker then builds the zip."""

    class Input:
        project_id = graphene.ID(required=True)
        name = graphene.String()
        sample_ids = graphene.List(graphene.NonNull(graphene.ID),
                                   description="Samples of the project (global ids).")
        file_kinds = graphene.List(graphene.NonNull(graphene.String),
                                   description="Which files of the samples (pairs, "
                                               "unpaired, fast5, assemblies...); default "
                                               "all.")
        analysis_ids = graphene.List(graphene.NonNull(graphene.ID),
                                     description="Completed analysis submissions of the "
                                                 "project (global ids).")
        analysis_outputs = graphene.List(graphene.NonNull(graphene.String),
                                         description="Only these output keys; default "
                                                     "all.")
        metadata_fields = graphene.List(graphene.NonNull(graphene.String),
                                        description="The line list's metadata columns, in "
                                                    "order; default every field.")

    data_export = graphene.Field(DataExport)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str,
                               **given: Any) -> Any:
        def work() -> dict[str, Any]:
            context = find_project(info, project_id, "projectId", Permission.EXPORT_CREATE,
                                   "export data of")
            body: dict[str, Any] = {_KEYS[key]: value for key, value in given.items()
                                    if key in _KEYS and value is not None}
            parse = info.context.parse
            if given.get("sample_ids") is not None:
                body["samples"] = [parse(gid, "Sample")[1] for gid in given["sample_ids"]]
            if given.get("analysis_ids") is not None:
                body["analyses"] = [parse(gid, "AnalysisSubmission")[1]
                                    for gid in given["analysis_ids"]]
            request = info.context.request
            try:
                export = create_export(info.context.db, Actor(request), context.project,
                                       body, export_kinds(request.registry))
            except DomainError as err:
                raise problems_from(err, (), {"samples": "sampleIds",
                                              "analyses": "analysisIds"}) from None
            return {"data_export": export}

        return run(info, cls, work)


class DeleteDataExport(graphene.relay.ClientIDMutation):
    """Delete a data export and its zip (its requester, administrators); one being built is
    cancelled."""

    class Input:
        id = graphene.ID(required=True)

    deleted_id = graphene.ID()
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, id: str, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            _, pk = info.context.parse(id, "DataExport")
            request = info.context.request
            context = api_context(info, "exports", pk)
            if context is None or not request.has_permission(Permission.EXPORT_DELETE,
                                                             context):
                raise problem("Data export not found by provided ID", "id")
            delete_export(info.context.db, request.storage, request.tm, context.export)
            return {"deleted_id": id}

        return run(info, cls, work)


__all__ = ["CreateDataExport", "DeleteDataExport"]
