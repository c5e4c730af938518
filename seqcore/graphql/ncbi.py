"""NCBI submissions in GraphQL: the ``NcbiSubmission`` type (``Project.ncbiSubmissions`` and
``node(id:)``, for whoever may read the project, as in REST); ``createNcbiSubmission`` is in
:mod:`seqcore.graphql.mutations.ncbi`."""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.graphql.connections import Ordering, paginate
from seqcore.graphql.nodes import Node, _gid
from seqcore.graphql.scalars import JSON
from seqcore.models.ncbi import NcbiSubmission as SubmissionModel
from seqcore.security.permissions import Permission


class NcbiSubmissionRun(graphene.ObjectType):
    """One sequencing object sent as an SRA run."""

    sequencing_object_id = graphene.ID(description="The sequencing object's REST id; null "
                                                   "once it was deleted.")
    spuid = graphene.String(required=True)
    library_layout = graphene.String(required=True)
    status = graphene.String(required=True)
    accession = graphene.String(description="The SRA run accession (SRR...) NCBI assigned.")
    message = graphene.String()

    @staticmethod
    def resolve_library_layout(run: Any, info: Any) -> str:
        return run.layout

    @staticmethod
    def resolve_sequencing_object_id(run: Any, info: Any) -> str | None:
        return str(run.object_id) if run.object_id is not None else None


class NcbiSubmissionSample(graphene.ObjectType):
    """A sample of a submission, its BioSample and library, and NCBI's answer."""

    sample = graphene.Field("seqcore.graphql.types.Sample",
                            description="Null once deleted, or where the caller may not "
                                        "read it.")
    sample_name = graphene.String(required=True)
    spuid = graphene.String(required=True)
    bio_sample = graphene.String(description="The existing BioSample named, if any.")
    attributes = graphene.Field(JSON, required=True,
                                description="The BioSample attributes sent.")
    library_name = graphene.String(required=True)
    library_strategy = graphene.String(required=True)
    library_source = graphene.String(required=True)
    library_selection = graphene.String(required=True)
    library_construction_protocol = graphene.String()
    instrument_model = graphene.String(required=True)
    status = graphene.String(required=True)
    accession = graphene.String(description="The BioSample accession (SAMN...) NCBI "
                                            "assigned.")
    message = graphene.String()
    runs = graphene.NonNull(graphene.List(graphene.NonNull(NcbiSubmissionRun)))

    @staticmethod
    def resolve_sample(row: Any, info: Any) -> Any:
        if row.sample_id is None:
            return None
        return info.context.loaders.sample.load(row.sample_id)

    @staticmethod
    def resolve_attributes(row: Any, info: Any) -> dict[str, str]:
        return dict(row.attributes or {})


class NcbiSubmission(graphene.ObjectType):
    """A submission of a project's samples to NCBI (SRA, with new or existing BioSamples)."""

    class Meta:
        interfaces = (Node,)
        possible_types = (SubmissionModel,)

    bio_project = graphene.String(required=True)
    organization = graphene.String(required=True)
    namespace = graphene.String(required=True)
    release_date = graphene.String(description="yyyy-MM-dd, or null: released at once.")
    bio_sample_package = graphene.String()
    attributes = graphene.Field(JSON, required=True,
                                description="BioSample attribute: metadata field it was "
                                            "read from.")
    state = graphene.String(required=True)
    ncbi_submission_id = graphene.String(description="NCBI's id (SUB...), once reported.")
    error = graphene.String()
    samples = graphene.NonNull(graphene.List(graphene.NonNull(NcbiSubmissionSample)))
    project = graphene.Field("seqcore.graphql.types.Project")
    created_at = graphene.DateTime(required=True)
    updated_at = graphene.DateTime(required=True)
    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_release_date(submission: SubmissionModel, info: Any) -> str | None:
        return submission.release_date.isoformat() if submission.release_date else None

    @staticmethod
    def resolve_bio_sample_package(submission: SubmissionModel, info: Any) -> str | None:
        return submission.package

    @staticmethod
    def resolve_attributes(submission: SubmissionModel, info: Any) -> dict[str, str]:
        return dict(submission.attribute_fields or {})

    @staticmethod
    def resolve_ncbi_submission_id(submission: SubmissionModel, info: Any) -> str | None:
        return submission.ncbi_id

    @staticmethod
    def resolve_project(submission: SubmissionModel, info: Any) -> Any:
        return info.context.loaders.project.load(submission.project_id)

    @staticmethod
    def resolve_created_at(submission: SubmissionModel, info: Any) -> Any:
        return submission.created

    @staticmethod
    def resolve_updated_at(submission: SubmissionModel, info: Any) -> Any:
        return submission.modified or submission.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> SubmissionModel | None:
        request = info.context.request
        submission = info.context.db.get(SubmissionModel, pk)
        if submission is None:
            return None
        try:
            context = request.root["api"]["projects"][str(submission.project_id)][
                "ncbiSubmissions"][str(pk)]
        except KeyError:
            return None
        if not request.has_permission(Permission.PROJECT_READ, context):
            return None
        return submission


def project_ncbi_submissions(project: Any, info: Any, **page: Any) -> Any:
    """``Project.ncbiSubmissions``: the project was resolved for this caller, who reads its
    submissions as REST lets them."""
    query = select(SubmissionModel).where(SubmissionModel.project_id == project.id)
    order = Ordering(SubmissionModel.created, SubmissionModel.id, False, temporal=True)
    return paginate(info.context.db, query, order, lambda s: s.created, **page)


NCBI_TYPES = [NcbiSubmission, NcbiSubmissionSample, NcbiSubmissionRun]
