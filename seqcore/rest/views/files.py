"""Sequence-data endpoints shared by every file kind: list, upload, object, file, QC."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.governance.purge import delete_sequencing_object
from seqcore.models.sequencing import (
    SequenceFile,
    SequencingObject,
)
from seqcore.qc.registration import fastqc_version_of
from seqcore.resources.files import (
    ObjectBatch,
    SampleSequenceFiles,
    SequenceFileResource,
    SequencingObjectResource,
    SequencingObjects,
    file_kinds,
)
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import ApiError
from seqcore.rest.storedfiles import stored_file_response

# Plugins import receive_file from here (until they import it from the public plugin API).
from seqcore.rest.uploads import receive, receive_file  # noqa: F401
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission
from seqcore.services import IQCEngine

# -- representations --------------------------------------------------------------------------


def file_fields(request: Request, sequence_file: SequenceFile) -> dict[str, Any]:
    """A stored file: its server path, name, size, checksum, and the upload's extra keys."""
    fields = {
        "file": request.storage.location(sequence_file.path),
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
    return object_entries(request, [context])[0]


def object_entries(request: Request, contexts: Sequence[SequencingObjectResource]
                   ) -> list[dict[str, Any]]:
    """The answers of several objects of one kind: the fields other plugins add come from
    one batch hook call for all of them (a plugin reads what it needs in one statement, not
    one per object), then from the per-object hook of plugins written against it."""
    if not contexts:
        return []
    kind = contexts[0].kind
    # Looked up for all of them at once where a kind or a link asks per object
    # (SequencingObjectResource.batched).
    batch = ObjectBatch([context.obj.id for context in contexts])
    for context in contexts:
        context.batch = batch
    all_fields = []
    for context in contexts:
        obj = context.obj
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
        all_fields.append(fields)
    hook = request.registry.pm.hook
    # Fields other plugins fill in (a pair's assembledGenome, from the assemblies plugin).
    for extras in hook.describe_sequencing_objects(
            request=request, contexts=list(contexts), kind=kind,
            fields=[dict(f) for f in all_fields]):
        for fields, extra in zip(all_fields, extras, strict=True):
            if extra:
                fields.update(extra)
    for context, fields in zip(contexts, all_fields, strict=True):
        for extra in hook.describe_sequencing_object(
                request=request, context=context, kind=kind, fields=dict(fields)):
            fields.update(extra)
    return [entry(request, context, fields, identifier=context.obj.id)
            for context, fields in zip(contexts, all_fields, strict=True)]


def _batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


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
    # In batches: the answer still streams, and plugins describe a batch in one statement.
    return collection(request, context, (
        answer for batch in _batched(objects, 100)
        for answer in object_entries(request, [context.resource_for(o) for o in batch])))


def list_sample_files(request: Request) -> dict:
    """Every file of every object of the sample, each linked at its canonical place."""
    context: SampleSequenceFiles = request.context
    kinds = {k.name: k for k in file_kinds(request).values()}
    sample_ctx = context.sample_ctx
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


def upload(request: Request) -> dict:
    context = request.context
    if isinstance(context, SampleSequenceFiles):  # POST /sequenceFiles: the default kind
        kind = next((k for k in file_kinds(request).values() if k.default_upload), None)
        if kind is None:
            raise ApiError(405, message="No file kind takes uploads here.")
        context = context.sample_ctx[kind.path_segment]
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
    delete_sequencing_object(request.db, request.storage, request.tm, context.obj)
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
    return stored_file_response(request, context.file.path, context.file.file_name,
                                media_type)


def qc_fields(record: Any, fastqc_version: str | None = None) -> dict[str, Any]:
    """IRIDA's FastQC record; ``fastqcVersion`` is the FastQC version whose numbers the
    report reproduces (:func:`seqcore.qc.registration.fastqc_version_of`)."""
    report = dict(record.report)
    # Kept for the QC report page; IRIDA's record has no such fields.
    report.pop("perBaseCounts", None)
    report.pop("lengthCounts", None)
    report.pop("gcDistribution", None)
    report.pop("duplicationLevels", None)
    report.pop("adapterContent", None)
    report.pop("perTileQuality", None)
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
        "fastqcVersion": fastqc_version,
        **report,
        "overrepresentedSequences": overrepresented,
        "label": "internal-fastqc",
    }


def get_qc(request: Request) -> dict:
    context = request.context
    version = fastqc_version_of(request.find_service(IQCEngine), context.record)
    return {"resource": entry(request, context, qc_fields(context.record, version),
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
