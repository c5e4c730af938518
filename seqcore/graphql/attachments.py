"""Attachments in GraphQL, in IRIDA Next's shape: the ``Attachment`` type, its connection with
IRIDA Next's ``filter`` (Ransack arguments) and ``orderBy``, and the batch that serves the
connection for a whole page of owners at once.

``Sample.attachments``, ``Project.attachments``, ``Group.attachments`` and
``WorkflowExecution.attachments`` all ask
:func:`owner_attachments`; the request's ``attachments`` loader collects every owner asked for
with the same arguments during one pass and answers them with one statement (a window over
the owners), so a page of samples with their attachments costs the same at any size.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import graphene
from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session

from seqcore.files.attachments import Owner
from seqcore.graphql.connections import (
    Ordering,
    Page,
    _beyond,
    encode_cursor,
    page_arguments,
    trim_page,
)
from seqcore.graphql.filters import OrderDirection, plain
from seqcore.graphql.nodes import Node, _gid
from seqcore.graphql.ransack import EVERY_PREDICATE, Attribute, Kind, RansackFilter
from seqcore.graphql.scalars import JSON
from seqcore.models.attachment import Attachment as AttachmentModel
from seqcore.models.sequencing import SequenceFile
from seqcore.security.access import GROUP, PROJECT, SAMPLE, SUBMISSION
from seqcore.security.identity import Identity

AttachmentOrderField = graphene.Enum("AttachmentOrderField", [
    ("created_at", "created_at"), ("filename", "filename"), ("updated_at", "updated_at")])


class AttachmentOrder(graphene.InputObjectType):
    """Specify a sort for the attachments."""

    field = AttachmentOrderField(required=True)
    direction = OrderDirection(default_value="asc")


ATTRIBUTES: tuple[tuple[str, Kind], ...] = (
    ("byte_size", "integer"), ("created_at", "datetime"), ("filename", "text"),
    ("puid", "text"), ("updated_at", "datetime"))
ATTACHMENT_FILTER = RansackFilter(
    name="AttachmentFilter", description="Ransack filter: every argument given must hold.",
    attributes=tuple(Attribute(name, kind, EVERY_PREDICATE) for name, kind in ATTRIBUTES),
    # IRIDA Next's attachment filters compare case as given (a Ransack ``LIKE`` on
    # PostgreSQL), every value predicate has its _any/_all lists, and a flag is a yes
    # unless it says no.
    case_sensitive=True, any_all=True, unrecognised_flag=True,
    extra={
        "metadata_jcont": JSON(name="metadata_jcont", description=(
            "Attachments whose metadata contains these key/value pairs.")),
        "metadata_jcont_key": graphene.String(name="metadata_jcont_key", description=(
            "Attachments whose metadata has this key.")),
    })
AttachmentFilter = ATTACHMENT_FILTER.input_type()


def attachment_args() -> dict[str, Any]:
    """The arguments of every attachments connection (IRIDA Next's)."""
    return {"first": graphene.Int(), "last": graphene.Int(), "after": graphene.String(),
            "before": graphene.String(), "filter": AttachmentFilter(),
            "order_by": AttachmentOrder()}


def _updated() -> Any:
    return func.coalesce(AttachmentModel.modified, AttachmentModel.created)


def filter_conditions(given: Mapping[str, Any] | None) -> list[Any]:
    found = ATTACHMENT_FILTER.conditions(given, {
        "byte_size": SequenceFile.size, "created_at": AttachmentModel.created,
        "filename": SequenceFile.file_name, "puid": AttachmentModel.puid,
        "updated_at": _updated()})
    if given:
        contained = given.get("metadata_jcont")
        if isinstance(contained, str):
            contained = json.loads(contained)
        if isinstance(contained, Mapping):
            for key, value in contained.items():
                found.append(AttachmentModel.properties[key].as_string() == str(value))
        key = given.get("metadata_jcont_key")
        if key:
            found.append(AttachmentModel.properties[key].as_string().is_not(None))
    return found


def ordering(order_by: Any) -> tuple[Ordering, Any]:
    field = plain(order_by.get("field")) if order_by else "created_at"
    descending = bool(order_by) and plain(order_by.get("direction")) == "desc"
    if field == "filename":
        return (Ordering(SequenceFile.file_name, AttachmentModel.id, descending),
                lambda a: a.file.file_name)
    if field == "updated_at":
        return (Ordering(_updated(), AttachmentModel.id, descending, temporal=True),
                lambda a: a.modified or a.created)
    return (Ordering(AttachmentModel.created, AttachmentModel.id, descending, temporal=True),
            lambda a: a.created)


def _frozen(value: Any) -> Hashable:
    return json.dumps(value, sort_keys=True, default=str)


@dataclass(frozen=True)
class AttachmentsQuery:
    """One owner's connection arguments, hashable so the loader can batch by them."""

    owner: Owner
    arguments: str

    @classmethod
    def of(cls, owner: Owner, **arguments: Any) -> AttachmentsQuery:
        normal = {k: (plain(v) if not isinstance(v, Mapping) else
                      {ik: plain(iv) for ik, iv in v.items()})
                  for k, v in arguments.items() if v is not None}
        return cls(owner, str(_frozen(normal)))

    def args(self) -> dict[str, Any]:
        return json.loads(self.arguments)


def owner_attachments(info: Any, owner: Owner, **arguments: Any) -> Any:
    """The attachments connection of one owner (the owner is readable: it was resolved for
    this caller)."""
    return info.context.loaders.attachments.load(AttachmentsQuery.of(owner, **arguments))


def attachment_pages(db: Session, queries: list[AttachmentsQuery]) -> dict[Any, Page]:
    """Every query's page; queries with the same arguments and owner kind share one
    statement."""
    groups: dict[tuple[str, str], list[AttachmentsQuery]] = {}
    for query in queries:
        groups.setdefault((query.owner.kind, query.arguments), []).append(query)
    pages: dict[Any, Page] = {}
    for (kind, _), members in groups.items():
        pages.update(_pages(db, kind, members))
    return pages


def _pages(db: Session, kind: str, queries: list[AttachmentsQuery]) -> dict[Any, Page]:
    args = queries[0].args()
    order, sort_value = ordering(args.get("order_by"))
    first, last, after_key, before_key = page_arguments(
        order, args.get("first"), args.get("last"), args.get("after"), args.get("before"))
    owner_column = getattr(AttachmentModel, f"{kind}_id")
    owner_ids = [q.owner.id for q in queries]
    filters = filter_conditions(args.get("filter"))

    base = (select(AttachmentModel.id.label("aid"), owner_column.label("owner"),
                   func.count().over(partition_by=owner_column).label("total"))
            .join(SequenceFile, SequenceFile.id == AttachmentModel.file_id)
            .where(owner_column.in_(owner_ids), *filters))
    ranged = []
    if after_key is not None:
        ranged.append(_beyond(order, after_key, forward=True))
    if before_key is not None:
        ranged.append(_beyond(order, before_key, forward=False))
    forward = first is not None
    backwards = order.descending == forward  # the SQL order runs against the key's order
    key_order = (order.key.desc(), order.id.desc()) if backwards else (order.key.asc(),
                                                                        order.id.asc())
    limit = (first if forward else last) or 0
    numbered = (base.add_columns(func.row_number().over(partition_by=owner_column,
                                                        order_by=key_order).label("rn"))
                .where(*ranged) if ranged else
                base.add_columns(func.row_number().over(partition_by=owner_column,
                                                        order_by=key_order).label("rn")))
    inner = numbered.subquery()
    statement: Select = (select(AttachmentModel, inner.c.owner, inner.c.total, inner.c.rn)
                         .join(inner, inner.c.aid == AttachmentModel.id)
                         .where(inner.c.rn <= limit + 1)
                         .order_by(inner.c.owner, inner.c.rn))
    rows: dict[int, list[tuple[AttachmentModel, int]]] = {pk: [] for pk in owner_ids}
    for attachment, owner_id, total, _ in db.execute(statement):
        rows[owner_id].append((attachment, total))
    pages: dict[Any, Page] = {}
    for query in queries:
        found = rows[query.owner.id]
        items = [a for a, _ in found]
        items, has_next, has_previous = trim_page(items, first, last, after_key, before_key)
        total = found[0][1] if found else None
        pages[query] = Page(items, [encode_cursor(sort_value(a), a.id) for a in items],
                            has_next, has_previous,
                            _counter(db, query.owner, filters, total, bool(ranged)))
    return pages


def _counter(db: Session, owner: Owner, filters: list[Any], total: int | None,
             ranged: bool) -> Any:
    """The whole filtered count: the window's, unless a cursor narrowed the rows it saw."""
    if total is not None and not ranged:
        return lambda: total

    def count() -> int:
        return db.scalar(select(func.count()).select_from(AttachmentModel)
                         .join(SequenceFile, SequenceFile.id == AttachmentModel.file_id)
                         .where(owner.condition, *filters)) or 0

    return count


def readable_attachment(identity: Identity) -> Any:
    """A condition on ``Attachment`` true when the caller may read its owner (the same rules
    as the owners' ACLs, :mod:`seqcore.security.access`)."""
    user_id, role = identity.user_id, identity.role
    return or_(
        and_(AttachmentModel.sample_id.is_not(None),
             SAMPLE.readable(user_id, role, AttachmentModel.sample_id)),
        and_(AttachmentModel.project_id.is_not(None),
             PROJECT.readable(user_id, role, AttachmentModel.project_id)),
        and_(AttachmentModel.submission_id.is_not(None),
             SUBMISSION.readable(user_id, role, AttachmentModel.submission_id)),
        and_(AttachmentModel.group_id.is_not(None),
             GROUP.readable(user_id, role, AttachmentModel.group_id)))


class Attachment(graphene.ObjectType):
    """A file on a sample, a project, a group or a workflow execution."""

    class Meta:
        interfaces = (Node,)
        possible_types = (AttachmentModel,)

    attachment_url = graphene.String(required=True, description="Attachment download url")
    byte_size = graphene.Int(required=True, description="Attachment file size")
    created_at = graphene.DateTime(required=True)
    filename = graphene.String(required=True, description="Attachment file name")
    metadata = graphene.Field(JSON, required=True,
                              keys=graphene.List(graphene.NonNull(graphene.String)),
                              description="Metadata for the attachment")
    puid = graphene.ID(required=True, description="Persistent Unique Identifier of the "
                                                  "attachment, `INXT_ATT_...`.")
    updated_at = graphene.DateTime(required=True)

    resolve_id = staticmethod(_gid)

    @staticmethod
    def resolve_attachment_url(attachment: AttachmentModel, info: Any) -> str:
        base = info.context.request.application_url
        return f"{base}/api/attachments/{attachment.id}/download?key={attachment.download_key}"

    @staticmethod
    def resolve_byte_size(attachment: AttachmentModel, info: Any) -> int:
        return attachment.file.size

    @staticmethod
    def resolve_filename(attachment: AttachmentModel, info: Any) -> str:
        return attachment.file.file_name

    @staticmethod
    def resolve_metadata(attachment: AttachmentModel, info: Any,
                         keys: list[str] | None = None) -> dict[str, Any]:
        metadata = dict(attachment.properties or {})
        return metadata if keys is None else {k: metadata[k] for k in keys if k in metadata}

    @staticmethod
    def resolve_created_at(attachment: AttachmentModel, info: Any) -> Any:
        return attachment.created

    @staticmethod
    def resolve_updated_at(attachment: AttachmentModel, info: Any) -> Any:
        return attachment.modified or attachment.created

    @classmethod
    def get_node(cls, info: Any, pk: int) -> Any:
        return info.context.loaders.attachment.load(pk)
