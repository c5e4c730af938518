"""Sequence-data endpoints shared by every file kind: list, upload, object, file, QC."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyramid.request import Request
from pyramid.response import FileResponse, Response
from sqlalchemy import select

from seqcore.analysis.dependents import refuse_if_used
from seqcore.contentchecks import verify_gzip
from seqcore.contrib import Endpoint, FileKind, View
from seqcore.errors import Invalid
from seqcore.identifiers import parse_id
from seqcore.jsontext import JSONInputError, decode_json
from seqcore.links import url_for
from seqcore.models.sequencing import (
    SequenceFile,
    SequencingObject,
    SequencingRun,
)
from seqcore.resources.files import (
    SampleSequenceFiles,
    SequenceFileResource,
    SequencingObjectResource,
    SequencingObjects,
    file_kinds,
)
from seqcore.resources.runs import RunResource
from seqcore.rest.disposition import content_disposition
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import ApiError, api_error
from seqcore.rest.multipart import Part, Upload, parse_upload
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission
from seqcore.storage import StorageError
from seqcore.uploads import receive_upload, run_for_upload, store_file

RUN_KEYS = ("miseqRunId", "sequencingRunId")


# -- representations --------------------------------------------------------------------------


def file_fields(request: Request, sequence_file: SequenceFile) -> dict[str, Any]:
    """A stored file: its server path, name, size, checksum, and the upload's extra keys."""
    fields = {
        "file": str(request.storage.path(sequence_file.path)),
        "fileName": sequence_file.file_name,
        "fileSizeBytes": sequence_file.size,
        "uploadSha256": sequence_file.upload_sha256,
        "createdDate": epoch_ms(sequence_file.created),
        "modifiedDate": epoch_ms(sequence_file.modified or sequence_file.created),
        "label": sequence_file.file_name,
    }
    for key, value in (sequence_file.properties or {}).items():
        fields.setdefault(key, value)
    return fields


def file_entry(request: Request, context: SequenceFileResource, full_links: bool = False
               ) -> dict[str, Any]:
    """A file inside a collection or object carries only ``self``; on its own, the lot."""
    if full_links:
        return entry(request, context, file_fields(request, context.file),
                     identifier=context.file.id)
    return {**file_fields(request, context.file),
            "links": [{"rel": "self", "href": url_for(request, context)}],
            "identifier": str(context.file.id)}


def object_entry(request: Request, context: SequencingObjectResource) -> dict[str, Any]:
    obj = context.obj
    kind = context.kind
    fields: dict[str, Any] = {
        "createdDate": epoch_ms(obj.created),
        "modifiedDate": epoch_ms(obj.modified or obj.created),
        "processingState": obj.processing_state,
        "fileProcessor": obj.file_processor,
        "label": ", ".join(f.file_name for f in obj.files),
    }
    if obj.processing_error:
        fields["processingError"] = obj.processing_error
    if kind.describe is not None:
        fields.update(kind.describe(request, context))
    return entry(request, context, fields, identifier=obj.id)


def files_of(request: Request, context: SequencingObjectResource) -> list[dict[str, Any]]:
    """The object's files, each as listed inside an object (``self`` link only)."""
    return [file_entry(request, context.file_resource(f)) for f in context.obj.files]


# -- listing ----------------------------------------------------------------------------------


def list_objects(request: Request) -> dict:
    context: SequencingObjects = request.context
    objects = request.db.scalars(
        select(SequencingObject).where(SequencingObject.sample_id == context.sample.id,
                                       SequencingObject.kind == context.kind.name)
        .order_by(SequencingObject.id))
    return collection(request, context,
                      (object_entry(request, context.resource_for(o)) for o in objects))


def list_sample_files(request: Request) -> dict:
    """Every file of every object of the sample, each linked at its canonical place."""
    context: SampleSequenceFiles = request.context
    kinds = {k.name: k for k in file_kinds(request).values()}
    sample_ctx = context.__parent__
    rows = request.db.scalars(
        select(SequencingObject).where(SequencingObject.sample_id == context.sample.id)
        .order_by(SequencingObject.id))
    entries = []
    for obj in rows:
        kind = kinds.get(obj.kind)
        if kind is None:  # a kind whose plugin is no longer installed
            continue
        objects = SequencingObjects(request, kind.path_segment, sample_ctx, kind)
        entries.extend(files_of(request, objects.resource_for(obj)))
    return collection(request, context, entries)


# -- upload -----------------------------------------------------------------------------------


def _parameters(part: Part | None) -> dict[str, Any]:
    if part is None:
        return {}
    try:
        data = decode_json(bytes(part.data) or b"{}", None)
    except JSONInputError as err:
        raise ApiError(400, message=f"The part '{part.name}': {err.message}") from None
    except json.JSONDecodeError:
        raise ApiError(400, message=f"The part '{part.name}' is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, message=f"The part '{part.name}' must be a JSON object.")
    for key, value in data.items():
        if isinstance(value, dict | list):
            raise ApiError(400, message=f"'{key}' in '{part.name}' must be a string or a "
                                        "number.")
    return data


def _run_id(params: dict[str, Any]) -> int | None:
    for key in RUN_KEYS:
        value = params.get(key)
        if value not in (None, ""):
            run_id = parse_id(value) if isinstance(value, int | str) else None
            if run_id is None:
                raise ApiError(400, message=f"'{key}' must be a sequencing run id.")
            return run_id
    return None


def _properties(params: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in params.items() if k not in RUN_KEYS and v is not None}


def _expected_parts(kind: FileKind) -> tuple[list[str], list[str]]:
    if kind.files == 1:
        return ["file"], ["parameters"]
    names = [f"file{i}" for i in range(1, kind.files + 1)]
    return names, [f"parameters{i}" for i in range(1, kind.files + 1)]


def _may_see(request: Request, run: SequencingRun) -> bool:
    runs = request.root["api"]["sequencingrun"]
    run_ctx = RunResource(request, str(run.id), runs, run)
    return (request.has_permission(Permission.RUN_READ, run_ctx)
            or request.has_permission(Permission.RUN_UPDATE, run_ctx))


def receive(request: Request, kind: FileKind, sample_id: int) -> tuple[SequencingObject,
                                                                        list[SequenceFile]]:
    """Stream an upload of ``kind`` into storage and record it (:func:`receive_upload`);
    nothing stays on failure."""
    settings = request.registry.settings
    limit = int(settings["seqcore.upload.max_bytes"])
    file_names, param_names = _expected_parts(kind)
    # The kind's check sees the verification this upload gets (it depends on its size).
    check_settings = {**settings, "seqcore.upload.verify_gzip": verify_gzip(
        settings, request.content_length)}

    def check_for(part_name: str, file_name: str) -> Any:
        if part_name not in file_names or kind.content_check is None:
            return None
        return kind.content_check(check_settings)

    upload: Upload = parse_upload(request, request.storage, limit, check_for,
                                  file_parts=file_names, small_parts=param_names)
    try:
        allowed = set(file_names) | set(param_names)
        unexpected = sorted(set(upload.parts) - allowed)
        if unexpected:
            raise ApiError(400, message=f"Unexpected part(s) {', '.join(unexpected)}; this "
                                        f"upload takes {', '.join(sorted(allowed))}.")
        missing = [name for name in file_names if upload.file(name) is None]
        if missing:
            raise ApiError(400, message="Missing file part(s): " + ", ".join(missing) + ".")
        params = [_parameters(upload.parts.get(name)) for name in param_names]
        try:
            run = run_for_upload(request.db, [_run_id(p) for p in params],
                                 lambda run: _may_see(request, run))
            obj, stored, new = receive_upload(
                request, kind, sample_id, [upload.received(name) for name in file_names],
                [_properties(p) for p in params], run, upload)
        except Invalid as err:
            raise api_error(err) from None
        except StorageError as err:
            raise _not_stored(err) from None
        if not new:
            # The same files again (a client retrying, or re-running an upload): answer with
            # what is already stored instead of keeping a second copy.
            upload.discard()
        return obj, stored
    except BaseException:
        upload.discard()
        raise


def _not_stored(err: StorageError) -> ApiError:
    """507: the file system refused a received file."""
    return ApiError(507, message=f"The upload could not be stored: {err}")


def upload(request: Request) -> dict:
    context = request.context
    if isinstance(context, SampleSequenceFiles):  # POST /sequenceFiles: the default kind
        kind = next((k for k in file_kinds(request).values() if k.default_upload), None)
        if kind is None:
            raise ApiError(405, message="No file kind takes uploads here.")
        context = context.__parent__[kind.path_segment]
    kind = context.kind
    obj, stored = receive(request, kind, context.sample.id)
    obj_ctx = context.resource_for(obj)
    request.response.status = 201
    if kind.upload_response == "object":
        body = object_entry(request, obj_ctx)
        body["links"].append({"rel": "sample/sequenceFiles",
                              "href": url_for(request, obj_ctx.sample_ctx, "sequenceFiles")})
        request.response.location = url_for(request, obj_ctx)
        return {"resource": body}
    file_ctx = obj_ctx.file_resource(stored[0])
    request.response.location = url_for(request, file_ctx)
    return {"resource": upload_file_body(request, file_ctx)}


def upload_file_body(request: Request, file_ctx: SequenceFileResource) -> dict[str, Any]:
    obj_ctx = file_ctx.object_ctx
    body = file_entry(request, file_ctx)
    body["links"] = [
        {"rel": "sample/sequenceFiles", "href": url_for(request, obj_ctx.sample_ctx,
                                                        "sequenceFiles")},
        body["links"][0],
        {"rel": "sample", "href": url_for(request, obj_ctx.sample_ctx)},
        {"rel": "sequenceFile/sequencingObject", "href": url_for(request, obj_ctx)},
    ]
    return body


# -- objects, files, QC -----------------------------------------------------------------------


def get_object(request: Request) -> dict:
    return {"resource": object_entry(request, request.context)}


def delete_object(request: Request) -> dict:
    context: SequencingObjectResource = request.context
    refuse_if_used(request.db, f"The sequencing object {context.obj.id}",
                   object_ids=[context.obj.id])
    paths = [p for f in context.obj.files for p in (f.path, f.original_path) if p]
    file_ids = [f.id for f in context.obj.files]
    request.db.delete(context.obj)
    request.db.flush()
    for sequence_file in request.db.scalars(select(SequenceFile).where(
            SequenceFile.id.in_(file_ids))):
        request.db.delete(sequence_file)
    request.db.flush()
    request.storage.remove_after_commit(paths, request.tm)
    return links_only([("sample", url_for(request, context.sample_ctx)),
                       ("sample/sequenceFiles",
                        url_for(request, context.sample_ctx, "sequenceFiles"))])


def get_file(request: Request) -> Response | dict:
    """The file as JSON, or its bytes when ``Accept`` names one of the kind's media types."""
    context: SequenceFileResource = request.context
    kind = context.object_ctx.kind
    chosen = negotiate(request, ["application/json", *kind.media_types])
    if chosen != "application/json":
        return download(request, context, chosen)
    response = request.response
    response.content_type = "application/json"
    response.json_body = {"resource": file_entry(request, context, full_links=True)}
    return response


def negotiate(request: Request, offers: list[str], what: str = "This file") -> str:
    """The media type to answer with, from ``Accept`` (JSON first for ``*/*``); 406 if none."""
    acceptable = [offer for offer, _ in request.accept.acceptable_offers(offers)]
    if not acceptable:
        raise ApiError(406, message=f"{what} is available as " + ", ".join(offers) + ".")
    return acceptable[0]


def download(request: Request, context: Any, media_type: str) -> Response:
    hooked = request.registry.pm.hook.resolve_download(request=request, context=context,
                                                       media_type=media_type)
    if hooked is not None:
        return hooked
    path = request.storage.path(context.file.path)
    response = FileResponse(str(path), request=request, content_type=media_type)
    response.content_disposition = content_disposition(context.file.file_name)
    return response


def qc_fields(record: Any) -> dict[str, Any]:
    report = dict(record.report)
    overrepresented = [
        {**item, "createdDate": epoch_ms(record.created), "label": item.get("sequence"),
         "identifier": str(index)}
        for index, item in enumerate(report.pop("overrepresentedSequences", []), start=1)
    ]
    return {
        "createdDate": epoch_ms(record.created),
        "description": f"Analysis produced by {record.engine}",
        "executionManagerAnalysisId": "internal-fastqc",
        "additionalProperties": {},
        "analysisType": {"type": "FASTQC"},
        "fastQCReport": None,
        **report,
        "overrepresentedSequences": overrepresented,
        "label": "internal-fastqc",
    }


def get_qc(request: Request) -> dict:
    context = request.context
    return {"resource": entry(request, context, qc_fields(context.record),
                              identifier=context.record.id)}


ENDPOINTS = [
    Endpoint("api.sample.sequencefiles", "/api/samples/{sid:\\d+}/sequenceFiles", {
        "GET": View(list_sample_files, Permission.SAMPLE_READ),
        "POST": View(upload, Permission.SAMPLE_WRITE),
    }, description="Every file of the sample; POST uploads a single-end file."),
    Endpoint("api.sample.sequencefile", "/api/samples/{sid:\\d+}/sequenceFiles/{fid:\\d+}", {
        "GET": View(get_file, Permission.SAMPLE_READ, renderer=None),
    }, description="A file of the sample by id; Accept: application/fastq downloads it."),
]


def receive_file(request: Request, check: Callable[[], Any],
                 inspect: Callable[[Path], None] | None = None) -> SequenceFile:
    """A multipart upload of one file part named ``file`` (a ``parameters`` part is accepted
    and ignored, as IRIDA's uploader sends one), streamed into storage through ``check`` and
    kept by :func:`seqcore.uploads.store_file`.

    ``inspect(path)`` may look at the whole received file and raise (a domain error, or
    :class:`~seqcore.rest.errors.ApiError`) before it is kept. Returns the (unsaved)
    :class:`SequenceFile`; the stored file goes again if the request's transaction aborts.
    """
    limit = int(request.registry.settings["seqcore.upload.max_bytes"])
    upload = parse_upload(request, request.storage, limit,
                          lambda part, name: check() if part == "file" else None,
                          file_parts=["file"], small_parts=["parameters"])
    try:
        unexpected = sorted(set(upload.parts) - {"file", "parameters"})
        if unexpected:
            raise ApiError(400, message=f"Unexpected part(s) {', '.join(unexpected)}; this "
                                        "upload takes file (and parameters).")
        if upload.file("file") is None:
            raise ApiError(400, message="Missing file part(s): file.")
        try:
            return store_file(request.tm, upload.received("file"), inspect)
        except StorageError as err:
            raise _not_stored(err) from None
    except BaseException:
        upload.discard()
        raise
