"""GraphQL's view of a project's declared metadata fields, its templates and its
``metadataSummary``; each honours the caller's metadata level
(:func:`seqcore.security.fieldaccess.readable_fields`)."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.models.fielddecl import MetadataField as FieldModel
from seqcore.models.fielddecl import MetadataTemplate as TemplateModel
from seqcore.models.project import Project as ProjectModel
from seqcore.samples.metadatafields import project_fields, project_templates, template_columns
from seqcore.security.fieldaccess import Caller, FieldAccess, readable_fields


def access_for(info: Any, project_id: int) -> FieldAccess:
    """The caller's field access in a project, worked out once per request and project."""
    cache = info.context.__dict__.setdefault("_field_access", {})
    if project_id not in cache:
        cache[project_id] = readable_fields(info.context.db, Caller.of(info.context.identity),
                                            project_id)
    return cache[project_id]


class MetadataField(graphene.ObjectType):
    """A declared metadata field: its type, optional check, and restriction level."""

    id = graphene.ID(required=True)
    name = graphene.String(required=True)
    type = graphene.String(required=True, description="text, number, date or list")
    choices = graphene.List(graphene.NonNull(graphene.String))
    pattern = graphene.String()
    restriction = graphene.String(required=True, description="LEVEL_1 to LEVEL_4")

    @staticmethod
    def resolve_id(field: FieldModel, info: Any) -> str:
        return info.context.gid("MetadataField", field.id)


class MetadataTemplate(graphene.ObjectType):
    """An ordered list of declared fields (the columns of a line list)."""

    id = graphene.ID(required=True)
    name = graphene.String(required=True)
    description = graphene.String()
    fields = graphene.NonNull(graphene.List(graphene.NonNull(graphene.String)),
                              description="The field names the caller may read, in order.")

    @staticmethod
    def resolve_id(template: TemplateModel, info: Any) -> str:
        return info.context.gid("MetadataTemplate", template.id)

    @staticmethod
    def resolve_fields(template: TemplateModel, info: Any) -> list[str]:
        return template_columns(template, access_for(info, template.project_id))


def resolve_metadata_fields(project: ProjectModel, info: Any) -> list[FieldModel]:
    return project_fields(info.context.db, project.id, access_for(info, project.id))


def resolve_metadata_templates(project: ProjectModel, info: Any) -> list[TemplateModel]:
    return project_templates(info.context.db, project.id)


PROJECT_FIELDS = {
    "metadata_fields": graphene.NonNull(graphene.List(graphene.NonNull(MetadataField)),
                                        description="Declared metadata fields the caller may "
                                                    "read."),
    "metadata_templates": graphene.NonNull(graphene.List(graphene.NonNull(MetadataTemplate))),
}
