"""``submitWorkflowExecution``: IRIDA Next's launch, through the domain's launch operation.

The pipeline (``pipelineId``, ``workflowVersion``) names an analysis type; each samplesheet
row names a sample and, in its ``samplesheet_params``, the attachments to analyse
(``fastq_1``/``fastq_2`` as Attachment ids): those attachments' sequencing objects are the
inputs, and a row naming none analyses the sample's latest data. ``workflowParams`` are the
type's parameters; ``updateSamples`` writes the results back. ``projectId`` launches in a
project's namespace, ``groupId`` in a group's: every sample must then be in a project of the
group or its subgroups that the caller reads. Problems are payload errors under
``workflow_execution``.
"""

from __future__ import annotations

from typing import Any

import graphene
from graphql import GraphQLError

from seqcore.analysis.launching import LaunchRequest
from seqcore.analysis.service import launch
from seqcore.errors.domain import DomainError, Invalid
from seqcore.graphql.ids import GID
from seqcore.graphql.mutations.base import (
    Problems,
    UserError,
    find_project,
    problem,
    run,
)
from seqcore.graphql.mutations.groups import readable_group
from seqcore.graphql.pipelines import pipeline_views
from seqcore.graphql.scalars import JSON
from seqcore.graphql.workflows import Execution, WorkflowExecution
from seqcore.models.attachment import Attachment as AttachmentModel
from seqcore.security.permissions import Permission


def _analysis_type(info: Any, pipeline_id: str, version: str) -> str:
    for view in pipeline_views(info.context.request.registry):
        if view.pipeline_id == pipeline_id and view.version == version and view.executable:
            return view.analysis_type
    raise problem(f"Pipeline {pipeline_id} {version} was not found or cannot be run.",
                  "workflow_execution", "metadata")


def _rows(info: Any, rows: list[Any]) -> tuple[list[int], list[int]]:
    """The sequencing objects (attachments named in the samplesheets) and the samples
    (rows naming none) to analyse."""
    object_ids: list[int] = []
    sample_ids: list[int] = []
    errors = []
    for index, row in enumerate(rows):
        where = ["samplesWorkflowExecutionsAttributes", str(index)]
        if not isinstance(row, dict) or not isinstance(row.get("sample_id"), str):
            errors.append({"message": "Each row needs a sample_id (a Sample id) and "
                                      "samplesheet_params.", "path": where})
            continue
        _, sample_id = info.context.parse(row["sample_id"], "Sample")
        params = row.get("samplesheet_params") or {}
        if not isinstance(params, dict):
            errors.append({"message": "samplesheet_params must be an object.",
                           "path": [*where, "samplesheet_params"]})
            continue
        named = []
        for key, value in params.items():
            if isinstance(value, str) and GID.fullmatch(value) and "/Attachment/" in value:
                _, pk = info.context.parse(value, "Attachment")
                attachment = info.context.db.get(AttachmentModel, pk)
                if attachment is None or attachment.sample_id != sample_id:
                    errors.append({"message": f"{value} is not an attachment of the sample.",
                                   "path": [*where, "samplesheet_params", key]})
                elif attachment.object_id is None:
                    errors.append({"message": f"{value} is not sequencing data seqcore can "
                                              "analyse.",
                                   "path": [*where, "samplesheet_params", key]})
                else:
                    named.append(attachment.object_id)
        if named:
            object_ids.extend(o for o in dict.fromkeys(named) if o not in object_ids)
        else:
            sample_ids.append(sample_id)
    if errors:
        raise Problems(errors)
    return object_ids, sample_ids


class SubmitWorkflowExecution(graphene.relay.ClientIDMutation):
    """Create a new workflow execution: launch the pipeline's analysis type on the samples
    (and the attachments their samplesheet rows name) through the domain's launch."""

    class Input:
        email_notification = graphene.Boolean(default_value=False, description=(
            "E-mail the submitter when the execution ends (when the server sends mail and "
            "the account did not turn analysis_finished notifications off)."))
        name = graphene.String()
        pipeline_id = graphene.String(required=True)
        project_id = graphene.ID()
        group_id = graphene.ID()
        samples_workflow_executions_attributes = graphene.List(graphene.NonNull(JSON),
                                                               required=True)
        update_samples = graphene.Boolean(default_value=False)
        workflow_params = graphene.Field(JSON, required=True)
        workflow_version = graphene.String(required=True)

    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))
    workflow_execution = graphene.Field(WorkflowExecution)

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, pipeline_id: str,
                               workflow_version: str, workflow_params: Any,
                               samples_workflow_executions_attributes: list[Any],
                               **given: Any) -> Any:
        if (given.get("project_id") is None) == (given.get("group_id") is None):
            raise GraphQLError("One of projectId or groupId must be given.",
                               extensions={"code": "invalid"})

        def work() -> dict[str, Any]:
            project_ids: tuple[int, ...] = ()
            group_id = None
            if given.get("group_id") is not None:
                group_id = readable_group(info, given["group_id"], None,
                                          "workflow_execution", "groupId").group.id
            else:
                project_ids = (find_project(info, given["project_id"], "project",
                                            Permission.PROJECT_READ, "read").project.id,)
            analysis_type = _analysis_type(info, pipeline_id, workflow_version)
            object_ids, sample_ids = _rows(info, samples_workflow_executions_attributes)
            spec = LaunchRequest(
                analysis_type=analysis_type, name=given.get("name"),
                object_ids=tuple(object_ids), sample_ids=tuple(sample_ids),
                project_ids=project_ids, group_id=group_id, parameters=workflow_params,
                write_back=bool(given.get("update_samples")),
                email_notification=bool(given.get("email_notification")))
            try:
                submission = launch(info.context.request, spec)
            except Invalid as err:
                if err.has_message or not err.problems:
                    raise problem(err.message, "workflow_execution") from None
                raise Problems({"message": message,
                                "path": ["workflow_execution", *key.split(".")]}
                               for key, messages in err.problems.items()
                               for message in messages) from None
            except DomainError as err:
                raise problem(err.message, "workflow_execution") from None
            return {"workflow_execution": Execution(submission)}

        return run(info, cls, work)
