"""Analysis submissions: listing, launching, reading, outputs and inputs; analysis types."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.analysis.cancelling import cancel_submission as end_submission
from seqcore.analysis.deletion import delete_submission as remove_submission
from seqcore.analysis.launching import LaunchRequest
from seqcore.analysis.parameters import schema
from seqcore.analysis.readiness import readiness
from seqcore.analysis.registry import analysis_registry
from seqcore.analysis.service import launch
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.analysis import (
    AnalysisSubmission,
    AutomatedAnalysis,
    Priority,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.sequencing import SequencingObject
from seqcore.parsing.fields import Flag, Id
from seqcore.resources.analyses import (
    AnalysisResource,
    InputObjects,
    OutputFileResource,
    SubmissionResource,
    SubmissionsCollection,
    TypeFilter,
    TypeResource,
)
from seqcore.resources.files import SequencingObjects
from seqcore.rest.body import read_json
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import ApiError, validation_error
from seqcore.rest.values import epoch_ms
from seqcore.rest.views.files import download, negotiate, object_entries
from seqcore.security.permissions import Permission


def submission_fields(submission: AnalysisSubmission) -> dict[str, Any]:
    fields = {
        "name": submission.name,
        "workflowId": submission.workflow_id,
        "analysisType": submission.analysis_type,
        "inputParameters": dict(submission.parameters or {}),
        "createdDate": epoch_ms(submission.created),
        "modifiedDate": epoch_ms(submission.modified),
        "analysisDescription": submission.description,
        "updateSamples": submission.update_samples,
        "emailPipelineResultCompleted": False,
        "emailPipelineResultError": False,
        "label": submission.name,
        "remoteInputDataId": submission.remote_input_data_id,
        "remoteWorkflowId": submission.remote_workflow_id,
        "remoteFilesPaired": [],
        "remoteFilesSingle": [],
        "priority": submission.priority,
        "analysisState": submission.state,
        "automated": submission.automated,
        "analysisCleanedState": submission.cleaned_state,
        "stateHistory": [{"state": state, "date": at} for state, at in submission.history or []],
    }
    if submission.error:
        fields["analysisError"] = submission.error
    return fields


def submission_entry(request: Request, context: SubmissionResource) -> dict[str, Any]:
    return entry(request, context, submission_fields(context.submission),
                 identifier=context.submission.id)


def _visible_query(request: Request) -> Any:
    identity = request.identity
    query = select(AnalysisSubmission).order_by(AnalysisSubmission.id)
    if not identity.is_admin:
        query = query.where(AnalysisSubmission.submitter_id == identity.user_id)
    return query


def list_submissions(request: Request) -> dict:
    context = request.context
    root = context if isinstance(context, SubmissionsCollection) else context.__parent__.__parent__
    query = _visible_query(request)
    if isinstance(context, TypeFilter):
        query = query.where(AnalysisSubmission.analysis_type == context.analysis_type.name)
    entries = (submission_entry(request, root.resource_for(s))
               for s in request.db.scalars(query))
    return collection(request, context, entries)


class LaunchBody(Schema):
    """The launch body's lists of ids and its flag, typed as REST reads them; the other
    generic fields go to the launch as given and are checked there (same messages for every
    transport). A field of the wrong kind is a problem and is passed on as absent."""

    sequencingObjects = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'sequencingObjects' must be a list of ids."})
    samples = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'samples' must be a list of ids."})
    projects = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'projects' must be a list of ids."})
    writeResultsToSamples = Flag(load_default=False, error_messages={
        "invalid": "'writeResultsToSamples' must be true or false.",
        "null": "'writeResultsToSamples' must be true or false."})


def launch_request(analysis_type: str, body: dict[str, Any]) -> LaunchRequest:
    """A REST launch body as a :class:`LaunchRequest`; keys beyond the generic fields are
    the type's own launch fields (the launch refuses those it does not declare)."""
    schema = LaunchBody()
    problems: dict[str, list[str]] = {}
    typed_keys = set(schema.fields)
    try:
        typed = schema.load({k: v for k, v in body.items() if k in typed_keys})
    except ValidationError as err:
        for key, messages in err.normalized_messages().items():
            if isinstance(messages, dict):  # a list's items: one message for the list
                messages = [schema.fields[key].error_messages["invalid"]]
            problems[key] = [str(m) for m in messages]
        typed = dict(err.valid_data or {})
        for key, field in schema.fields.items():
            if key not in typed:
                typed[key] = field.load_default
    generic = {"name", "parameters", "priority", "description", *typed_keys}
    given: dict[str, Any] = {key: body[key] for key in ("name", "parameters", "priority",
                                                        "description") if key in body}
    return LaunchRequest(
        analysis_type=analysis_type, name=given.get("name"),
        object_ids=tuple(typed["sequencingObjects"] or ()),
        sample_ids=tuple(typed["samples"] or ()),
        project_ids=tuple(typed["projects"] or ()),
        parameters=given.get("parameters"), write_back=typed["writeResultsToSamples"],
        priority=given.get("priority", Priority.MEDIUM.value),
        description=given.get("description"),
        extra={key: value for key, value in body.items() if key not in generic},
        problems=problems)


def launch_submission(request: Request) -> dict:
    context: TypeFilter = request.context
    body = read_json(request)
    submission = launch(request, launch_request(context.analysis_type.name, body))
    resource = context.__parent__.__parent__.resource_for(submission)
    request.response.status = 201
    request.response.location = url_for(request, resource)
    return {"resource": submission_entry(request, resource)}


def get_submission(request: Request) -> dict:
    return {"resource": submission_entry(request, request.context)}


def delete_submission(request: Request) -> dict:
    """The submission, its outputs and work directory go (409 while a worker holds it)."""
    from pathlib import Path

    context: SubmissionResource = request.context
    work_root = request.registry.settings.get("seqcore.analysis.work_path")
    remove_submission(request.db, request.registry.pm, context.submission, request.storage,
                      request.tm, Path(work_root) if work_root else None, request)
    return links_only([("collection", url_for(request, context.__parent__))])


def cancel_submission(request: Request) -> dict:
    """The submission ends in ERROR as cancelled by the caller and its job is stopped (409
    once it has ended); answers the submission as GET does."""
    context: SubmissionResource = request.context
    identity = request.identity
    end_submission(request.db, request.registry, context.submission,
                   identity.user_id if identity else None, request.tm, request)
    return {"resource": submission_entry(request, context)}


def _output_rels(request: Request, submission: AnalysisSubmission) -> dict[str, list[str]]:
    """Output key → rels (declared rels first; an undeclared output gets outputFile/<key>)."""
    rels: dict[str, list[str]] = {}
    for rel in analysis_registry(request.registry).output_rels(submission.analysis_type):
        rels.setdefault(rel.key, []).append(rel.rel)
    return rels


def get_analysis(request: Request) -> dict:
    context: AnalysisResource = request.context
    submission = context.submission
    rels = _output_rels(request, submission)
    links = [{"rel": "self", "href": url_for(request, context)}]
    for output in submission.outputs:
        href = url_for(request, context, "file", str(output.id))
        for rel in rels.get(output.key, [f"outputFile/{output.key}"]):
            links.append({"rel": rel, "href": href})
    analysis_type = analysis_registry(request.registry).type(submission.analysis_type)
    return {"resource": {
        "description": analysis_type.label if analysis_type else submission.analysis_type,
        "executionManagerAnalysisId": submission.remote_workflow_id,
        "createdDate": epoch_ms(submission.modified or submission.created),
        "additionalProperties": {},
        "analysisType": {"type": submission.analysis_type.upper().replace("-", "_")},
        "label": submission.name,
        "links": links,
        "identifier": str(submission.id),
    }}


def get_output(request: Request) -> Response | dict:
    context: OutputFileResource = request.context
    output = context.output
    submission = context.__parent__.__parent__.submission
    declared = analysis_registry(request.registry).output_keys(submission.analysis_type)
    media = declared[output.key].media_type if output.key in declared else "text/plain"
    chosen = negotiate(request, list(dict.fromkeys(["application/json", "text/plain", media])),
                       "This output")
    if chosen != "application/json":
        return download(request, context, chosen)
    stored = output.file
    request.response.content_type = "application/json"
    request.response.json_body = {"resource": entry(request, context, {
        "createdDate": epoch_ms(output.created),
        "fileRevisionNumber": 0,
        "label": stored.file_name,
        "file": request.storage.location(stored.path),
        "executionManagerFileId": output.key,
        "fileSizeBytes": stored.size,
    }, identifier=output.id)}
    return request.response


def list_inputs(request: Request) -> dict:
    context: InputObjects = request.context
    kind = context.kind
    objects = request.db.scalars(
        select(SequencingObject).join(SubmissionInput,
                                      SubmissionInput.object_id == SequencingObject.id)
        .where(SubmissionInput.submission_id == context.submission.id,
               SequencingObject.kind == kind.name).order_by(SequencingObject.id))
    samples = request.root["api"]["samples"]
    contexts = [SequencingObjects(request, kind.path_segment, samples[str(obj.sample_id)],
                                  kind).resource_for(obj) for obj in objects]
    return collection(request, context, object_entries(request, contexts))


def project_analyses(request: Request) -> dict:
    """Submissions shared with the project; entries carry only ``self``, as IRIDA's."""
    context = request.context
    query = (select(AnalysisSubmission)
             .join(SubmissionProject, SubmissionProject.submission_id == AnalysisSubmission.id)
             .where(SubmissionProject.project_id == _project(context).project.id)
             .order_by(AnalysisSubmission.id))
    if hasattr(context, "analysis_type"):
        query = query.where(AnalysisSubmission.analysis_type == context.analysis_type.name)
    submissions = request.root["api"]["analysisSubmissions"]
    entries = []
    for submission in request.db.scalars(query):
        resource = submissions.resource_for(submission)
        entries.append({**submission_fields(submission),
                        "links": [{"rel": "self", "href": url_for(request, resource)}],
                        "identifier": str(submission.id)})
    return collection(request, context, entries)


def _project(context: Any) -> Any:
    node = context
    while not hasattr(node, "project"):
        node = node.__parent__
    return node


def type_fields(request: Request, analysis_type: Any) -> dict[str, Any]:
    registry = analysis_registry(request.registry)
    ready, states = readiness(analysis_type)
    return {
        "name": analysis_type.name,
        "label": analysis_type.label,
        "description": analysis_type.description,
        "workflowId": analysis_type.workflow_id,
        "version": analysis_type.version,
        "aliases": list(analysis_type.aliases),
        "inputs": list(analysis_type.inputs),
        "samples": analysis_type.samples,
        "parameters": schema(analysis_type),
        "outputs": [{"rel": r.rel, "key": r.key, "fileName": r.file_name,
                     "mediaType": r.media_type} for r in registry.output_rels(
                         analysis_type.name)],
        "writesResultsToSamples": analysis_type.writes_back,
        "ready": ready,
        "tools": [{"name": s.name, "command": s.command, "path": s.path, "version": s.version,
                   "install": s.install, "ready": s.ready, "optional": s.optional,
                   "problem": s.problem} for s in states],
    }


def list_types(request: Request) -> dict:
    context = request.context
    registry = analysis_registry(request.registry)
    entries = [entry(request, TypeResource(request, name, context, t), type_fields(request, t))
               for name, t in sorted(registry.types.items())]
    return collection(request, context, entries)


def get_type(request: Request) -> dict:
    context: TypeResource = request.context
    return {"resource": entry(request, context, type_fields(request, context.analysis_type))}


# -- automated analyses -----------------------------------------------------------------------


def get_automated(request: Request) -> dict:
    project = _project(request.context).project
    rows = request.db.scalars(select(AutomatedAnalysis).where(
        AutomatedAnalysis.project_id == project.id).order_by(AutomatedAnalysis.analysis_type))
    return {"resource": {
        "analysisTypes": [{"type": r.analysis_type, "parameters": r.parameters} for r in rows],
        "links": [{"rel": "self", "href": url_for(request, request.context)},
                  {"rel": "project", "href": url_for(request, _project(request.context))}]}}


def put_automated(request: Request) -> dict:
    """Replace the project's automated analyses: ``{"analysisTypes": [{"type": ...,
    "parameters": {...}}, ...]}`` (a bare type name is accepted for an item)."""
    from seqcore.analysis.parameters import as_strings, check_parameters

    project = _project(request.context).project
    body = read_json(request)
    items = body.get("analysisTypes")
    if set(body) - {"analysisTypes"} or not isinstance(items, list):
        raise ApiError(400, body={"message": "Send {\"analysisTypes\": [...]}.",
                                  "acceptable-properties": ["analysisTypes"]})
    registry = analysis_registry(request.registry)
    problems: dict[str, list[str]] = {}
    chosen: dict[str, dict[str, str]] = {}
    for item in items:
        item = {"type": item} if isinstance(item, str) else item
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            problems.setdefault("analysisTypes", []).append(
                "Each item is a type name or {\"type\": ..., \"parameters\": {...}}.")
            continue
        analysis_type = registry.type(item["type"])
        if analysis_type is None:
            problems.setdefault("analysisTypes", []).append(
                f"There is no analysis type '{item['type']}'.")
            continue
        parameters = item.get("parameters") or {}
        if not isinstance(parameters, dict):
            problems[f"{analysis_type.name}.parameters"] = [
                "'parameters' must be an object of name: value."]
            continue
        values, errors = check_parameters(analysis_type, parameters)
        for key, messages in errors.items():
            problems[f"{analysis_type.name}.{key}"] = messages
        chosen[analysis_type.name] = as_strings(values)
    if problems:
        raise validation_error(problems)
    for row in request.db.scalars(select(AutomatedAnalysis).where(
            AutomatedAnalysis.project_id == project.id)):
        request.db.delete(row)
    request.db.flush()
    for name, parameters in chosen.items():
        request.db.add(AutomatedAnalysis(project_id=project.id, analysis_type=name,
                                         parameters=parameters))
    request.db.flush()
    return get_automated(request)


SID = "{id:\\d+}"
ENDPOINTS = [
    Endpoint("api.submissions", "/api/analysisSubmissions", {
        "GET": View(list_submissions, Permission.API_READ),
    }, description="The caller's analysis submissions (administrators: all)."),
    Endpoint("api.submissions.type", "/api/analysisSubmissions/analysisType/{type}", {
        "GET": View(list_submissions, Permission.API_READ),
        "POST": View(launch_submission, Permission.ANALYSIS_LAUNCH),
    }, description="The caller's submissions of one type; POST launches one."),
    Endpoint("api.submission", f"/api/analysisSubmissions/{SID}", {
        "GET": View(get_submission, Permission.SUBMISSION_READ),
        "DELETE": View(delete_submission, Permission.SUBMISSION_DELETE),
    }, description="One submission (immutable); DELETE removes it with its outputs and work "
                   "directory (the submitter and administrators)."),
    Endpoint("api.submission.cancel", f"/api/analysisSubmissions/{SID}/cancel", {
        "POST": View(cancel_submission, Permission.SUBMISSION_DELETE),
    }, traverse=f"/api/analysisSubmissions/{SID}",
        description="Cancel the submission: it ends in ERROR (\"Cancelled by <user> while "
                    "<state>.\") and its job is stopped; 409 once it is COMPLETED or ERROR "
                    "(the submitter and administrators)."),
    Endpoint("api.submission.analysis", f"/api/analysisSubmissions/{SID}/analysis", {
        "GET": View(get_analysis, Permission.SUBMISSION_READ),
    }, description="The outputs of a completed submission (404 before)."),
    Endpoint("api.submission.output",
             f"/api/analysisSubmissions/{SID}/analysis/file/{{fid}}", {
                 "GET": View(get_output, Permission.SUBMISSION_READ, renderer=None),
             }, description="One output, by its number or by its key (`contigs`); Accept: "
                            "text/plain (or its media type) gives the content."),
    Endpoint("api.submission.inputs",
             f"/api/analysisSubmissions/{SID}/sequenceFiles/{{kind}}", {
                 "GET": View(list_inputs, Permission.SUBMISSION_READ),
             }, description="The submission's inputs of one file kind (each kind that "
                            "declares an input_rel: pairs, unpaired)."),
    Endpoint("api.analysis_types", "/api/analysisTypes", {
        "GET": View(list_types, Permission.API_READ),
    }, description="Analysis types: parameters with defaults, outputs, readiness."),
    Endpoint("api.analysis_type", "/api/analysisTypes/{name}", {
        "GET": View(get_type, Permission.API_READ),
    }, description="One analysis type."),
    Endpoint("api.project.analyses.type", "/api/projects/{pid:\\d+}/analyses/{type}", {
        "GET": View(project_analyses, Permission.PROJECT_READ),
    }, description="Submissions of one type shared with the project."),
    Endpoint("api.project.automated", "/api/projects/{pid:\\d+}/automatedAnalyses", {
        "GET": View(get_automated, Permission.PROJECT_READ),
        "PUT": View(put_automated, Permission.PROJECT_WRITE),
    }, description="Analysis types the project launches on every new upload."),
]
