"""``/api/projects/{id}/metadataFields`` and ``/api/projects/{id}/metadataTemplates``: a
project's declared metadata fields (type, check, restriction level) and its templates.

Every member reads them, except the fields above its metadata level, which are not shown
(nor named by a template it reads); owners and administrators change them.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.fielddecl import MetadataField, MetadataTemplate
from seqcore.parsing.schemas import MetadataFieldSchema, MetadataTemplateSchema
from seqcore.rest.body import load
from seqcore.rest.envelope import links_only
from seqcore.rest.values import epoch_ms
from seqcore.samples.metadatafields import (
    change_field,
    change_template,
    create_template,
    declare_field,
    get_field,
    get_template,
    project_fields,
    project_templates,
    remove_field,
    remove_template,
    template_columns,
)
from seqcore.security.fieldaccess import Caller, FieldAccess, readable_fields
from seqcore.security.permissions import Permission


def _access(request: Request) -> FieldAccess:
    return readable_fields(request.db, Caller.of(request.identity),
                           request.context.project_id)


def _fields_url(request: Request) -> str:
    return url_for(request, request.context, "metadataFields")


def _templates_url(request: Request) -> str:
    return url_for(request, request.context, "metadataTemplates")


def field_entry(request: Request, field: MetadataField) -> dict[str, Any]:
    return {"name": field.name, "type": field.type, "choices": field.choices,
            "pattern": field.pattern, "restriction": field.restriction,
            "createdDate": epoch_ms(field.created), "modifiedDate": epoch_ms(field.modified),
            "identifier": str(field.id),
            "links": [{"rel": "self", "href": f"{_fields_url(request)}/{field.id}"},
                      {"rel": "project", "href": url_for(request, request.context)}]}


def template_entry(request: Request, template: MetadataTemplate, access: FieldAccess
                   ) -> dict[str, Any]:
    return {"name": template.name, "description": template.description,
            "fields": template_columns(template, access),
            "createdDate": epoch_ms(template.created),
            "modifiedDate": epoch_ms(template.modified), "identifier": str(template.id),
            "links": [{"rel": "self", "href": f"{_templates_url(request)}/{template.id}"},
                      {"rel": "project", "href": url_for(request, request.context)},
                      {"rel": "linelist", "href": url_for(request, request.context, "linelist")
                       + f"?template={template.id}"}]}


def _collection(resources: list[dict[str, Any]], self_href: str, project_href: str) -> dict:
    return {"resource": {"resources": resources, "links": [
        {"rel": "self", "href": self_href}, {"rel": "project", "href": project_href}]}}


def list_fields(request: Request) -> dict:
    fields = project_fields(request.db, request.context.project_id, _access(request))
    return _collection([field_entry(request, f) for f in fields], _fields_url(request),
                       url_for(request, request.context))


def create_field(request: Request) -> dict:
    data = load(request, MetadataFieldSchema())
    field = declare_field(request.db, request.context.project_id, data)  # type: ignore[arg-type]
    request.response.status = 201
    request.response.location = f"{_fields_url(request)}/{field.id}"
    return {"resource": field_entry(request, field)}


def _field(request: Request) -> MetadataField:
    return get_field(request.db, request.context.project_id, int(request.matchdict["fid"]),
                     _access(request))


def get_one_field(request: Request) -> dict:
    return {"resource": field_entry(request, _field(request))}


def update_field(request: Request) -> dict:
    field = _field(request)
    data = load(request, MetadataFieldSchema(), partial=True)
    change_field(request.db, field, data)  # type: ignore[arg-type]
    return {"resource": field_entry(request, field)}


def delete_field(request: Request) -> dict:
    remove_field(request.db, _field(request))
    return links_only([("collection", _fields_url(request))])


def list_templates(request: Request) -> dict:
    access = _access(request)
    templates = project_templates(request.db, request.context.project_id)
    return _collection([template_entry(request, t, access) for t in templates],
                       _templates_url(request), url_for(request, request.context))


def create_one_template(request: Request) -> dict:
    data = load(request, MetadataTemplateSchema())
    template = create_template(request.db, request.context.project_id, data["name"],
                               data["description"], data["fields"])
    request.response.status = 201
    request.response.location = f"{_templates_url(request)}/{template.id}"
    return {"resource": template_entry(request, template, _access(request))}


def _template(request: Request) -> MetadataTemplate:
    return get_template(request.db, request.context.project_id, int(request.matchdict["tid"]))


def get_one_template(request: Request) -> dict:
    return {"resource": template_entry(request, _template(request), _access(request))}


def update_template(request: Request) -> dict:
    template = _template(request)
    change_template(request.db, template, load(request, MetadataTemplateSchema(), partial=True))
    return {"resource": template_entry(request, template, _access(request))}


def delete_template(request: Request) -> dict:
    remove_template(request.db, _template(request))
    return links_only([("collection", _templates_url(request))])


PROJECT = "/api/projects/{pid}"
ENDPOINTS = [
    Endpoint("api.project.metadataFields", "/api/projects/{pid:\\d+}/metadataFields", {
        "GET": View(list_fields, Permission.PROJECT_READ),
        "POST": View(create_field, Permission.PROJECT_WRITE),
    }, traverse=PROJECT, description="The project's declared metadata fields (those above "
                                     "the caller's metadata level are not listed)."),
    Endpoint("api.project.metadataField", "/api/projects/{pid:\\d+}/metadataFields/{fid:\\d+}",
             {"GET": View(get_one_field, Permission.PROJECT_READ),
              "PATCH": View(update_field, Permission.PROJECT_WRITE),
              "DELETE": View(delete_field, Permission.PROJECT_WRITE)},
             traverse=PROJECT, description="One declared metadata field."),
    Endpoint("api.project.metadataTemplates", "/api/projects/{pid:\\d+}/metadataTemplates", {
        "GET": View(list_templates, Permission.PROJECT_READ),
        "POST": View(create_one_template, Permission.PROJECT_WRITE),
    }, traverse=PROJECT, description="The project's metadata templates."),
    Endpoint("api.project.metadataTemplate",
             "/api/projects/{pid:\\d+}/metadataTemplates/{tid:\\d+}",
             {"GET": View(get_one_template, Permission.PROJECT_READ),
              "PATCH": View(update_template, Permission.PROJECT_WRITE),
              "DELETE": View(delete_template, Permission.PROJECT_WRITE)},
             traverse=PROJECT, description="One metadata template."),
]
