"""Mutations on a project's declared metadata fields and templates (owners and
administrators), with :mod:`seqcore.samples.metadatafields`'s rules and messages."""

from __future__ import annotations

from typing import Any, ClassVar

import graphene
from sqlalchemy.orm import Session

from seqcore.errors.domain import Invalid, NotFound
from seqcore.graphql.metadatafields import MetadataField, MetadataTemplate, access_for
from seqcore.graphql.mutations.base import (
    UserError,
    find_project,
    problem,
    problems_from,
    run,
    validate,
)
from seqcore.models.fielddecl import MetadataField as FieldModel
from seqcore.models.fielddecl import MetadataTemplate as TemplateModel
from seqcore.parsing.schemas import MetadataFieldSchema, MetadataTemplateSchema, check
from seqcore.samples.metadatafields import (
    change_field,
    change_template,
    create_template,
    declare_field,
    get_field,
    get_template,
    remove_field,
    remove_template,
)
from seqcore.security.permissions import Permission

Errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))


def _owned(info: Any, gid: str, type_name: str, model: type) -> Any:
    """The field or template behind ``gid``, if the caller may change its project."""
    _, pk = info.context.parse(gid, type_name)
    found = info.context.db.get(model, pk)
    if found is None:
        raise problem(f"{type_name} not found by provided ID", "id")
    find_project(info, info.context.gid("Project", found.project_id), "id",
                 Permission.PROJECT_WRITE, "change")
    try:
        if model is FieldModel:
            return get_field(info.context.db, found.project_id, pk,
                             access_for(info, found.project_id))
        return get_template(info.context.db, found.project_id, pk)
    except NotFound:
        raise problem(f"{type_name} not found by provided ID", "id") from None


def _changes(schema: Any, values: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The given values of a change, checked with the domain's schema (absent ones stay
    absent)."""
    try:
        return check(schema, values, partial=True)
    except Invalid as err:
        raise problems_from(err, [prefix]) from None


def _given(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


class CreateMetadataField(graphene.relay.ClientIDMutation):
    """Declare a metadata field in a project."""

    class Input:
        project_id = graphene.ID(required=True)
        name = graphene.String(required=True)
        type = graphene.String(description="text (default), number, date or list")
        choices = graphene.List(graphene.NonNull(graphene.String))
        pattern = graphene.String()
        restriction = graphene.String(description="LEVEL_1 (default) to LEVEL_4")

    metadata_field = graphene.Field(MetadataField)
    errors = Errors

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str, **values: Any
                               ) -> Any:
        values.pop("client_mutation_id", None)

        def work() -> dict[str, Any]:
            project = find_project(info, project_id, "projectId", Permission.PROJECT_WRITE,
                                   "change").project
            data = validate(info, MetadataFieldSchema(), _given(**values), "metadataField", {})
            return {"metadata_field": declare_field(info.context.db, project.id, data)}  # type: ignore[arg-type]

        return run(info, cls, work)


class UpdateMetadataField(graphene.relay.ClientIDMutation):
    """Change a declared field's type, check or restriction level."""

    class Input:
        id = graphene.ID(required=True)
        type = graphene.String()
        choices = graphene.List(graphene.NonNull(graphene.String))
        pattern = graphene.String()
        restriction = graphene.String()

    metadata_field = graphene.Field(MetadataField)
    errors = Errors

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, id: str, **values: Any) -> Any:
        values.pop("client_mutation_id", None)

        def work() -> dict[str, Any]:
            field = _owned(info, id, "MetadataField", FieldModel)
            data = _changes(MetadataFieldSchema(), _given(**values), "metadataField")
            change_field(info.context.db, field, data)  # type: ignore[arg-type]
            return {"metadata_field": field}

        return run(info, cls, work)


class _DeleteOwned(graphene.relay.ClientIDMutation):
    """Delete the field or template ``id`` names, with :func:`_owned`'s rules (the same
    for both, so the two mutations answer alike); a subclass names the GraphQL type, the
    model and the domain's ``remove_*``."""

    class Meta:
        abstract = True

    class Input:
        id = graphene.ID(required=True)

    deleted_id = graphene.ID()
    errors = Errors

    type_name: ClassVar[str]
    model: ClassVar[type]
    remove: ClassVar[staticmethod[[Session, Any], None]]

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, id: str, **_: Any) -> Any:
        def work() -> dict[str, Any]:
            cls.remove(info.context.db, _owned(info, id, cls.type_name, cls.model))
            return {"deleted_id": id}

        return run(info, cls, work)


class DeleteMetadataField(_DeleteOwned):
    """Forget a field's declaration (its values stay, as free text)."""

    type_name = "MetadataField"
    model = FieldModel
    remove = staticmethod(remove_field)


class CreateMetadataTemplate(graphene.relay.ClientIDMutation):
    """Create a template: an ordered list of declared fields."""

    class Input:
        project_id = graphene.ID(required=True)
        name = graphene.String(required=True)
        description = graphene.String()
        fields = graphene.List(graphene.NonNull(graphene.String), required=True)

    metadata_template = graphene.Field(MetadataTemplate)
    errors = Errors

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, project_id: str, name: str,
                               fields: list[str], description: str | None = None, **_: Any
                               ) -> Any:
        def work() -> dict[str, Any]:
            project = find_project(info, project_id, "projectId", Permission.PROJECT_WRITE,
                                   "change").project
            data = validate(info, MetadataTemplateSchema(),
                            {"name": name, "description": description, "fields": fields},
                            "metadataTemplate", {})
            template = create_template(info.context.db, project.id, data["name"],
                                       data["description"], data["fields"])
            return {"metadata_template": template}

        return run(info, cls, work)


class UpdateMetadataTemplate(graphene.relay.ClientIDMutation):
    """Rename a template, change its description or its fields."""

    class Input:
        id = graphene.ID(required=True)
        name = graphene.String()
        description = graphene.String()
        fields = graphene.List(graphene.NonNull(graphene.String))

    metadata_template = graphene.Field(MetadataTemplate)
    errors = Errors

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, id: str, **values: Any) -> Any:
        values.pop("client_mutation_id", None)

        def work() -> dict[str, Any]:
            template = _owned(info, id, "MetadataTemplate", TemplateModel)
            data = _changes(MetadataTemplateSchema(), _given(**values), "metadataTemplate")
            change_template(info.context.db, template, data)
            return {"metadata_template": template}

        return run(info, cls, work)


class DeleteMetadataTemplate(_DeleteOwned):
    type_name = "MetadataTemplate"
    model = TemplateModel
    remove = staticmethod(remove_template)
