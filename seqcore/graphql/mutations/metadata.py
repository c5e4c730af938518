"""``updateSampleMetadata`` and ``bulkUpdateSampleMetadata``.

Metadata arrives as IRIDA Next sends it, ``{field: value}`` (an object, or a JSON-encoded
string of one); REST's ``{field: {"value": ..., "type": ...}}`` entries are accepted too.
Both go through :func:`seqcore.samples.metadata.metadata_changes`, REST's rules and messages; an
empty or null value deletes the field. Writes merge (:func:`seqcore.samples.metadata.set_metadata`),
as REST's PUT does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import graphene
from sqlalchemy import select

from seqcore.errors.domain import DomainError, Invalid
from seqcore.graphql.mutations.base import (
    Problems,
    UserError,
    either,
    find_project,
    find_sample,
    problem,
    problems_from,
    run,
)
from seqcore.graphql.scalars import JSON
from seqcore.graphql.types import Sample
from seqcore.models.puid import SAMPLE as SAMPLE_KIND
from seqcore.models.puid import is_puid
from seqcore.models.sample import ProjectSample
from seqcore.models.sample import Sample as SampleModel
from seqcore.parsing.jsontext import JSONInputError, loads
from seqcore.samples.metadata import (
    Changes,
    lower_case_keys,
    metadata_changes,
    set_metadata,
    stored_spellings,
)
from seqcore.security.fieldaccess import Caller
from seqcore.security.permissions import Permission


def _object(value: Any, path: list[str]) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = loads(value)
        except json.JSONDecodeError as err:
            raise problem(f"JSON data is not formatted correctly. {err}", *path) from None
        except JSONInputError as err:
            raise problem(err.message, *path) from None
    if not isinstance(value, Mapping):
        raise problem("Metadata must be an object of {field: value}.", *path)
    return dict(value)


def parse(info: Any, value: Any, path: list[str]) -> Changes:
    """Entries to write and fields to delete, or every problem at once."""
    metadata = _object(value, path)
    if not metadata:
        raise problem("Metadata must not be empty.", *path)
    body = {key: item if isinstance(item, Mapping) else {"value": item}
            for key, item in metadata.items()}
    first: dict[str, str] = {}
    for key in body:
        folded = key.strip().lower()
        if folded in first and first[folded].strip() != key.strip():
            raise problem(f"Names the same field as {first[folded]!r} (field names are not "
                          "case-sensitive in GraphQL); send each field once.", *path, key)
        first.setdefault(folded, key)
    types = info.context.request.registry.get("seqcore.metadata_types", {})
    try:
        return metadata_changes(body, types, allow_delete=True)
    except Invalid as err:
        raise problems_from(err, path) from None


def keyed(info: Any, sample: SampleModel, changes: Changes) -> Changes:
    """IRIDA Next's rule for keys: lower case, or the spelling the sample already uses."""
    return lower_case_keys(changes, stored_spellings(info.context.db, sample.id))


class UpdateSampleMetadata(graphene.relay.ClientIDMutation):
    """Merge metadata into one sample."""

    class Input:
        sample_id = graphene.ID(description="The sample's global id (or give samplePuid).")
        sample_puid = graphene.ID(description="The sample's PUID.")
        metadata = JSON(required=True, description="{field: value}; an empty or null value "
                                                    "deletes the field.")

    sample = graphene.Field(Sample)
    status = graphene.Field(JSON, description="Fields added, updated, deleted, unchanged, "
                                              "and not_found (deletions of absent fields).")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, metadata: Any,
                               sample_id: str | None = None, sample_puid: str | None = None,
                               **_: Any) -> Any:
        def work() -> dict[str, Any]:
            sample = find_sample(info, either(sample_id, sample_puid, "sample"), ["sample"],
                                 Permission.SAMPLE_WRITE,
                                 "update").sample
            changes = keyed(info, sample, parse(info, metadata, ["metadata"]))
            status = set_metadata(info.context.db, [sample], [changes],
                                  caller=Caller.of(info.context.identity))[0]
            return {"sample": sample, "status": status}

        return run(info, cls, work)


class BulkUpdateSampleMetadata(graphene.relay.ClientIDMutation):
    """Merge metadata into many samples of a project, each sample on its own, as IRIDA Next
    does: the samples whose changes are valid are written, each in a savepoint of its own,
    and every other one is reported in ``errors``."""

    class Input:
        project_id = graphene.ID(description="The project's global id (or give projectPuid).")
        project_puid = graphene.ID(description="The project's PUID.")
        metadata = JSON(required=True, description="{<sample gid, PUID or name>: "
                                                    "{field: value}}")

    status = graphene.Field(JSON, description="Per sample written (as identified in the "
                                              "input): fields added, updated, deleted, ...")
    overall_status = graphene.String(description="`successful`, `successful with errors` "
                                                 "(some samples written, `errors` says why "
                                                 "the others were not) or `unsuccessful` "
                                                 "(nothing was written).")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, metadata: Any,
                               project_id: str | None = None, project_puid: str | None = None,
                               **_: Any) -> Any:
        def work() -> dict[str, Any]:
            db = info.context.db
            project = find_project(info, either(project_id, project_puid, "project"),
                                   "project", Permission.PROJECT_READ,
                                   "read").project
            by_sample = _object(metadata, ["metadata"])
            if not by_sample:
                raise problem("Metadata must not be empty.", "metadata")
            errors: list[dict[str, Any]] = []
            work_list: list[tuple[str, SampleModel, Changes]] = []
            named: dict[int, str] = {}  # sample id -> the key that named it
            twice: list[dict[str, Any]] = []
            for ident, values in by_sample.items():
                try:
                    sample = _sample_in(info, project.id, ident)
                    if sample.id in named:  # by global id and by name: one sample, twice
                        twice.extend(problem(f"Names the same sample as {named[sample.id]!r}; "
                                             "send each sample once.", "metadata",
                                             ident).errors)
                        continue
                    named[sample.id] = ident
                    work_list.append((ident, sample, parse(info, values, ["metadata", ident])))
                except Problems as err:
                    errors.extend(err.errors)
            if twice:  # which of the two was meant cannot be known: nothing is written
                raise Problems([*errors, *twice])
            caller = Caller.of(info.context.identity)
            status: dict[str, Any] = {}
            for ident, sample, changes in work_list:
                savepoint = db.begin_nested()
                try:
                    (status[ident],) = set_metadata(db, [sample], [keyed(info, sample, changes)],
                                                    caller=caller)
                    db.flush()
                except DomainError as err:
                    savepoint.rollback()
                    errors.extend(problems_from(err, ["metadata", ident]).errors)
                    continue
                savepoint.commit()
            if not status:
                raise Problems(errors)
            return {"status": status, "errors": errors,
                    "overall_status": "successful with errors" if errors else "successful"}

        payload = run(info, cls, work)
        if payload.status is None:
            payload.overall_status = "unsuccessful"
        return payload


def _sample_in(info: Any, project_id: int, ident: str) -> SampleModel:
    """A writable sample of the project, by global id, PUID or name."""
    path = ["metadata", ident]
    if ident.startswith("gid://") or is_puid(ident, SAMPLE_KIND):
        sample = find_sample(info, ident, path, Permission.SAMPLE_WRITE, "update").sample
        held = info.context.db.scalar(select(ProjectSample.id).where(
            ProjectSample.project_id == project_id, ProjectSample.sample_id == sample.id))
        if held is None:
            raise problem(f"Sample {ident} is not in the project.", *path)
        return sample
    sample_id = info.context.db.scalar(select(ProjectSample.sample_id).where(
        ProjectSample.project_id == project_id, ProjectSample.sample_name == ident))
    if sample_id is None:
        raise problem(f"No sample named '{ident}' in the project.", *path)
    return find_sample(info, info.context.gid("Sample", sample_id), path,
                       Permission.SAMPLE_WRITE, "update").sample
