"""Samples: created in projects, shared between them, read and changed at ``/api/samples``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, cast

from pyramid.httpexceptions import HTTPFound
from pyramid.request import Request
from sqlalchemy import bindparam, exists, func, select
from sqlalchemy.exc import IntegrityError

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import links_for, links_template, url_for
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.parsing.identifiers import parse_id
from seqcore.parsing.jsontext import JSONInputError, declared_charset, decode_json
from seqcore.parsing.schemas import SampleSchema
from seqcore.rest.body import lenient_create, load, read_json, read_limited
from seqcore.rest.envelope import entry, links_only
from seqcore.rest.errors import ApiError, validation_error
from seqcore.rest.paging import page_links, paging
from seqcore.rest.streaming import encode, stream_collection
from seqcore.rest.values import epoch_ms
from seqcore.samples.samples import SampleValues, duplicate_name, remove_from_project
from seqcore.samples.samples import create_sample as new_sample
from seqcore.samples.samples import share_samples as add_to_project
from seqcore.samples.samples import update_sample as change_sample
from seqcore.security.fieldaccess import Caller, readable_entry
from seqcore.security.permissions import Permission

IDCOLLECTION = "application/idcollection+json"
SENTINEL = 918273645546372
FIELDS = {
    "sampleName": "name", "description": "description", "organism": "organism",
    "isolate": "isolate", "strain": "strain", "collectedBy": "collected_by",
    "collectionDate": "collection_date", "geographicLocationName": "geographic_location_name",
    "isolationSource": "isolation_source", "latitude": "latitude", "longitude": "longitude",
}


# The columns a sample is rendered from, in the order collections select them.
COLUMNS = (Sample.id, Sample.name, Sample.description, Sample.organism, Sample.isolate,
           Sample.strain, Sample.collected_by, Sample.collection_date,
           Sample.geographic_location_name, Sample.isolation_source, Sample.latitude,
           Sample.longitude, Sample.created, Sample.modified)


def fields_from_values(_id: int, name: str, description: str | None, organism: str | None,
                       isolate: str | None, strain: str | None, collected_by: str | None,
                       collection_date: Any, geographic_location_name: str | None,
                       isolation_source: str | None, latitude: str | None,
                       longitude: str | None, created: Any, modified: Any) -> dict[str, Any]:
    """The wire fields of a sample from its column values (in :data:`COLUMNS` order);
    positional so that a collection of 100,000 rows pays no attribute lookups."""
    return {
        "createdDate": epoch_ms(created),
        "modifiedDate": epoch_ms(modified),
        "sampleName": name,
        "description": description,
        "organism": organism,
        "isolate": isolate,
        "strain": strain,
        "collectedBy": collected_by,
        "collectionDate": collection_date.isoformat() if collection_date else None,
        "geographicLocationName": geographic_location_name,
        "isolationSource": isolation_source,
        "latitude": latitude,
        "longitude": longitude,
        "label": name,
    }


def sample_fields(sample: Sample) -> dict[str, Any]:
    """The wire fields of a sample object."""
    return fields_from_values(*(getattr(sample, column.key) for column in COLUMNS))


def sample_entry(request: Request, context: Any) -> dict[str, Any]:
    return entry(request, context, sample_fields(context.sample), identifier=context.sample.id)


# -- a project's samples ----------------------------------------------------------------------


@cache
def _project_samples() -> Any:
    """A project's samples by id (parameter ``project_id``), built once: the common request
    (no filter, no page) runs this very statement, whose cache key SQLAlchemy then keeps."""
    return (select(*COLUMNS)
            .join(ProjectSample, ProjectSample.sample_id == Sample.id)
            .where(ProjectSample.project_id == bindparam("project_id"))
            .order_by(Sample.id))


def project_samples_query(request: Request, project_id: int) -> tuple[Any, int | None, int]:
    """The samples query with the optional filters and page; ``(query, limit, page)``; its
    parameter ``project_id`` is bound to ``project_id``."""
    query = _project_samples()
    search = request.GET.get("search")
    if search:
        query = query.where(func.lower(Sample.name).contains(search.lower(), autoescape=True))
    for key, value in request.GET.items():
        if key.startswith("metadata.") and len(key) > len("metadata."):
            query = query.where(exists(select(MetadataEntry.id).where(
                MetadataEntry.sample_id == Sample.id, MetadataEntry.field == key[9:],
                MetadataEntry.value == value, readable_entry(Caller.of(request.identity)))))
    page = paging(request)
    if page.limit is not None:
        query = query.limit(page.limit + 1).offset(page.offset)
    return query, page.limit, page.page


def list_project_samples(request: Request) -> Any:
    from seqcore.resources.samples import ProjectSampleResource

    context = request.context
    query, limit, page = project_samples_query(request, context.project.id)
    sentinel_ctx = ProjectSampleResource(request, str(SENTINEL), context, Sample(id=SENTINEL))
    template = links_template(request, sentinel_ctx, str(SENTINEL))
    state = {"more": False}

    # The links of every entry are the sentinel's with the id substituted: encode them once.
    links_json = encode(template(str(SENTINEL))) if template is not None else None
    sentinel = str(SENTINEL)

    def render(rows: Iterable[Any]) -> Iterator[dict | str]:
        for n, row in enumerate(rows):
            if limit is not None and n == limit:
                state["more"] = True
                break
            identifier = str(row[0])
            if links_json is not None:
                fields = encode(fields_from_values(*row))
                yield (f'{fields[:-1]}, "links": {links_json.replace(sentinel, identifier)}, '
                       f'"identifier": "{identifier}"}}')
            else:  # some link depends on the sample's state: compute it per sample
                body = fields_from_values(*row)
                ctx = ProjectSampleResource(
                    request, identifier, context,
                    Sample(**{column.key: value for column, value in zip(COLUMNS, row,
                                                                         strict=True)}))
                body["links"] = links_for(request, ctx)
                body["identifier"] = identifier
                yield body

    def links() -> list[dict]:
        own = links_for(request, context)
        if request.query_string:
            own[0]["href"] = request.url
        return own + (page_links(request, page, state["more"]) if limit else [])

    return stream_collection(request, links, query, render,
                             params={"project_id": context.project.id})


def create_sample(request: Request) -> Any:
    if (request.content_type or "").lower() == IDCOLLECTION:
        return share_samples(request)
    project_id = request.context.project.id  # read now: a failed flush expires the session
    data = load(request, SampleSchema(), allow_unknown=lenient_create(request))
    sample = new_sample(request.db, project_id,
                        cast(SampleValues, {FIELDS[k]: v for k, v in data.items()}))
    try:
        request.db.flush()
    except IntegrityError:  # a concurrent create took the name first
        raise duplicate_name(data["sampleName"], project_id) from None
    # Answered as the project's sample (with ``sample/project`` and ``project/sample``), the
    # same body as a GET of /api/projects/{pid}/samples/{sid}; Location is the canonical
    # sample, as IRIDA's.
    from seqcore.resources.samples import ProjectSampleResource

    (join,) = sample.projects
    created = ProjectSampleResource(request, str(sample.id), request.context, sample, join)
    request.response.status = 201
    request.response.location = url_for(request, created.canonical)
    return {"resource": sample_entry(request, created)}


def _id_list(request: Request) -> list[int]:
    raw = read_limited(request)
    try:
        ids = decode_json(raw or b"null", declared_charset(request.headers.get("Content-Type")))
    except JSONInputError as err:
        raise ApiError(400, message=err.message) from None
    except json.JSONDecodeError:
        raise ApiError(400, message="Your request could not be parsed: send a JSON list of "
                                    "sample ids.") from None
    if not isinstance(ids, list) or not ids:
        raise ApiError(400, message="Send a non-empty JSON list of sample ids.")
    parsed = []
    for item in ids:
        sample_id = parse_id(item)
        if sample_id is None:
            raise ApiError(400, message=f"{item!r} is not a sample id.")
        parsed.append(sample_id)
    return list(dict.fromkeys(parsed))


def share_samples(request: Request) -> dict:
    """Copy (share) readable samples into this project; ``?ownership=true`` lets this
    project's owners change them too, so it needs ownership of each sample and of this
    project. Sequencer accounts may create samples anywhere and write every sample (the
    uploader), but own neither, so they cannot hand ownership around."""
    context = request.context
    project_ctx = context.__parent__
    project = project_ctx.project
    ownership = request.GET.get("ownership", "false").lower() == "true"
    if ownership and not request.has_permission(Permission.PROJECT_WRITE, project_ctx):
        raise ApiError(403, message=f"You may not give ownership of samples to project "
                                    f"{project.id}: only its owners may.")
    samples_root = request.root["api"]["samples"]
    targets = []
    missing = []
    for sample_id in _id_list(request):
        try:
            sample_ctx = samples_root[str(sample_id)]
        except KeyError:
            missing.append(sample_id)
            continue
        if not request.has_permission(Permission.SAMPLE_READ, sample_ctx):
            missing.append(sample_id)
            continue
        if ownership and not request.has_permission(Permission.SAMPLE_OWN, sample_ctx):
            raise ApiError(403, message=f"You may not give ownership of sample {sample_id}: "
                                        "you do not own it.")
        targets.append(sample_ctx.sample)
    if missing:
        raise ApiError(404, message="No such sample(s): " + ", ".join(map(str, missing)))
    joined, warnings = add_to_project(request.db, project.id, targets, ownership)
    request.response.status = 201
    entries = []
    for sample, join in joined:
        location = url_for(request, project_ctx, "samples", str(sample.id))
        request.response.headers.add("Location", location)
        entries.append(join_entry(request, project_ctx, sample, join))
    body: dict[str, Any] = {"resource": {"resources": entries, "links": [
        {"rel": "self", "href": url_for(request, context)}]}}
    if warnings:
        body["warnings"] = warnings
    return body


def join_entry(request: Request, project_ctx: Any, sample: Sample, join: ProjectSample
               ) -> dict[str, Any]:
    from seqcore.rest.views.projects import project_entry

    canonical = request.root["api"]["samples"][str(sample.id)]
    project = project_ctx.project
    return {
        "label": project.name,
        "resource": {
            "subject": project_entry(request, project_ctx),
            "object": sample_entry(request, canonical),
            "timestamp": epoch_ms(join.created),
            "createdDate": epoch_ms(join.created),
            "owner": join.owner,
            "label": project.name,
            "identifier": str(join.id),
        },
        "identifier": str(sample.id),
        "links": [
            {"rel": "self", "href": url_for(request, canonical)},
            {"rel": "project/sample", "href": url_for(request, project_ctx, "samples",
                                                      str(sample.id))},
            {"rel": "sample/sequenceFiles", "href": url_for(request, canonical,
                                                            "sequenceFiles")},
            {"rel": "sample/project", "href": url_for(request, project_ctx)},
        ],
    }


def sample_by_name(request: Request) -> Any:
    name = request.GET.get("sampleName")
    if not name:
        raise validation_error({"sampleName": ["You must provide a sampleName."]})
    return _redirect_to_named(request, name)


def sample_by_sequencer_id(request: Request) -> Any:
    """IRIDA's deprecated ``bySequencerId/{name}``: the name in the path, the same answer
    as ``bySampleName``."""
    return _redirect_to_named(request, request.matchdict["name"])


def _redirect_to_named(request: Request, name: str) -> HTTPFound:
    """302 to the sample called ``name`` in the project (the context is ``bySampleName``)."""
    project_ctx = request.context.__parent__.__parent__
    sample_id = request.db.scalar(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == project_ctx.project.id, ProjectSample.sample_name == name))
    if sample_id is None:
        raise ApiError(404, message=f"No sample named '{name}' in project "
                                    f"{project_ctx.project.id}.")
    return HTTPFound(location=url_for(request, request.root["api"]["samples"], sample_id))


def get_project_sample(request: Request) -> dict:
    return {"resource": sample_entry(request, request.context)}


def remove_project_sample(request: Request) -> dict:
    """Take the sample out of this project; delete it if no other project holds it."""
    context = request.context
    project_ctx = context.project_ctx
    remove_from_project(request.db, request.registry.pm, context.join, request)
    return links_only([("project/samples", url_for(request, project_ctx, "samples")),
                       ("project", url_for(request, project_ctx))])


# -- /api/samples/{id} ------------------------------------------------------------------------


def get_sample(request: Request) -> dict:
    return {"resource": sample_entry(request, request.context)}


def update_sample(request: Request) -> dict:
    """Change a sample's fields under REST's rules. A name sent back unchanged is no change:
    a sample named under GraphQL's IRIDA Next rule (``Outbreak 2022 Sample 1``) stays
    editable by clients that send the whole sample back."""
    sample: Sample = request.context.sample
    body = read_json(request)
    if body.get("sampleName") == sample.name:
        body = {key: value for key, value in body.items() if key != "sampleName"}
    data = load(request, SampleSchema(), body, partial=True)
    change_sample(request.db, sample, cast(SampleValues, {FIELDS[k]: v for k, v in data.items()}))
    name = sample.name  # read before the flush: a failed flush expires the session
    try:
        request.db.flush()
    except IntegrityError:
        raise duplicate_name(name, 0) from None
    return {"resource": sample_entry(request, request.context)}


ENDPOINTS = [
    Endpoint("api.project.samples", "/api/projects/{pid:\\d+}/samples", {
        "GET": View(list_project_samples, Permission.PROJECT_READ, renderer=None),
        "POST": View(create_sample, Permission.SAMPLE_CREATE),
    }, description="A project's samples (streamed; ?limit, ?page, ?search, ?metadata.<key>). "
                   "POST creates a sample, or shares samples with an id collection."),
    Endpoint("api.project.sample", "/api/projects/{pid:\\d+}/samples/{sid:\\d+}", {
        "GET": View(get_project_sample, Permission.PROJECT_READ),
        "DELETE": View(remove_project_sample, Permission.PROJECT_WRITE),
    }, description="A sample in a project; DELETE removes it (and deletes it when no other "
                   "project holds it)."),
    Endpoint("api.project.sample_by_name", "/api/projects/{pid:\\d+}/samples/bySampleName", {
        "GET": View(sample_by_name, Permission.PROJECT_READ, renderer=None),
    }, description="302 to the sample with ?sampleName=, or 404."),
    Endpoint("api.project.sample_by_sequencer_id",
             "/api/projects/{pid:\\d+}/samples/bySequencerId/{name}", {
                 "GET": View(sample_by_sequencer_id, Permission.PROJECT_READ, renderer=None),
             }, traverse="/api/projects/{pid}/samples/bySampleName",
             description="Deprecated alias of bySampleName (IRIDA's): 302 to the sample "
                         "named in the path, or 404."),
    Endpoint("api.sample", "/api/samples/{sid:\\d+}", {
        "GET": View(get_sample, Permission.SAMPLE_READ),
        "PATCH": View(update_sample, Permission.SAMPLE_WRITE),
    }, description="One sample."),
]
