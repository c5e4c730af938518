"""Analysis submissions in GraphQL: the ``AnalysisSubmission`` type (reachable through
``node(id:)`` for whoever may read it, as in REST)."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.graphql.scalars import JSON
from seqcore.graphql.types import Node, _gid
from seqcore.models.analysis import AnalysisSubmission as SubmissionModel
from seqcore.security.permissions import Permission


class AnalysisSubmission(graphene.ObjectType):
    """An analysis submission: what ran, on what, and where it stands."""

    class Meta:
        interfaces = (Node,)
        possible_types = (SubmissionModel,)

    name = graphene.String(required=True)
    analysis_type = graphene.String(required=True)
    state = graphene.String(required=True)
    parameters = graphene.Field(JSON, description="Every parameter, as strings.")
    error = graphene.String()
    created_at = graphene.DateTime()
    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_state(submission: SubmissionModel, info: Any) -> str:
        return submission.state

    @staticmethod
    def resolve_parameters(submission: SubmissionModel, info: Any) -> dict[str, str]:
        return dict(submission.parameters or {})

    @staticmethod
    def resolve_created_at(submission: SubmissionModel, info: Any) -> Any:
        return submission.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> SubmissionModel | None:
        request = info.context.request
        try:
            context = request.root["api"]["analysisSubmissions"][str(pk)]
        except KeyError:
            return None
        if not request.has_permission(Permission.SUBMISSION_READ, context):
            return None
        return context.submission
