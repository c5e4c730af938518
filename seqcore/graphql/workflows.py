"""Workflow executions in GraphQL, in IRIDA Next's shape: an analysis submission seen as a
``WorkflowExecution`` (same row, its own gid type), the ``SamplesWorkflowExecution`` of each
sample it analyses, the ``workflowExecutions`` listing (the caller's own, oldest first, as
IRIDA Next lists them).

``submitWorkflowExecution`` is in :mod:`seqcore.graphql.mutations.workflows`. States are
IRIDA Next's, mapped from seqcore's (:data:`STATES`, ``docs/graphql.md``); the
outputs are attachments of the execution (``attachments``, a seqcore field), and with
``updateSamples`` the analysis type's write-back writes its results to the samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import graphene
from sqlalchemy import select

from seqcore.files.attachments import Owner
from seqcore.graphql.attachments import Attachment, attachment_args, owner_attachments
from seqcore.graphql.connections import Ordering, connection_for, paginate
from seqcore.graphql.nodes import Node
from seqcore.graphql.pipelines import pipeline_views
from seqcore.graphql.scalars import JSON
from seqcore.graphql.types import Project, Sample, User
from seqcore.models.analysis import AnalysisState as S
from seqcore.models.analysis import AnalysisSubmission, SubmissionInput
from seqcore.models.sequencing import SequencingObject
from seqcore.models.user import User as UserModel
from seqcore.security.permissions import Permission

# seqcore's states (IRIDA's) as IRIDA Next's workflow execution states.
STATES = {
    S.NEW: "initial", S.DOWNLOADING: "initial", S.FINISHED_DOWNLOADING: "initial",
    S.PREPARING: "initial", S.PREPARED: "prepared", S.SUBMITTING: "submitted",
    S.RUNNING: "running", S.FINISHED_RUNNING: "completing", S.COMPLETING: "completing",
    S.TRANSFERRED: "completing", S.POST_PROCESSING: "completing", S.COMPLETED: "completed",
    S.ERROR: "error",
}
CANCELLED = "Cancelled by "  # seqcore.analysis.cancelling's reason: IRIDA Next's "canceled"


def execution_state(submission: AnalysisSubmission) -> str:
    if submission.state == S.ERROR and (submission.error or "").startswith(CANCELLED):
        return "canceled"
    return STATES.get(S(submission.state), "initial")


@dataclass(frozen=True)
class Execution:
    """A submission seen as a workflow execution (so ``node`` tells the two types apart)."""

    submission: AnalysisSubmission

    @property
    def id(self) -> int:
        return self.submission.id


@dataclass(frozen=True)
class SampleExecution:
    """One sample of a workflow execution: the submission input that names it."""

    id: int
    sample_id: int
    submission: AnalysisSubmission


def _pipeline(info: Any, submission: AnalysisSubmission) -> Any:
    return next((v for v in pipeline_views(info.context.request.registry)
                 if v.analysis_type == submission.analysis_type), None)


def _readable(info: Any, submission_id: int) -> AnalysisSubmission | None:
    request = info.context.request
    try:
        context = request.root["api"]["analysisSubmissions"][str(submission_id)]
    except KeyError:
        return None
    if not request.has_permission(Permission.SUBMISSION_READ, context):
        return None
    return context.submission


class SamplesWorkflowExecution(graphene.ObjectType):
    """A sample of a workflow execution."""

    class Meta:
        interfaces = (Node,)
        possible_types = (SampleExecution,)

    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    sample = graphene.Field(Sample)
    workflow_execution = graphene.Field(lambda: WorkflowExecution)

    @staticmethod
    def resolve_id(row: SampleExecution, info: Any) -> str:
        return info.context.gid("SamplesWorkflowExecution", row.id)

    @staticmethod
    def resolve_created_at(row: SampleExecution, info: Any) -> Any:
        return row.submission.created

    @staticmethod
    def resolve_updated_at(row: SampleExecution, info: Any) -> Any:
        return row.submission.modified or row.submission.created

    @staticmethod
    def resolve_sample(row: SampleExecution, info: Any) -> Any:
        return info.context.loaders.sample.load(row.sample_id)

    @staticmethod
    def resolve_workflow_execution(row: SampleExecution, info: Any) -> Execution:
        return Execution(row.submission)

    @classmethod
    def get_node(cls, info: Any, pk: int) -> SampleExecution | None:
        found = info.context.db.execute(
            select(SubmissionInput.submission_id, SequencingObject.sample_id)
            .join(SequencingObject, SequencingObject.id == SubmissionInput.object_id)
            .where(SubmissionInput.id == pk)).first()
        submission = _readable(info, found[0]) if found else None
        return SampleExecution(pk, found[1], submission) if submission else None


def sample_executions(db: Any, submission: AnalysisSubmission) -> list[SampleExecution]:
    rows = db.execute(select(SubmissionInput.id, SequencingObject.sample_id)
                      .join(SequencingObject, SequencingObject.id == SubmissionInput.object_id)
                      .where(SubmissionInput.submission_id == submission.id)
                      .order_by(SubmissionInput.id))
    seen: dict[int, SampleExecution] = {}
    for input_id, sample_id in rows:
        seen.setdefault(sample_id, SampleExecution(input_id, sample_id, submission))
    return list(seen.values())


def _group_type() -> type:
    from seqcore.graphql.groups import Group

    return Group


class WorkflowExecution(graphene.ObjectType):
    """An analysis submission, as IRIDA Next describes a workflow execution."""

    class Meta:
        interfaces = (Node,)
        possible_types = (Execution,)

    cleaned = graphene.Boolean(required=True)
    http_error_code = graphene.Int()
    metadata = graphene.Field(JSON, required=True,
                              keys=graphene.List(graphene.NonNull(graphene.String)),
                              description="The pipeline: {pipeline_id, workflow_version}.")
    name = graphene.String()
    group = graphene.Field(
        lambda: _group_type(),
        description="Group, if the workflow belongs to a group namespace (launched with "
                    "groupId); null for a project's execution, even when the project is in a "
                    "group, as IRIDA Next answers.")
    project = graphene.Field(Project, description="The project it was launched in; null for "
                                                  "a group's execution.")
    run_id = graphene.String()
    samples_workflow_executions = graphene.List(graphene.NonNull(SamplesWorkflowExecution))
    state = graphene.String(description="IRIDA Next's state (docs/graphql.md maps seqcore's).")
    stderr_url = graphene.String()
    stdout_url = graphene.String()
    submitter = graphene.Field(
        User, description="Who launched it; null for an automated execution, which seqcore "
                          "launches itself on upload under no account (IRIDA Next: `User!`, "
                          "its project's automation bot).")
    submitter_id = graphene.String()
    tags = graphene.Field(JSON)
    workflow_engine = graphene.String()
    workflow_engine_parameters = graphene.Field(JSON)
    workflow_engine_version = graphene.String()
    workflow_params = graphene.Field(JSON)
    workflow_type = graphene.String()
    workflow_type_version = graphene.String()
    workflow_url = graphene.String()
    update_samples = graphene.Boolean(required=True)
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    attachments = graphene.Field(connection_for(Attachment), **attachment_args(),
                                 description="seqcore: the outputs, once collected.")
    analysis_type = graphene.String(required=True, description="seqcore: its analysis type.")
    error = graphene.String(description="seqcore: why it failed.")

    @staticmethod
    def resolve_id(execution: Execution, info: Any) -> str:
        return info.context.gid("WorkflowExecution", execution.id)

    @staticmethod
    def resolve_cleaned(execution: Execution, info: Any) -> bool:
        return execution.submission.cleaned_state == "CLEANED"

    @staticmethod
    def resolve_metadata(execution: Execution, info: Any,
                         keys: list[str] | None = None) -> dict[str, Any]:
        view = _pipeline(info, execution.submission)
        metadata = {"pipeline_id": view.pipeline_id if view else
                    execution.submission.analysis_type,
                    "workflow_version": view.version if view else None}
        return metadata if keys is None else {k: metadata[k] for k in keys if k in metadata}

    @staticmethod
    def resolve_name(execution: Execution, info: Any) -> str:
        return execution.submission.name

    @staticmethod
    def resolve_group(execution: Execution, info: Any) -> Any:
        group_id = execution.submission.group_id
        return None if group_id is None else info.context.loaders.group.load(group_id)

    @staticmethod
    def resolve_project(execution: Execution, info: Any) -> Any:
        if execution.submission.group_id is not None:
            return None
        projects = execution.submission.projects
        return info.context.loaders.project.load(projects[0].project_id) if projects else None

    @staticmethod
    def resolve_run_id(execution: Execution, info: Any) -> str | None:
        return execution.submission.remote_workflow_id

    @staticmethod
    def resolve_samples_workflow_executions(execution: Execution, info: Any) -> list[Any]:
        return sample_executions(info.context.db, execution.submission)

    @staticmethod
    def resolve_state(execution: Execution, info: Any) -> str:
        return execution_state(execution.submission)

    @staticmethod
    def resolve_submitter(execution: Execution, info: Any) -> Any:
        sid = execution.submission.submitter_id
        return None if sid is None else info.context.db.get(UserModel, sid)

    @staticmethod
    def resolve_submitter_id(execution: Execution, info: Any) -> str | None:
        sid = execution.submission.submitter_id
        return None if sid is None else info.context.gid("User", sid)

    @staticmethod
    def resolve_tags(execution: Execution, info: Any) -> dict[str, Any]:
        return {}

    @staticmethod
    def resolve_workflow_engine(execution: Execution, info: Any) -> str:
        return execution.submission.executor or "seqcore"

    @staticmethod
    def resolve_workflow_params(execution: Execution, info: Any) -> dict[str, Any]:
        return dict(execution.submission.parameters or {})

    @staticmethod
    def resolve_workflow_type(execution: Execution, info: Any) -> str:
        return execution.submission.analysis_type

    @staticmethod
    def resolve_workflow_type_version(execution: Execution, info: Any) -> str | None:
        view = _pipeline(info, execution.submission)
        return view.version if view else None

    @staticmethod
    def resolve_workflow_url(execution: Execution, info: Any) -> str:
        return execution.submission.workflow_id

    @staticmethod
    def resolve_update_samples(execution: Execution, info: Any) -> bool:
        return bool(execution.submission.update_samples)

    @staticmethod
    def resolve_created_at(execution: Execution, info: Any) -> Any:
        return execution.submission.created

    @staticmethod
    def resolve_updated_at(execution: Execution, info: Any) -> Any:
        return execution.submission.modified or execution.submission.created

    @staticmethod
    def resolve_attachments(execution: Execution, info: Any, **arguments: Any) -> Any:
        return owner_attachments(info, Owner("submission", execution.id), **arguments)

    @staticmethod
    def resolve_analysis_type(execution: Execution, info: Any) -> str:
        return execution.submission.analysis_type

    @staticmethod
    def resolve_error(execution: Execution, info: Any) -> str | None:
        return execution.submission.error

    @classmethod
    def get_node(cls, info: Any, pk: int) -> Execution | None:
        submission = _readable(info, pk)
        return Execution(submission) if submission is not None else None


class WorkflowQuery(graphene.ObjectType):
    workflow_executions = graphene.Field(
        connection_for(WorkflowExecution), first=graphene.Int(), last=graphene.Int(),
        after=graphene.String(), before=graphene.String(),
        description="The caller's workflow executions, oldest first.")
    workflow_execution = graphene.Field(
        WorkflowExecution, id=graphene.ID(required=True),
        description="seqcore: one workflow execution by id; null if the caller may not "
                    "read it.")

    @staticmethod
    def resolve_workflow_executions(root: Any, info: Any, **page: Any) -> Any:
        query = select(AnalysisSubmission).where(
            AnalysisSubmission.submitter_id == info.context.identity.user_id)
        order = Ordering(AnalysisSubmission.created, AnalysisSubmission.id, temporal=True)
        found = paginate(info.context.db, query, order, lambda s: s.created, **page)
        found.items = [Execution(s) for s in found.items]
        return found

    @staticmethod
    def resolve_workflow_execution(root: Any, info: Any, id: str) -> Execution | None:
        _, pk = info.context.parse(id, "WorkflowExecution")
        submission = _readable(info, pk)
        return Execution(submission) if submission is not None else None
