"""``createNcbiSubmission``: REST's ``POST /api/projects/{id}/ncbiSubmissions``, with the same
checks and messages, answering problems in the payload at their input paths."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.analysis.launching import Actor
from seqcore.errors.domain import DomainError, Invalid
from seqcore.graphql.mutations.base import Problems, UserError, find_project, problem, run
from seqcore.graphql.ncbi import NcbiSubmission
from seqcore.graphql.scalars import JSON
from seqcore.ncbi.submissions import create_submission
from seqcore.resources.files import registered_kinds
from seqcore.security.permissions import Permission


class NcbiLibraryFields:
    library_strategy = graphene.String()
    library_source = graphene.String()
    library_selection = graphene.String()
    instrument_model = graphene.String()
    library_construction_protocol = graphene.String()


class NcbiSubmissionSampleInput(NcbiLibraryFields, graphene.InputObjectType):
    """A sample to submit; library fields given here override the submission's."""

    sample_id = graphene.ID(required=True)
    sequencing_objects = graphene.List(
        graphene.NonNull(graphene.ID),
        description="REST ids of the sample's sequencing objects to send; default: its "
                    "latest processed one of a kind the SRA takes.")
    bio_sample = graphene.String(description="An existing BioSample's accession: no new "
                                             "BioSample is made for this sample.")
    library_name = graphene.String()


# GraphQL argument -> the body key the domain reads (REST's).
_KEYS = {"bio_project": "bioProject", "organization": "organization",
         "namespace": "namespace", "release_date": "releaseDate",
         "bio_sample_package": "bioSamplePackage", "attributes": "attributes",
         "library_strategy": "libraryStrategy", "library_source": "librarySource",
         "library_selection": "librarySelection", "instrument_model": "instrumentModel",
         "library_construction_protocol": "libraryConstructionProtocol",
         "library_name": "libraryName", "bio_sample": "bioSample",
         "sequencing_objects": "sequencingObjects"}


def _paths(err: Invalid) -> Problems:
    """``samples.0.attributes`` is the input path ``["samples", "0", "attributes"]``."""
    return Problems({"message": message, "path": key.split(".")}
                    for key, messages in err.problems.items() for message in messages)


class CreateNcbiSubmission(graphene.relay.ClientIDMutation):
    """Submit samples of a project to NCBI (project owners and administrators): every field
    is checked first, and the problems come back in ``errors`` with nothing stored."""

    class Input(NcbiLibraryFields):
        project_id = graphene.ID(required=True)
        bio_project = graphene.String(required=True)
        organization = graphene.String(required=True)
        namespace = graphene.String()
        release_date = graphene.String(description="yyyy-MM-dd")
        bio_sample_package = graphene.String()
        attributes = graphene.Field(JSON, description="BioSample attribute: metadata field "
                                                      "name.")
        samples = graphene.NonNull(graphene.List(graphene.NonNull(NcbiSubmissionSampleInput)))

    submission = graphene.Field(NcbiSubmission)
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str,
                               samples: list[Any], **given: Any) -> Any:
        def work() -> dict[str, Any]:
            context = find_project(info, project_id, "projectId", Permission.NCBI_SUBMIT,
                                   "submit to NCBI")
            body = {_KEYS[key]: value for key, value in given.items()
                    if key in _KEYS and value is not None}  # not clientMutationId
            body["samples"] = []
            for entry in samples:
                sample = {_KEYS[key]: value for key, value in entry.items()
                          if key != "sample_id" and value is not None}
                sample["sampleId"] = info.context.parse(entry["sample_id"], "Sample")[1]
                body["samples"].append(sample)
            request = info.context.request
            settings = request.registry.settings
            try:
                submission = create_submission(
                    info.context.db, Actor(request), context.project, body,
                    settings["seqcore.ncbi.vocabulary"],
                    registered_kinds(request.registry).values(),
                    settings["seqcore.ncbi.namespace"])
            except Invalid as err:
                if err.has_message or not err.problems:
                    raise problem(err.message) from None
                raise _paths(err) from None
            except DomainError as err:
                raise problem(err.message, "projectId") from None
            return {"submission": submission}

        return run(info, cls, work)

