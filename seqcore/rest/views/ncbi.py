"""NCBI submissions of a project: ``/api/projects/{id}/ncbiSubmissions[/{nid}]``."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.analysis.launching import Actor
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.ncbi import NcbiSubmission
from seqcore.ncbi.submissions import create_submission, project_submissions
from seqcore.resources.files import file_kinds
from seqcore.resources.ncbi import NcbiSubmissionResource, ProjectNcbiSubmissions
from seqcore.rest.body import read_json
from seqcore.rest.envelope import collection, entry
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission


def _sample_fields(request: Request, row: Any) -> dict[str, Any]:
    samples = request.root["api"]["samples"]
    return {
        "sampleId": str(row.sample_id) if row.sample_id is not None else None,
        "sampleName": row.sample_name,
        "spuid": row.spuid,
        "bioSample": row.bio_sample,
        "attributes": dict(row.attributes or {}),
        "libraryName": row.library_name,
        "libraryStrategy": row.library_strategy,
        "librarySource": row.library_source,
        "librarySelection": row.library_selection,
        "libraryConstructionProtocol": row.library_construction_protocol,
        "instrumentModel": row.instrument_model,
        "status": row.status,
        "accession": row.accession,
        "message": row.message,
        "writeBack": row.write_back,
        "runs": [{"sequencingObjectId": str(run.object_id) if run.object_id else None,
                  "spuid": run.spuid, "libraryLayout": run.layout, "status": run.status,
                  "accession": run.accession, "message": run.message}
                 for run in row.runs],
        "links": ([{"rel": "sample", "href": url_for(request, samples, row.sample_id)}]
                  if row.sample_id is not None else []),
    }


def submission_fields(request: Request, submission: NcbiSubmission) -> dict[str, Any]:
    """A submission as IRIDA's export details show it, with seqcore's additions (the
    package, the attribute mapping, each sample's runs, the state history)."""
    return {
        "bioProject": submission.bio_project,
        "organization": submission.organization,
        "namespace": submission.namespace,
        "releaseDate": submission.release_date.isoformat() if submission.release_date
        else None,
        "bioSamplePackage": submission.package,
        "attributes": dict(submission.attribute_fields or {}),
        "state": submission.state,
        "ncbiSubmissionId": submission.ncbi_id,
        "error": submission.error,
        "submitter": str(submission.submitter_id) if submission.submitter_id else None,
        "exportedSamples": len(submission.samples),
        "samples": [_sample_fields(request, row) for row in submission.samples],
        "stateHistory": [{"state": state, "date": at} for state, at in
                         submission.history or []],
        "createdDate": epoch_ms(submission.created),
        "modifiedDate": epoch_ms(submission.modified),
        "label": f"NCBI submission {submission.id} of project {submission.project_id}",
    }


def submission_entry(request: Request, context: NcbiSubmissionResource) -> dict[str, Any]:
    return entry(request, context, submission_fields(request, context.submission),
                 identifier=context.submission.id)


def list_submissions(request: Request) -> dict:
    context: ProjectNcbiSubmissions = request.context
    entries = [submission_entry(request, context.resource_for(submission))
               for submission in project_submissions(request.db,
                                                     context.project_ctx.project_id)]
    return collection(request, context, entries)


def create(request: Request) -> dict:
    """Check everything (one 400 with every problem, nothing stored), then create the
    submission in ``NEW``; the worker uploads it."""
    context: ProjectNcbiSubmissions = request.context
    settings = request.registry.settings
    submission = create_submission(
        request.db, Actor(request), context.project_ctx.project, read_json(request),
        settings["seqcore.ncbi.vocabulary"], file_kinds(request).values(),
        settings["seqcore.ncbi.namespace"])
    resource = context.resource_for(submission)
    request.response.status = 201
    request.response.location = url_for(request, resource)
    return {"resource": submission_entry(request, resource)}


def get_submission(request: Request) -> dict:
    return {"resource": submission_entry(request, request.context)}


ENDPOINTS = [
    Endpoint("api.project.ncbi_submissions", "/api/projects/{pid:\\d+}/ncbiSubmissions", {
        "GET": View(list_submissions, Permission.PROJECT_READ),
        "POST": View(create, Permission.NCBI_SUBMIT),
    }, description="The project's NCBI submissions (SRA runs with new or existing "
                   "BioSamples); POST makes one: every field checked first, 400 with every "
                   "problem, nothing stored; then the worker uploads it to NCBI."),
    Endpoint("api.project.ncbi_submission",
             "/api/projects/{pid:\\d+}/ncbiSubmissions/{nid:\\d+}", {
                 "GET": View(get_submission, Permission.PROJECT_READ),
             }, description="One NCBI submission: its state, each sample's status and the "
                            "accessions NCBI assigned."),
]
