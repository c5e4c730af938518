"""Launching analyses: checks shared by REST, GraphQL and automated launches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate
from pyramid.request import Request
from sqlalchemy import select

from seqcore.analysis.parameters import as_strings, check_parameters
from seqcore.analysis.readiness import not_ready_message, readiness
from seqcore.analysis.registry import analysis_registry
from seqcore.contrib import AnalysisType
from seqcore.db import utcnow
from seqcore.fields import Choice, Flag, Id, Text
from seqcore.models.analysis import (
    PRIORITY_ORDER,
    AnalysisState,
    AnalysisSubmission,
    Priority,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.sequencing import SequencingObject
from seqcore.rest.errors import ApiError, validation_error
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission

NAME_MESSAGE = "The name must be text of at most 255 characters."


class LaunchSchema(Schema):
    """A launch request as REST and GraphQL send it; each field's type refuses values of the
    wrong kind (a list for the priority, an object for the description, an id beyond 64
    bits) with the message shown, so nothing of the wrong kind reaches the database."""

    name = Text(allow_none=True, validate=validate.Length(max=255), error_messages={
        "invalid": NAME_MESSAGE}, load_default=None)
    sequencingObjects = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'sequencingObjects' must be a list of ids."})
    samples = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'samples' must be a list of ids."})
    projects = fields.List(Id(), allow_none=True, load_default=None, error_messages={
        "invalid": "'projects' must be a list of ids."})
    parameters = fields.Dict(keys=fields.String(), allow_none=True, load_default=None,
                             error_messages={"invalid": "'parameters' must be an object of "
                                                        "name: value."})
    writeResultsToSamples = Flag(load_default=False, error_messages={
        "invalid": "'writeResultsToSamples' must be true or false.",
        "null": "'writeResultsToSamples' must be true or false."})
    priority = Choice(list(PRIORITY_ORDER), load_default=Priority.MEDIUM.value,
                      error="'priority' must be LOW, MEDIUM or HIGH.",
                      error_messages={"null": "'priority' must be LOW, MEDIUM or HIGH."})
    description = Text(allow_none=True, load_default=None, error_messages={
        "invalid": "'description' must be text."})


def _typed(body: Mapping[str, Any], problems: dict[str, list[str]]) -> dict[str, Any]:
    """The body's fields typed by :class:`LaunchSchema`; a field of the wrong kind is a
    problem and is left out (as if absent)."""
    schema = LaunchSchema()
    try:
        return schema.load(body)
    except ValidationError as err:
        for key, messages in err.messages.items():
            if key == "name":
                messages = [NAME_MESSAGE]
            elif isinstance(messages, dict):  # a list's items: one message for the list
                messages = [schema.fields[key].error_messages["invalid"]]
            problems[key] = [str(m) for m in messages]
        valid = dict(err.valid_data or {})
        for key, field in schema.fields.items():
            if key not in valid:
                valid[key] = field.load_default
        return valid


def _readable_sample(request: Request, sample_id: int, permission: str) -> bool:
    try:
        context = request.root["api"]["samples"][str(sample_id)]
    except KeyError:
        return False
    return bool(request.has_permission(permission, context))


def resolve_inputs(request: Request, analysis_type: AnalysisType, object_ids: list[int],
                   sample_ids: list[int], problems: dict[str, list[str]]
                   ) -> list[SequencingObject]:
    """The sequencing objects to analyse: those named, plus each named sample's latest
    object of an accepted kind. Objects the caller cannot read do not exist for it."""
    objects: dict[int, SequencingObject] = {}
    missing = []
    for object_id in object_ids:
        obj = request.db.get(SequencingObject, object_id)
        if obj is None or not _readable_sample(request, obj.sample_id, Permission.SAMPLE_READ):
            missing.append(str(object_id))
            continue
        if obj.kind not in analysis_type.inputs:
            problems.setdefault("sequencingObjects", []).append(
                f"Sequencing object {object_id} is {obj.kind}; {analysis_type.name} takes "
                f"{', '.join(analysis_type.inputs)}.")
            continue
        objects[obj.id] = obj
    if missing:
        problems.setdefault("sequencingObjects", []).append(
            "No such sequencing object(s): " + ", ".join(missing) + ".")
    missing = []
    for sample_id in sample_ids:
        if not _readable_sample(request, sample_id, Permission.SAMPLE_READ):
            missing.append(str(sample_id))
            continue
        latest = request.db.scalar(
            select(SequencingObject).where(SequencingObject.sample_id == sample_id,
                                           SequencingObject.kind.in_(analysis_type.inputs))
            .order_by(SequencingObject.id.desc()).limit(1))
        if latest is None:
            problems.setdefault("samples", []).append(
                f"Sample {sample_id} has no {' or '.join(analysis_type.inputs)} to analyse.")
            continue
        objects[latest.id] = latest
    if missing:
        problems.setdefault("samples", []).append("No such sample(s): " + ", ".join(missing)
                                                  + ".")
    chosen = list(objects.values())
    if not chosen and not problems:
        problems["sequencingObjects"] = ["Give the sequencing objects or samples to analyse."]
    if chosen and analysis_type.samples == "one" and len({o.sample_id for o in chosen}) > 1:
        problems.setdefault("sequencingObjects", []).append(
            f"{analysis_type.name} analyses one sample at a time.")
    if chosen and analysis_type.samples == "one" and len(chosen) > 1:
        problems.setdefault("sequencingObjects", []).append(
            f"{analysis_type.name} takes a single input object.")
    return chosen


def launch(request: Request, type_name: str, body: Mapping[str, Any],
           automated: bool = False) -> AnalysisSubmission:
    """Validate everything, then create the submission (state NEW) in one go."""
    registry = analysis_registry(request.registry)
    analysis_type = registry.type(type_name)
    if analysis_type is None:
        raise ApiError(404, message=f"There is no analysis type '{type_name}'.")
    allowed = {"name", "sequencingObjects", "samples", "parameters", "projects",
               "writeResultsToSamples", "priority", "description"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(400, body={"message": f"Unknown field(s): {', '.join(unknown)}.",
                                  "acceptable-properties": sorted(allowed)})
    problems: dict[str, list[str]] = {}
    typed = _typed(body, problems)
    name = typed["name"] or analysis_type.label
    parameters, parameter_problems = check_parameters(analysis_type, typed["parameters"] or {})
    for key, messages in parameter_problems.items():
        problems[f"parameters.{key}"] = messages
    inputs = resolve_inputs(request, analysis_type, typed["sequencingObjects"] or [],
                            typed["samples"] or [], problems)
    project_ids = typed["projects"] or []
    unreadable = []
    for project_id in project_ids:
        try:
            context = request.root["api"]["projects"][str(project_id)]
            if not request.has_permission(Permission.PROJECT_READ, context):
                unreadable.append(str(project_id))
        except KeyError:
            unreadable.append(str(project_id))
    if unreadable:
        problems["projects"] = ["No such project(s): " + ", ".join(unreadable) + "."]
    write_back = typed["writeResultsToSamples"]
    if write_back and not analysis_type.writes_back:
        problems["writeResultsToSamples"] = [
            f"{analysis_type.name} does not write results back to samples."]
    priority = typed["priority"]
    if problems:
        raise validation_error(problems)
    if write_back and not automated:
        for sample_id in {o.sample_id for o in inputs}:
            if not _readable_sample(request, sample_id, Permission.SAMPLE_WRITE):
                raise ApiError(403, message=f"Writing results back needs permission to "
                                            f"change sample {sample_id}.")
    ready, states = readiness(analysis_type)
    if not ready:
        raise ApiError(409, message=not_ready_message(analysis_type, states))
    return create_submission(request.db, analysis_type, name=name, inputs=inputs,
                             parameters=parameters, project_ids=project_ids,
                             update_samples=write_back, priority=priority,
                             submitter_id=request.identity.user_id if request.identity else None,
                             automated=automated, description=typed["description"])


def create_submission(db: Any, analysis_type: AnalysisType, *, name: str,
                      inputs: Iterable[SequencingObject], parameters: Mapping[str, Any],
                      project_ids: Iterable[int], update_samples: bool, priority: str,
                      submitter_id: int | None, automated: bool = False,
                      description: str | None = None) -> AnalysisSubmission:
    now = utcnow()
    submission = AnalysisSubmission(
        name=name, analysis_type=analysis_type.name,
        workflow_id=analysis_type.workflow_id, submitter_id=submitter_id,
        state=AnalysisState.NEW.value, priority=priority,
        priority_rank=PRIORITY_ORDER[priority], parameters=as_strings(parameters),
        update_samples=update_samples, automated=automated, description=description,
        history=[[AnalysisState.NEW.value, epoch_ms(now)]], created=now)
    for obj in inputs:
        submission.inputs.append(SubmissionInput(object_id=obj.id))
    for project_id in dict.fromkeys(project_ids):
        submission.projects.append(SubmissionProject(project_id=project_id))
    db.add(submission)
    db.flush()
    return submission


def latest_submission_href(type_name: str) -> Callable[[Any, Any], str | None]:
    """A :class:`~seqcore.contrib.LinkSpec` href: the URL of the latest submission of
    ``type_name`` whose inputs include the context's sequencing object (``context.obj``),
    whatever its state, or no link. IRIDA's pair links ``analysis/assembly`` and
    ``analysis/sistr`` are of this kind; its clients follow them and check the state."""

    def href(request: Any, context: Any) -> str | None:
        submission_id = context.db.scalar(
            select(AnalysisSubmission.id)
            .join(SubmissionInput, SubmissionInput.submission_id == AnalysisSubmission.id)
            .where(SubmissionInput.object_id == context.obj.id,
                   AnalysisSubmission.analysis_type == type_name)
            .order_by(AnalysisSubmission.id.desc()).limit(1))
        if submission_id is None:
            return None
        return f"{request.application_url}/api/analysisSubmissions/{submission_id}"

    return href
