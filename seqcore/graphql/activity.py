"""GraphQL's view of the audit trail: ``activities`` on ``Project`` and ``Sample``
(:func:`seqcore.governance.activity.activities`, field restrictions honoured), and a sample's
``metadataProvenance``."""

from __future__ import annotations

from typing import Any

import graphene
from sqlalchemy import select

from seqcore.governance.activity import ActivityQuery, activities, provenance_of
from seqcore.graphql.scalars import JSON
from seqcore.models.sample import MetadataEntry
from seqcore.security.fieldaccess import Caller, readable_entry

MAX_FIRST = 100


class Activity(graphene.ObjectType):
    """One recorded change: what (``kind``, ``changes`` with before and after), who
    (``actor``) and when."""

    id = graphene.ID(required=True)
    kind = graphene.String(required=True)
    created_at = graphene.DateTime(required=True)
    actor = graphene.Field(JSON, required=True,
                           description="{type: user|client|token|analysis|ncbi|service, "
                                       "userId, name, clientId, tokenId, submissionId}")
    changes = graphene.Field(JSON, required=True)

    @staticmethod
    def resolve_id(entry: dict[str, Any], info: Any) -> str:
        return info.context.gid("Activity", entry["id"])

    @staticmethod
    def resolve_created_at(entry: dict[str, Any], info: Any) -> Any:
        return entry["created"]

    @staticmethod
    def resolve_kind(entry: dict[str, Any], info: Any) -> str:
        return entry["kind"]

    @staticmethod
    def resolve_actor(entry: dict[str, Any], info: Any) -> Any:
        return entry["actor"]

    @staticmethod
    def resolve_changes(entry: dict[str, Any], info: Any) -> Any:
        return entry["changes"]


def activity_field() -> graphene.Field:
    return graphene.NonNull(
        graphene.List(graphene.NonNull(Activity)),
        first=graphene.Int(default_value=25, description=f"At most {MAX_FIRST}."),
        kinds=graphene.List(graphene.NonNull(graphene.String)),
        since=graphene.DateTime(), until=graphene.DateTime(),
        before=graphene.ID(description="Only records older than this one (its id)."),
        description="The audit trail, newest first.")


def _naive(moment: Any) -> Any:
    """A time as stored (naive UTC)."""
    if moment is not None and moment.tzinfo is not None:
        from datetime import UTC

        return moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _query(info: Any, first: int, kinds: list[str] | None, since: Any, until: Any,
           before: str | None) -> ActivityQuery:
    before_id = info.context.parse(before, "Activity")[1] if before else None
    return ActivityQuery(since=_naive(since), until=_naive(until), kinds=tuple(kinds or ()),
                         limit=max(1, min(first, MAX_FIRST)), before_id=before_id)


def resolve_project_activities(project: Any, info: Any, first: int = 25,
                               kinds: list[str] | None = None, since: Any = None,
                               until: Any = None, before: str | None = None) -> list[Any]:
    query = _query(info, first, kinds, since, until, before)
    return activities(info.context.db, Caller.of(info.context.identity), query,
                      project_id=project.id)[0]


def resolve_sample_activities(sample: Any, info: Any, first: int = 25,
                              kinds: list[str] | None = None, since: Any = None,
                              until: Any = None, before: str | None = None) -> list[Any]:
    query = _query(info, first, kinds, since, until, before)
    return activities(info.context.db, Caller.of(info.context.identity), query,
                      sample_id=sample.id)[0]


def resolve_metadata_provenance(sample: Any, info: Any) -> dict[str, Any]:
    """``{field: {source: user|analysis|ncbiSubmission, id, updatedAt}}`` for the fields the
    caller may read, as IRIDA Next's ``metadata_provenance``."""
    rows = info.context.db.scalars(select(MetadataEntry).where(
        MetadataEntry.sample_id == sample.id,
        readable_entry(Caller.of(info.context.identity))).order_by(MetadataEntry.field))
    return {entry.field: {**(provenance_of(entry) or {"source": "user",
                                                       "id": entry.writer_id}),
                          "updatedAt": (entry.modified or entry.created).isoformat()}
            for entry in rows}
