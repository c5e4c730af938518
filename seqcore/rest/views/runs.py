"""``/api/sequencingrun``: the runs the uploader creates and completes."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import ValidationError
from pyramid.request import Request
from sqlalchemy import select

from seqcore.errors.domain import NotFound
from seqcore.files.runs import attach_object, delete_run, object_id_from
from seqcore.files.runs import create_run as new_run
from seqcore.files.runs import update_run as change_run
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.sequencing import SequencingObject, SequencingRun, UploadStatus
from seqcore.parsing.schemas import RunSchema
from seqcore.resources.runs import RunObjects, RunResource, RunTypeResource
from seqcore.rest.body import read_json
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import validation_error
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission

SEQUENCER_TYPE = re.compile(r"[a-z0-9\-_]+")
TYPE_MESSAGE = "Sequencer type can only contain lowercase letters, numbers, - or _."
CORE_KEYS = {"description", "uploadStatus", "layoutType", "sequencerType"}
READ_ONLY = {"identifier", "label", "createdDate", "modifiedDate", "links"}


def run_fields(run: SequencingRun) -> dict[str, Any]:
    created = run.created.strftime("%Y-%m-%d %H:%M:%S.0")
    fields: dict[str, Any] = {
        "description": run.description,
        "createdDate": epoch_ms(run.created),
        "modifiedDate": epoch_ms(run.modified or run.created),
        "uploadStatus": run.upload_status,
        "layoutType": run.layout_type,
        "sequencerType": run.sequencer_type,
        "label": f"SequencingRun {created}",
    }
    for key, value in (run.properties or {}).items():
        fields.setdefault(key, value)
    return fields


def run_entry(request: Request, context: RunResource) -> dict[str, Any]:
    return entry(request, context, run_fields(context.run), identifier=context.run.id)


def _split(data: dict[str, Any], creating: bool) -> tuple[dict[str, Any], dict[str, str],
                                                          dict[str, list[str]]]:
    """Core fields (typed by :class:`~seqcore.parsing.schemas.RunSchema`), run-sheet
    properties (as strings) and problems."""
    core: dict[str, Any] = {}
    sheet: dict[str, str] = {}
    problems: dict[str, list[str]] = {}
    typed_keys = set(RunSchema().fields)
    typed = {key: value for key, value in data.items() if key in typed_keys
             and not (creating and key == "uploadStatus" and value is None)}
    try:
        core.update(RunSchema().load(typed))
    except ValidationError as err:
        problems.update({key: list(messages)
                         for key, messages in err.normalized_messages().items()})
        core.update(err.valid_data or {})
    for key, value in data.items():
        if key in READ_ONLY or key in typed_keys:
            continue
        if key in CORE_KEYS:
            core[key] = value
        elif isinstance(value, dict | list | bool):
            problems[key] = ["Run-sheet values must be strings or numbers."]
        elif value is not None:
            sheet[key] = str(value)
    layout = core.get("layoutType")
    if creating and layout is None and "layoutType" not in problems:
        problems["layoutType"] = ["You must provide a layout type (SINGLE_END or PAIRED_END)."]
    status = core.get("uploadStatus")
    if creating and status not in (None, UploadStatus.UPLOADING.value):
        problems["uploadStatus"] = ["A new run is always UPLOADING."]
    return core, sheet, problems


def _sequencer_type(value: Any, problems: dict[str, list[str]]) -> str | None:
    if value is None:
        problems["sequencerType"] = ["You must provide a sequencer type."]
        return None
    text = str(value).lower()
    if not SEQUENCER_TYPE.fullmatch(text):
        problems["sequencerType"] = [TYPE_MESSAGE]
        return None
    return text


def create_run(request: Request) -> dict:
    context = request.context
    data = read_json(request)
    core, sheet, problems = _split(data, creating=True)
    if isinstance(context, RunTypeResource):
        sequencer_type = _sequencer_type(context.sequencer_type, problems)
        runs = context.__parent__
    else:
        sequencer_type = _sequencer_type(core.get("sequencerType"), problems)
        runs = context
    if problems or sequencer_type is None:  # a type missing or malformed is a problem
        raise validation_error(problems)
    run = new_run(request.db, request.identity.user_id, sequencer_type, core["layoutType"],
                  core.get("description"), sheet)
    run_ctx = RunResource(request, str(run.id), runs, run)
    request.response.status = 201
    request.response.location = url_for(request, run_ctx)
    return {"resource": run_entry(request, run_ctx)}


def list_runs(request: Request) -> dict:
    context = request.context
    runs = request.db.scalars(select(SequencingRun).order_by(SequencingRun.id))
    return collection(request, context, (
        run_entry(request, RunResource(request, str(r.id), context, r)) for r in runs))


def get_run(request: Request) -> dict:
    return {"resource": run_entry(request, request.context)}


def update_run(request: Request) -> dict:
    """Set ``uploadStatus`` (UPLOADING, COMPLETE or ERROR, in any order: the uploader
    re-opens a failed run to resume it) and run-sheet fields."""
    context: RunResource = request.context
    run = context.run
    core, sheet, problems = _split(read_json(request), creating=False)
    if "sequencerType" in core:
        sequencer_type = _sequencer_type(core["sequencerType"], problems)
    if problems:
        raise validation_error(problems)
    if "sequencerType" in core:
        core["sequencerType"] = sequencer_type
    change_run(request.db, run, core, sheet)
    return links_only([("self", url_for(request, context)),
                       ("collection", url_for(request, context.__parent__))])


def remove_run(request: Request) -> dict:
    """Delete the run, its sequencing objects with their files, and the samples it leaves
    empty (409, nothing changed, while an analysis used one of its objects)."""
    context: RunResource = request.context
    delete_run(request.db, request.registry.pm, request.storage, request.tm, context.run,
               request)
    return links_only([("collection", url_for(request, context.__parent__))])


def readable_object(request: Request, object_id: int) -> SequencingObject:
    """The sequencing object, if the caller may read its sample; else it does not exist for
    the caller (404)."""
    obj = request.db.get(SequencingObject, object_id)
    if obj is not None:
        try:
            sample_ctx = request.root["api"]["samples"][str(obj.sample_id)]
        except KeyError:
            sample_ctx = None
        if sample_ctx is not None and request.has_permission(Permission.SAMPLE_READ,
                                                             sample_ctx):
            return obj
    raise NotFound(f"The sequencing object {object_id} was not found.")


def add_run_object(request: Request) -> dict:
    """Attach an existing sequencing object to the run, as IRIDA's
    ``{"sequenceFileId": <object id>}``: an object attached to another run moves to this
    one. 201 with ``Location: .../sequenceFiles/{oid}``; the body is the run, linked there."""
    context: RunObjects = request.context
    obj = readable_object(request, object_id_from(read_json(request)))
    run = context.run
    attach_object(request.db, run, obj)
    run_ctx = context.__parent__
    location = url_for(request, context, str(obj.id))
    request.response.status = 201
    request.response.location = location
    return {"resource": entry(request, run_ctx, run_fields(run), self_href=location,
                              identifier=run.id)}


ENDPOINTS = [
    Endpoint("api.runs", "/api/sequencingrun", {
        "GET": View(list_runs, Permission.RUN_READ),
        "POST": View(create_run, Permission.RUN_CREATE),
    }, description="Sequencing runs (administrators read; sequencer accounts create)."),
    Endpoint("api.run", "/api/sequencingrun/{rid:\\d+}", {
        "GET": View(get_run, Permission.RUN_READ),
        "PATCH": View(update_run, Permission.RUN_UPDATE),
        "DELETE": View(remove_run, Permission.RUN_DELETE),
    }, description="One run; PATCH sets uploadStatus and run-sheet fields; DELETE "
                   "(administrators) removes it with its objects and the samples left empty."),
    Endpoint("api.run.sequencefiles", "/api/sequencingrun/{rid:\\d+}/sequenceFiles", {
        "POST": View(add_run_object, Permission.RUN_UPDATE),
    }, description="Attach an existing sequencing object to the run "
                   "({\"sequenceFileId\": <object id>})."),
    Endpoint("api.run.typed", "/api/sequencingrun/{type:[A-Za-z][A-Za-z0-9_\\-]*}", {
        "POST": View(create_run, Permission.RUN_CREATE),
    }, description="Create a run whose sequencer type is the path segment ('miseqrun' and "
                   "'seqmodelrun' mean miseq and seqmodel)."),
]
