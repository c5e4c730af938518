"""Sample metadata: ``/api/samples/{id}/metadata`` and a project's whole metadata table."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import groupby
from typing import Any

from pyramid.request import Request
from sqlalchemy import and_, select

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.governance.activity import provenance_of
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.rest.body import read_json
from seqcore.rest.streaming import stream_collection
from seqcore.rest.values import epoch_ms
from seqcore.samples.metadata import metadata_changes, set_metadata
from seqcore.security.fieldaccess import (
    Caller,
    caller_kind,
    caller_params,
    readable_fields,
    readable_metadata,
)
from seqcore.security.permissions import Permission


def metadata_body(request: Request, sample_id: int, sample_name: str,
                  entries: Iterable[tuple[str, str, str]], prefix: str | None = None
                  ) -> dict[str, Any]:
    """``{"metadata": {field: {value, type}}, "links": [self, sample], ...}``."""
    sample_url = prefix + str(sample_id) if prefix else url_for(
        request, request.root["api"]["samples"], str(sample_id))
    return {
        "metadata": {field: {"value": value, "type": kind} for field, value, kind in entries},
        "sampleName": sample_name,
        "links": [{"rel": "self", "href": sample_url + "/metadata"},
                  {"rel": "sample", "href": sample_url}],
        "identifier": str(sample_id),
    }


def _provenance(entry: MetadataEntry) -> dict[str, Any]:
    """Where a value came from, as IRIDA Next's ``metadata_provenance``: ``{"source": "user"
    | "analysis" | "ncbiSubmission", "id", "updatedDate"}`` (``id``: the account, the
    analysis submission or the NCBI submission)."""
    source = provenance_of(entry) or {"source": "user", "id": entry.writer_id}
    return {**source, "updatedDate": epoch_ms(entry.modified or entry.created)}


def get_metadata(request: Request) -> dict:
    """The values the caller may read, with their provenance (one statement)."""
    sample: Sample = request.context.__parent__.sample
    caller = Caller.of(request.identity)
    read = readable_metadata(caller_kind(caller))
    params = {"sample_id": sample.id, **caller_params(caller)}
    entries: list[Any] = read.all(request.db.connection(),
                                  **{name: params[name] for name in read.variables})
    body = metadata_body(request, sample.id, sample.name,
                         [(e.field, e.value, e.type) for e in entries])
    body["metadataProvenance"] = {e.field: _provenance(e) for e in entries}
    return {"resource": body}


def _write(request: Request, replace: bool) -> dict:
    """Validate the whole body first, then write all of it or nothing."""
    sample: Sample = request.context.__parent__.sample
    types = request.registry.get("seqcore.metadata_types", {})
    changes = metadata_changes(read_json(request), types, allow_delete=not replace)
    set_metadata(request.db, [sample], [changes], replace=replace,
                 caller=Caller.of(request.identity))
    request.db.flush()
    return get_metadata(request)


def replace_metadata(request: Request) -> dict:
    return _write(request, replace=True)


def merge_metadata(request: Request) -> dict:
    return _write(request, replace=False)


def project_metadata(request: Request) -> Any:
    """Every sample of the project with the metadata the caller may read there, one entry per
    sample, by sample id."""
    project_samples = request.context.__parent__
    project_id = project_samples.project.id
    access = readable_fields(request.db, Caller.of(request.identity), project_id)
    shown = and_(MetadataEntry.sample_id == Sample.id, access.entries())
    query = (select(Sample.id, Sample.name, MetadataEntry.field, MetadataEntry.value,
                    MetadataEntry.type)
             .join(ProjectSample, ProjectSample.sample_id == Sample.id)
             .outerjoin(MetadataEntry, shown)
             .where(ProjectSample.project_id == project_id)
             .order_by(Sample.id, MetadataEntry.field))
    prefix = url_for(request, request.root["api"]["samples"]) + "/"

    def render(rows: Iterable[Any]) -> Iterator[dict]:
        for (sample_id, name), group in groupby(rows, key=lambda r: (r[0], r[1])):
            entries = [(r[2], r[3], r[4]) for r in group if r[2] is not None]
            yield metadata_body(request, sample_id, name, entries, prefix)

    links = [{"rel": "self", "href": url_for(request, request.context)}]
    return stream_collection(request, links, query, render)


ENDPOINTS = [
    Endpoint("api.sample.metadata", "/api/samples/{sid:\\d+}/metadata", {
        "GET": View(get_metadata, Permission.SAMPLE_READ),
        "POST": View(replace_metadata, Permission.SAMPLE_WRITE),
        "PUT": View(merge_metadata, Permission.SAMPLE_WRITE),
    }, description="A sample's metadata: POST replaces all of it, PUT merges (an empty or "
                   "null value removes that field)."),
    Endpoint("api.project.samples.metadata", "/api/projects/{pid:\\d+}/samples/metadata", {
        "GET": View(project_metadata, Permission.PROJECT_READ, renderer=None),
    }, description="The metadata of every sample in the project (streamed)."),
]
