"""``launchAnalysis``: the REST launch (``POST /api/analysisSubmissions/analysisType/{type}``)
with the same checks, answering problems in the payload."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.analysis.service import launch
from seqcore.graphql.analyses import AnalysisSubmission
from seqcore.graphql.mutations.base import Problems, UserError, problem, run
from seqcore.graphql.scalars import JSON
from seqcore.rest.errors import ApiError


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

    submission = graphene.Field(AnalysisSubmission)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, analysis_type: str,
                               sample_ids: list[str], **given: Any) -> Any:
        def work() -> dict[str, Any]:
            body: dict[str, Any] = {
                "samples": [info.context.parse(gid, "Sample")[1] for gid in sample_ids]}
            if given.get("project_ids"):
                body["projects"] = [info.context.parse(gid, "Project")[1]
                                    for gid in given["project_ids"]]
            for field, key in (("name", "name"), ("parameters", "parameters"),
                               ("write_results_to_samples", "writeResultsToSamples"),
                               ("priority", "priority")):
                if given.get(field) is not None:
                    body[key] = given[field]
            try:
                submission = launch(info.context.request, analysis_type, body)
            except ApiError as err:
                payload = err.payload
                if set(payload) <= {"message", "acceptable-properties"}:
                    raise problem(str(payload.get("message")), "analysisType") from None
                raise Problems({"message": message, "path": field.split(".")}
                               for field, messages in payload.items()
                               for message in messages) from None
            return {"submission": submission}

        return run(info, cls, work)
