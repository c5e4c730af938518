"""Operations on a project's declared metadata fields and templates, and the checks a
declared field puts on the values written to it.

Field types are IRIDA's: ``text``, ``number``, ``date`` (``YYYY-MM-DD``) and ``list`` (a
controlled vocabulary, ``choices``); ``pattern`` optionally adds a regular expression every
value must match in full. Values stay text in :class:`~seqcore.models.sample.MetadataEntry`;
the declaration only decides what may be written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Conflict, Invalid, NotFound
from seqcore.governance.activity import operation
from seqcore.models.fielddecl import MetadataField, MetadataTemplate, MetadataTemplateField
from seqcore.parsing.identifiers import parse_id
from seqcore.security.fieldaccess import LEVELS, FieldAccess

FIELD_TYPES = ("text", "number", "date", "list")
NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
MAX_NAME = 255


class FieldValues(TypedDict, total=False):
    name: str
    type: str
    choices: list[str] | None
    pattern: str | None
    restriction: str


def _check_declaration(values: Mapping[str, Any], current: MetadataField | None) -> None:
    problems: dict[str, list[str]] = {}
    name = values.get("name", current.name if current else None)
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        problems["name"] = ["A field name is required, without leading or trailing spaces."]
    elif len(name) > MAX_NAME:
        problems["name"] = [f"Field names must be at most {MAX_NAME} characters long."]
    kind = values.get("type", current.type if current else "text")
    if kind not in FIELD_TYPES:
        problems["type"] = [f"Must be one of: {', '.join(FIELD_TYPES)}."]
    choices = values.get("choices", current.choices if current else None)
    if kind == "list":
        if (not isinstance(choices, list) or not choices
                or not all(isinstance(c, str) and c for c in choices)):
            problems["choices"] = ["A list field needs a non-empty list of non-empty strings."]
        elif len(set(choices)) != len(choices):
            problems["choices"] = ["Choices must not repeat."]
    elif values.get("choices") is not None:
        problems["choices"] = ["Only list fields have choices."]
    pattern = values.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            problems["pattern"] = ["Must be a regular expression (text)."]
        else:
            try:
                re.compile(pattern)
            except re.error as err:
                problems["pattern"] = [f"Not a regular expression: {err}."]
    restriction = values.get("restriction", current.restriction if current else "LEVEL_1")
    if restriction not in LEVELS:
        problems["restriction"] = [f"Must be one of: {', '.join(LEVELS)}."]
    if problems:
        raise Invalid(problems)


def project_fields(db: Session, project_id: int, access: FieldAccess | None = None
                   ) -> list[MetadataField]:
    """The project's declared fields by name (only those ``access`` may read)."""
    fields = db.scalars(select(MetadataField).where(MetadataField.project_id == project_id)
                        .order_by(MetadataField.name))
    return [f for f in fields if access is None or access.can_read(f.name)]


def get_field(db: Session, project_id: int, field_id: int,
              access: FieldAccess | None = None) -> MetadataField:
    field = db.get(MetadataField, field_id)
    if field is None or field.project_id != project_id or (
            access is not None and not access.can_read(field.name)):
        raise NotFound("No such metadata field in this project.")
    return field


@operation("metadataField.create")
def declare_field(db: Session, project_id: int, values: FieldValues) -> MetadataField:
    """Declare a field; :class:`Conflict` if the project has one by that name."""
    _check_declaration(values, None)
    if db.scalar(select(MetadataField.id).where(MetadataField.project_id == project_id,
                                                MetadataField.name == values["name"])):
        raise Conflict(f"The project already declares a metadata field {values['name']!r}.")
    field = MetadataField(project_id=project_id, name=values["name"],
                          type=values.get("type", "text"), choices=values.get("choices"),
                          pattern=values.get("pattern"),
                          restriction=values.get("restriction", "LEVEL_1"))
    db.add(field)
    db.flush()
    return field


@operation("metadataField.update")
def change_field(db: Session, field: MetadataField, values: FieldValues) -> None:
    """Change a declaration; renaming is refused (the values are stored under the name)."""
    if "name" in values and values["name"] != field.name:
        raise Invalid.field("name", "A declared field cannot be renamed.")
    _check_declaration(values, field)
    for key in ("type", "choices", "pattern", "restriction"):
        if key in values:
            setattr(field, key, values[key])
    if field.type != "list":
        field.choices = None
    field.modified = utcnow()
    db.flush()


@operation("metadataField.delete")
def remove_field(db: Session, field: MetadataField) -> None:
    """Forget the declaration (the values stay, as undeclared free text)."""
    db.delete(field)
    db.flush()


def value_problem(field: MetadataField, value: str) -> str | None:
    """Why ``value`` cannot go into the declared ``field`` (``None``: it can)."""
    if field.type == "number" and not NUMBER.fullmatch(value):
        return f"{field.name!r} holds numbers; {value!r} is not one."
    if field.type == "date":
        try:
            date.fromisoformat(value)
        except ValueError:
            return f"{field.name!r} holds dates (YYYY-MM-DD); {value!r} is not one."
        if len(value) != 10:
            return f"{field.name!r} holds dates (YYYY-MM-DD); {value!r} is not one."
    if field.type == "list" and value not in (field.choices or []):
        return (f"{field.name!r} takes one of: {', '.join(field.choices or [])}; "
                f"not {value!r}.")
    if field.pattern and not re.fullmatch(field.pattern, value):
        return f"{value!r} does not match the pattern of {field.name!r}."
    return None


def check_values(db: Session, project_ids: Iterable[int],
                 entries: Mapping[str, tuple[str, str]]) -> None:
    """:class:`Invalid` (by field) when a value breaks a declaration of a project holding
    the sample."""
    ids = list(set(project_ids))
    if not entries or not ids:
        return
    problems: dict[str, list[str]] = {}
    for field in db.scalars(select(MetadataField).where(
            MetadataField.project_id.in_(ids), MetadataField.name.in_(list(entries)))):
        trouble = value_problem(field, entries[field.name][0])
        if trouble:
            problems.setdefault(field.name, []).append(trouble)
    if problems:
        raise Invalid(problems)


# -- templates ------------------------------------------------------------------------------


def project_templates(db: Session, project_id: int) -> list[MetadataTemplate]:
    return list(db.scalars(select(MetadataTemplate).where(
        MetadataTemplate.project_id == project_id).order_by(MetadataTemplate.name)))


def get_template(db: Session, project_id: int, template_id: int) -> MetadataTemplate:
    template = db.get(MetadataTemplate, template_id)
    if template is None or template.project_id != project_id:
        raise NotFound("No such metadata template in this project.")
    return template


def find_template(db: Session, project_id: int, key: str) -> MetadataTemplate:
    """A template by id or by name (line lists take either)."""
    query = select(MetadataTemplate).where(MetadataTemplate.project_id == project_id)
    found = None
    pk = parse_id(key)
    if pk is not None:
        found = db.scalar(query.where(MetadataTemplate.id == pk))
    found = found or db.scalar(query.where(MetadataTemplate.name == key))
    if found is None:
        raise NotFound(f"No metadata template {key!r} in this project.")
    return found


def template_columns(template: MetadataTemplate, access: FieldAccess | None = None
                     ) -> list[str]:
    """The template's field names in order (only those ``access`` may read)."""
    names = [entry.field.name for entry in template.entries]
    return names if access is None else access.visible(names)


def _fields_by_name(db: Session, project_id: int, names: Sequence[Any]) -> list[MetadataField]:
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise Invalid.field("fields", "A list of declared field names.")
    if len(set(names)) != len(names):
        raise Invalid.field("fields", "A field appears once in a template.")
    found = {f.name: f for f in db.scalars(select(MetadataField).where(
        MetadataField.project_id == project_id, MetadataField.name.in_(names)))}
    missing = [n for n in names if n not in found]
    if missing:
        raise Invalid.field("fields", "Not declared in this project: " + ", ".join(missing))
    return [found[n] for n in names]


def _set_entries(db: Session, template: MetadataTemplate, fields: Sequence[MetadataField]
                 ) -> None:
    if template.entries:
        template.entries.clear()
        db.flush()  # the old rows go before the new ones (one field once per template)
    for position, field in enumerate(fields):
        template.entries.append(MetadataTemplateField(field=field, field_id=field.id,
                                                      position=position))


def _check_name(db: Session, project_id: int, name: Any, exclude: int | None = None) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise Invalid.field("name", f"A template name is required (at most {MAX_NAME} "
                                    "characters).")
    query = select(MetadataTemplate.id).where(MetadataTemplate.project_id == project_id,
                                              MetadataTemplate.name == name)
    if exclude is not None:
        query = query.where(MetadataTemplate.id != exclude)
    if db.scalar(query) is not None:
        raise Conflict(f"The project already has a metadata template {name!r}.")


@operation("metadataTemplate.create")
def create_template(db: Session, project_id: int, name: str, description: str | None,
                    field_names: Sequence[str]) -> MetadataTemplate:
    _check_name(db, project_id, name)
    fields = _fields_by_name(db, project_id, field_names)
    template = MetadataTemplate(project_id=project_id, name=name, description=description)
    db.add(template)
    _set_entries(db, template, fields)
    db.flush()
    return template


@operation("metadataTemplate.update")
def change_template(db: Session, template: MetadataTemplate, values: Mapping[str, Any]
                    ) -> None:
    if "name" in values:
        _check_name(db, template.project_id, values["name"], exclude=template.id)
    fields = (_fields_by_name(db, template.project_id, values["fields"])
              if "fields" in values else None)
    if "name" in values:
        template.name = values["name"]
    if "description" in values:
        template.description = values["description"]
    if fields is not None:
        _set_entries(db, template, fields)
    template.modified = utcnow()
    db.flush()


@operation("metadataTemplate.delete")
def remove_template(db: Session, template: MetadataTemplate) -> None:
    db.delete(template)
    db.flush()
