"""``launchAnalysis``: the launch REST offers at ``POST
/api/analysisSubmissions/analysisType/{type}``, with the same checks, answering problems in
the payload; ``cancelAnalysis``: REST's ``POST /api/analysisSubmissions/{id}/cancel``."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.analysis.cancelling import cancel_submission
from seqcore.analysis.launching import LaunchRequest
from seqcore.analysis.registry import analysis_registry
from seqcore.analysis.service import launch
from seqcore.errors.domain import DomainError, Invalid
from seqcore.graphql.analyses import AnalysisSubmission
from seqcore.graphql.mutations.base import Problems, UserError, api_context, problem, run
from seqcore.graphql.scalars import JSON
from seqcore.security.permissions import Permission


def _paths(err: Invalid, launch_fields: set[str]) -> Problems:
    """The launch's problems as payload errors: ``parameters.min_length`` is the path
    ``["parameters", "min_length"]``; a type's own launch field sits under
    ``launchFields``."""
    return Problems({"message": message,
                     "path": (["launchFields", *key.split(".")]
                              if key.split(".")[0] in launch_fields else key.split("."))}
                    for key, messages in err.problems.items() for message in messages)


class LaunchAnalysis(graphene.relay.ClientIDMutation):
    """Launch an analysis on samples the caller can read."""

    class Input:
        analysis_type = graphene.String(required=True)
        name = graphene.String()
        sample_ids = graphene.List(graphene.NonNull(graphene.ID), required=True)
        parameters = graphene.Field(JSON)
        project_ids = graphene.List(graphene.NonNull(graphene.ID))
        write_results_to_samples = graphene.Boolean()
        priority = graphene.String()
        launch_fields = graphene.Field(
            JSON, description="The extra launch fields the analysis type declares, by name.")

    submission = graphene.Field(AnalysisSubmission)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, analysis_type: str,
                               sample_ids: list[str], **given: Any) -> Any:
        def work() -> dict[str, Any]:
            extra = given.get("launch_fields") or {}
            if not isinstance(extra, dict):
                raise problem("'launchFields' must be an object of name: value.",
                              "launchFields")
            spec = LaunchRequest(
                analysis_type=analysis_type, name=given.get("name"),
                sample_ids=tuple(info.context.parse(gid, "Sample")[1] for gid in sample_ids),
                project_ids=tuple(info.context.parse(gid, "Project")[1]
                                  for gid in given.get("project_ids") or ()),
                parameters=given.get("parameters"),
                write_back=bool(given.get("write_results_to_samples")),
                priority=given["priority"] if given.get("priority") is not None else "MEDIUM",
                extra=extra)
            try:
                submission = launch(info.context.request, spec)
            except Invalid as err:
                if err.has_message or not err.problems:
                    path = "launchFields" if "acceptable-properties" in err.extra else \
                        "analysisType"
                    raise problem(err.message, path) from None
                declared = analysis_registry(info.context.request.registry).type(analysis_type)
                raise _paths(err, set(declared.launch_fields if declared else ())) from None
            except DomainError as err:  # no such type, not allowed, not ready
                raise problem(err.message, "analysisType") from None
            return {"submission": submission}

        return run(info, cls, work)


class CancelAnalysis(graphene.relay.ClientIDMutation):
    """Cancel an analysis submission: it ends in ERROR ("Cancelled by <user> while <state>.")
    and its job is stopped. Whoever may delete it may cancel it (the submitter,
    administrators)."""

    class Input:
        id = graphene.ID(required=True, description="The AnalysisSubmission's id.")

    submission = graphene.Field(AnalysisSubmission)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, id: str, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            _, pk = info.context.parse(id, "AnalysisSubmission")
            request = info.context.request
            context = api_context(info, "analysisSubmissions", pk)
            if context is None or not request.has_permission(Permission.SUBMISSION_READ,
                                                             context):
                raise problem("Analysis submission not found by provided ID", "id")
            if not request.has_permission(Permission.SUBMISSION_DELETE, context):
                raise problem("You are not authorized to cancel analysis submission "
                              f"{context.submission.name}.", "id")
            identity = request.identity
            try:
                submission = cancel_submission(
                    info.context.db, request.registry, context.submission,
                    identity.user_id if identity else None, request.tm, request)
            except DomainError as err:
                raise problem(err.message, "id") from None
            return {"submission": submission}

        return run(info, cls, work)
