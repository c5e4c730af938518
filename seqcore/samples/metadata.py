"""Sample metadata: the registry of value types, the rules every write obeys, and the write
itself, shared by REST (``/api/samples/{id}/metadata``) and GraphQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyramid.config import Configurator
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Invalid
from seqcore.framework.contrib import MetadataType
from seqcore.governance.activity import operation
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.samples.metadatafields import check_values
from seqcore.security.fieldaccess import SERVICE, Caller, check_writable, sample_hidden_fields

#: What to write into one sample: ``field -> (value, type)``, and the fields to delete.
Changes = tuple[dict[str, tuple[str, str]], set[str]]

TEXT = MetadataType("text", "Free text (the default).")
MAX_KEY = 255


def add_metadata_type(config: Configurator, metadata_type: MetadataType) -> None:
    def register() -> None:
        config.registry.setdefault("seqcore.metadata_types", {})[metadata_type.name] = (
            metadata_type)

    config.action(("seqcore.metadata_type", metadata_type.name), register)


def parse_metadata(body: Mapping[str, Any], types: Mapping[str, MetadataType],
                   allow_delete: bool) -> tuple[dict[str, tuple[str, str]], set[str],
                                                dict[str, list[str]]]:
    """Check a ``{field: {"value": ..., "type": ...}}`` body.

    Returns the entries to write (``field -> (value, type)``), the fields to delete (a
    ``null`` or empty value, when ``allow_delete``), and the problems by field. Values are
    strings; numbers are accepted and stored as their text.
    """
    entries: dict[str, tuple[str, str]] = {}
    deletions: set[str] = set()
    problems: dict[str, list[str]] = {}
    seen: dict[str, str] = {}  # field name -> the key that named it
    for raw_key, item in body.items():
        key = raw_key.strip()
        if not key:
            problems.setdefault(raw_key, []).append("Metadata field names must not be empty.")
            continue
        if key in seen:
            # " a" and "a " name one field: which to write (or whether to delete it) would
            # depend on key order, so the write is refused.
            problems.setdefault(raw_key, []).append(
                f"Names the same field as {seen[key]!r} (field names are trimmed); send each "
                "field once.")
            continue
        seen[key] = raw_key
        if len(key) > MAX_KEY:
            problems.setdefault(raw_key, []).append(
                f"Metadata field names must be at most {MAX_KEY} characters long.")
            continue
        if not isinstance(item, Mapping):
            problems.setdefault(raw_key, []).append(
                'Each metadata entry must be an object {"value": "...", "type": "text"}.')
            continue
        unknown = set(item) - {"value", "type"}
        if unknown:
            problems.setdefault(raw_key, []).append(
                f"Unknown keys in a metadata entry: {', '.join(sorted(unknown))}; "
                "only 'value' and 'type' are accepted.")
            continue
        value = item.get("value")
        kind = item.get("type", "text")
        if not isinstance(kind, str) or kind not in types:
            problems.setdefault(raw_key, []).append(
                f"Unknown metadata type {kind!r}; known types: {', '.join(sorted(types))}.")
            continue
        if value is None or value == "":
            if allow_delete:
                deletions.add(key)
            continue
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            problems.setdefault(raw_key, []).append(
                "Metadata values must be strings (numbers are accepted as text), not objects, "
                "lists or booleans.")
            continue
        text = value if isinstance(value, str) else repr(value)
        error = types[kind].validate(text)
        if error:
            problems.setdefault(raw_key, []).append(error)
            continue
        entries[key] = (text, kind)
    return entries, deletions, problems


def metadata_changes(body: Mapping[str, Any], types: Mapping[str, MetadataType],
                     allow_delete: bool) -> Changes:
    """:func:`parse_metadata`'s entries and deletions, or :class:`~seqcore.errors.domain.Invalid`
    with every problem by field."""
    entries, deletions, problems = parse_metadata(body, types, allow_delete)
    if problems:
        raise Invalid(problems)
    return entries, deletions


def lower_case_keys(changes: Changes, spellings: Mapping[str, str]) -> Changes:
    """``changes`` under IRIDA Next's rule for keys (GraphQL's dialect): a key is its
    lower-case form, written under the spelling the sample or its projects already use for
    it (``spellings``, from :func:`stored_spellings`), so ``Serotype`` and ``serotype`` are
    one field whoever wrote it first."""
    entries, deletions = changes

    def key(field: str) -> str:
        return spellings.get(field.lower(), field.lower())

    return ({key(field): value for field, value in entries.items()},
            {key(field) for field in deletions})


def stored_spellings(db: Session, sample_id: int) -> dict[str, str]:
    """For each field the sample holds or one of its projects declares, its lower-case form
    and the spelling stored (the sample's own value first)."""
    from seqcore.models.fielddecl import MetadataField

    projects = select(ProjectSample.project_id).where(ProjectSample.sample_id == sample_id)
    spellings = {name.lower(): name for name in db.scalars(
        select(MetadataField.name).where(MetadataField.project_id.in_(projects))
        .order_by(MetadataField.id))}
    spellings.update((field.lower(), field) for field in db.scalars(
        select(MetadataEntry.field).where(MetadataEntry.sample_id == sample_id)
        .order_by(MetadataEntry.id)))
    return spellings


@operation("metadata.update")
def set_metadata(db: Session, samples: Sequence[Sample], changes: Sequence[Changes],
                 replace: bool = False, caller: Caller = SERVICE
                 ) -> list[dict[str, list[str]]]:
    """Write each sample's changes, all of them or (when the transaction aborts) none.

    ``replace`` drops every field not written now; otherwise the changes merge into what is
    there. Returns, per sample, the fields ``added``, ``updated``, ``deleted``,
    ``unchanged`` and ``not_found`` (deletions of absent fields). A value a person writes is
    no longer an analysis result or an NCBI accession, so its provenance is forgotten.

    ``caller`` is checked first (:func:`seqcore.security.fieldaccess.check_writable`: a field above
    its level is :class:`~seqcore.errors.domain.Forbidden`), then the values against the fields the
    samples' projects declare (:class:`~seqcore.errors.domain.Invalid`); nothing is written unless
    both pass. A replacement keeps the fields the caller may not read.
    """
    ids = [sample.id for sample in samples]
    for sample, (entries, deletions) in zip(samples, changes, strict=True):
        check_writable(db, caller, [sample.id], set(entries) | deletions)
        projects = db.scalars(select(ProjectSample.project_id).where(
            ProjectSample.sample_id == sample.id))
        check_values(db, projects, entries)
    current: dict[int, dict[str, MetadataEntry]] = {sample_id: {} for sample_id in ids}
    for entry in db.scalars(select(MetadataEntry).where(MetadataEntry.sample_id.in_(ids))):
        current[entry.sample_id][entry.field] = entry
    if replace:
        for sample in samples:
            existing = current[sample.id]
            kept = sample_hidden_fields(db, caller, sample.id, existing)
            for field in list(existing):
                if field not in kept:
                    db.delete(existing.pop(field))
        db.flush()
    now = utcnow()
    statuses = []
    for sample, (entries, deletions) in zip(samples, changes, strict=True):
        status: dict[str, list[str]] = {"added": [], "updated": [], "deleted": [],
                                        "unchanged": [], "not_found": []}
        existing = current[sample.id]
        for field in sorted(deletions):
            if field in existing:
                db.delete(existing.pop(field))
                status["deleted"].append(field)
            else:
                status["not_found"].append(field)
        for field, (value, kind) in entries.items():
            stored = existing.get(field)
            if stored is None:
                db.add(MetadataEntry(sample_id=sample.id, field=field, value=value, type=kind,
                                     writer_id=caller.user_id))
                status["added"].append(field)
            elif (stored.value, stored.type) != (value, kind):
                stored.value, stored.type, stored.modified = value, kind, now
                stored.submission_id = stored.ncbi_submission_id = stored.import_id = None
                stored.writer_id = caller.user_id
                status["updated"].append(field)
            else:
                status["unchanged"].append(field)
        sample.modified = now
        statuses.append(status)
    return statuses


def includeme(config: Configurator) -> None:
    config.add_directive("add_metadata_type", add_metadata_type)
