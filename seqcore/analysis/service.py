"""Launching analyses: the checks every launch passes (REST, GraphQL, a plugin's own path),
on typed arguments, answering with domain errors.

A transport reads its wire format into a :class:`~seqcore.analysis.launching.LaunchRequest`
and maps :class:`~seqcore.errors.domain.NotFound` (no such type),
:class:`~seqcore.errors.domain.Invalid` (the problems, all at once),
:class:`~seqcore.errors.domain.Forbidden` (writing back without permission) and
:class:`~seqcore.errors.domain.Conflict` (the type is not ready) to its own answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy import func, select

from seqcore.analysis.launching import (
    GENERIC_FIELDS,
    Actor,
    Launch,
    LaunchChecked,
    LaunchRequest,
)
from seqcore.analysis.parameters import as_strings, check_parameters
from seqcore.analysis.readiness import not_ready_message, readiness
from seqcore.analysis.registry import analysis_registry
from seqcore.db import utcnow
from seqcore.errors.domain import Conflict, Forbidden, Invalid, NotFound
from seqcore.framework.contrib import AnalysisType
from seqcore.models.analysis import (
    PRIORITY_ORDER,
    AnalysisState,
    AnalysisSubmission,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.group import Group, GroupHierarchy
from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample
from seqcore.models.sequencing import SequencingObject
from seqcore.parsing.timestamps import epoch_ms
from seqcore.security.permissions import Permission

NAME_MESSAGE = "The name must be text of at most 255 characters."
PARAMETERS_MESSAGE = "'parameters' must be an object of name: value."
PRIORITY_MESSAGE = "'priority' must be LOW, MEDIUM or HIGH."
DESCRIPTION_MESSAGE = "'description' must be text."


def acceptable_fields(analysis_type: AnalysisType) -> list[str]:
    """The launch fields ``analysis_type`` takes: the generic ones and its own."""
    return sorted({*GENERIC_FIELDS, *analysis_type.launch_fields})


def _value_problems(spec: LaunchRequest) -> dict[str, list[str]]:
    """The transport's problems and those of values of the wrong kind, in the order of the
    generic fields (one message per field, as REST has always answered)."""
    found: dict[str, list[str]] = {key: list(messages)
                                   for key, messages in spec.problems.items()}
    if spec.name is not None and (not isinstance(spec.name, str) or len(spec.name) > 255):
        found["name"] = [NAME_MESSAGE]
    if spec.parameters is not None and not (
            isinstance(spec.parameters, Mapping)
            and all(isinstance(key, str) for key in spec.parameters)):
        found["parameters"] = [PARAMETERS_MESSAGE]
    if not (isinstance(spec.priority, str) and spec.priority in PRIORITY_ORDER):
        found["priority"] = [PRIORITY_MESSAGE]
    if spec.description is not None and not isinstance(spec.description, str):
        found["description"] = [DESCRIPTION_MESSAGE]
    order = {key: index for index, key in enumerate(GENERIC_FIELDS)}
    return dict(sorted(found.items(), key=lambda item: order.get(item[0], len(order))))


def resolve_inputs(actor: Actor, analysis_type: AnalysisType, object_ids: Iterable[int],
                   sample_ids: Iterable[int], problems: dict[str, list[str]]
                   ) -> list[SequencingObject]:
    """The sequencing objects to analyse: those named, plus each named sample's latest
    object of an accepted kind. Objects the caller cannot read do not exist for it."""
    objects: dict[int, SequencingObject] = {}
    missing = []
    for object_id in object_ids:
        obj = actor.db.get(SequencingObject, object_id)
        if obj is None or not actor.may(Permission.SAMPLE_READ, "samples", str(obj.sample_id)):
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
        if not actor.may(Permission.SAMPLE_READ, "samples", str(sample_id)):
            missing.append(str(sample_id))
            continue
        latest = actor.db.scalar(
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


def group_projects(actor: Actor, group_id: int, sample_ids: set[int],
                   problems: dict[str, list[str]]) -> list[int]:
    """For a launch in a group's namespace: the projects of the group and its subgroups the
    submission is shared with. Each sample must be in a project of the group (or below) that
    the caller reads (``samples`` problem otherwise: a group's execution analyses the group's
    samples only), and a group the caller cannot read is no group (``group``). The
    submission is shared only with the projects that hold *every* sample, so a project's
    members never read results made from samples their project does not hold; an execution
    across projects is its submitter's (and administrators') alone."""
    group = actor.db.get(Group, group_id)
    if group is None or not actor.may(Permission.GROUP_READ, "groups", str(group_id)):
        problems.setdefault("group", []).append(f"No such group: {group_id}.")
        return []
    if not sample_ids:
        return []
    subtree = select(GroupHierarchy.descendant_id).where(GroupHierarchy.ancestor_id == group_id)
    holders: dict[int, list[int]] = {}
    for sample_id, project_id in actor.db.execute(
            select(ProjectSample.sample_id, ProjectSample.project_id)
            .join(Project, Project.id == ProjectSample.project_id)
            .where(ProjectSample.sample_id.in_(sample_ids), Project.group_id.in_(subtree))
            .order_by(ProjectSample.project_id)):
        holders.setdefault(sample_id, []).append(project_id)
    readable: dict[int, bool] = {}
    common: list[int] | None = None
    for sample_id in sorted(sample_ids):
        found = [pid for pid in holders.get(sample_id, []) if readable.setdefault(
            pid, actor.may(Permission.PROJECT_READ, "projects", str(pid)))]
        if not found:
            problems.setdefault("samples", []).append(
                f"Sample {sample_id} is in no project of group {group.full_path}.")
        common = found if common is None else [pid for pid in common if pid in found]
    return common or []


def launch(request: Any, spec: LaunchRequest, automated: bool = False) -> AnalysisSubmission:
    """Check everything, then create the submission (state NEW) in one go.

    ``request`` only carries the database session, the identity and the permission checks
    (see :class:`~seqcore.analysis.launching.Actor`). Order of the answers: no such type
    (``NotFound``), fields the type does not take (``Invalid`` with a message and the
    ``acceptable-properties``), every problem of the input at once, the type's own check
    included (``Invalid``), writing back without permission (``Forbidden``), the type not
    ready (``Conflict``).
    """
    analysis_type = analysis_registry(request.registry).type(spec.analysis_type)
    if analysis_type is None:
        raise NotFound(f"There is no analysis type '{spec.analysis_type}'.")
    unknown = sorted(set(spec.extra) - set(analysis_type.launch_fields))
    if unknown:
        acceptable: dict[str, Any] = {"acceptable-properties": acceptable_fields(analysis_type)}
        raise Invalid(message=f"Unknown field(s): {', '.join(unknown)}.", **acceptable)
    actor = Actor(request)
    problems = _value_problems(spec)
    name = spec.name if "name" not in problems and spec.name else analysis_type.label
    given = spec.parameters if "parameters" not in problems and spec.parameters else {}
    parameters, parameter_problems = check_parameters(analysis_type, given)
    for key, messages in parameter_problems.items():
        problems[f"parameters.{key}"] = messages
    inputs = resolve_inputs(actor, analysis_type, spec.object_ids, spec.sample_ids, problems)
    project_ids = list(spec.project_ids)
    unreadable = [str(project_id) for project_id in project_ids
                  if not actor.may(Permission.PROJECT_READ, "projects", str(project_id))]
    if unreadable:
        problems["projects"] = ["No such project(s): " + ", ".join(unreadable) + "."]
    if spec.group_id is not None:
        project_ids += group_projects(actor, spec.group_id, {o.sample_id for o in inputs},
                                      problems)
    write_back = spec.write_back
    if write_back and not analysis_type.writes_back:
        problems["writeResultsToSamples"] = [
            f"{analysis_type.name} does not write results back to samples."]
    priority = spec.priority if "priority" not in problems else None
    typed_launch = Launch(request=spec, analysis_type=analysis_type, inputs=tuple(inputs),
                          parameters=dict(parameters), problems=dict(problems), actor=actor)
    checked = LaunchChecked()
    if analysis_type.launch_check is not None:
        checked = analysis_type.launch_check(typed_launch) or LaunchChecked()
        for key, checked_messages in checked.problems.items():
            problems[key] = list(checked_messages)
    if problems:
        raise Invalid(problems)
    if write_back and not automated:
        for sample_id in {o.sample_id for o in inputs}:
            if not actor.may(Permission.SAMPLE_WRITE, "samples", str(sample_id)):
                raise Forbidden(f"Writing results back needs permission to change sample "
                                f"{sample_id}.")
    ready, states = readiness(analysis_type)
    if not ready:
        raise Conflict(not_ready_message(analysis_type, states))
    submission = create_submission(actor.db, analysis_type, name=name, inputs=inputs,
                                   parameters=parameters, project_ids=project_ids,
                                   update_samples=write_back, priority=str(priority),
                                   submitter_id=actor.user_id, automated=automated,
                                   description=spec.description,
                                   email_notification=spec.email_notification,
                                   group_id=spec.group_id)
    if analysis_type.record_launch is not None:
        analysis_type.record_launch(typed_launch, submission, checked.resolved)
    return submission


def create_submission(db: Any, analysis_type: AnalysisType, *, name: str,
                      inputs: Iterable[SequencingObject], parameters: Mapping[str, Any],
                      project_ids: Iterable[int], update_samples: bool, priority: str,
                      submitter_id: int | None, automated: bool = False,
                      description: str | None = None,
                      email_notification: bool = False,
                      group_id: int | None = None) -> AnalysisSubmission:
    now = utcnow()
    submission = AnalysisSubmission(
        name=name, analysis_type=analysis_type.name,
        workflow_id=analysis_type.workflow_id, submitter_id=submitter_id,
        state=AnalysisState.NEW.value, priority=priority,
        priority_rank=PRIORITY_ORDER[priority], parameters=as_strings(parameters),
        update_samples=update_samples, automated=automated, description=description,
        email_notification=email_notification, group_id=group_id,
        history=[[AnalysisState.NEW.value, epoch_ms(now)]], created=now)
    for obj in inputs:
        submission.inputs.append(SubmissionInput(object_id=obj.id))
    for project_id in dict.fromkeys(project_ids):
        submission.projects.append(SubmissionProject(project_id=project_id))
    db.add(submission)
    db.flush()
    return submission


LATEST_SUBMISSIONS = "seqcore.latest_submissions"


def latest_submissions(db: Any, object_ids: list[int]) -> dict[int, dict[str, int]]:
    """For each object, by analysis type, the id of the latest submission whose inputs
    include it: one statement for a page of objects, every type at once."""
    rows = db.execute(
        select(SubmissionInput.object_id, AnalysisSubmission.analysis_type,
               func.max(AnalysisSubmission.id))
        .join(SubmissionInput, SubmissionInput.submission_id == AnalysisSubmission.id)
        .where(SubmissionInput.object_id.in_(object_ids))
        .group_by(SubmissionInput.object_id, AnalysisSubmission.analysis_type))
    found: dict[int, dict[str, int]] = {}
    for object_id, analysis_type, submission_id in rows:
        found.setdefault(object_id, {})[analysis_type] = submission_id
    return found


def latest_submission_href(type_name: str) -> Callable[[Any, Any], str | None]:
    """A :class:`~seqcore.framework.contrib.LinkSpec` href: the URL of the latest submission of
    ``type_name`` whose inputs include the context's sequencing object (``context.obj``),
    whatever its state, or no link. IRIDA's pair links ``analysis/assembly`` and
    ``analysis/sistr`` are of this kind; its clients follow them and check the state."""

    def href(request: Any, context: Any) -> str | None:
        def load(ids: list[int]) -> dict[int, dict[str, int]]:
            return latest_submissions(context.db, ids)

        batched = getattr(context, "batched", None)
        latest = (batched(LATEST_SUBMISSIONS, load) if batched is not None
                  else load([context.obj.id]))
        submission_id = latest.get(context.obj.id, {}).get(type_name)
        if submission_id is None:
            return None
        return f"{request.application_url}/api/analysisSubmissions/{submission_id}"

    return href
