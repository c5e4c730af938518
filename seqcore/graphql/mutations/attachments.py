"""``createDirectUpload`` and ``attachFilesTo<Owner>`` (IRIDA Next's upload path).

``createDirectUpload`` announces a file and answers where to ``PUT`` it (seqcore's own
storage endpoint, ``/api/directUploads/{key}``, or with an object-store backend a signed URL
of the store: :mod:`seqcore.files.directuploads`) and with which headers (``Content-Type`` and
the client's ``Content-MD5``, JSON-encoded as IRIDA Next sends them). ``attachFilesTo<Owner>``
attaches uploaded blobs by ``signedBlobId``; each owner kind is one entry of :data:`OWNERS`
(how to find it by gid or PUID, which permission attaching needs), and one call of
:func:`attach_files_mutation` makes its mutation (``attachFilesToSample``,
``attachFilesToProject``, ``attachFilesToGroup``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.files.attachments import Owner, announce, attach, signed_id
from seqcore.files.directuploads import upload_target
from seqcore.graphql.groups import Group
from seqcore.graphql.mutations.base import (
    UserError,
    api_context,
    problem,
    require_api_scope,
    run,
)
from seqcore.graphql.scalars import JSON
from seqcore.graphql.types import Project, Sample
from seqcore.models.group import Group as GroupModel
from seqcore.models.project import Project as ProjectModel
from seqcore.models.sample import Sample as SampleModel
from seqcore.security.archived import archive_message, refused_by_archive
from seqcore.security.permissions import Permission


class BigInt(graphene.Scalar):
    """An integer beyond 32 bits (file sizes), as IRIDA Next's ``BigInt``: a number or its
    decimal text."""

    @staticmethod
    def serialize(value: Any) -> str:
        return str(value)

    @staticmethod
    def parse_value(value: Any) -> int:
        if isinstance(value, bool):
            raise GraphQLError("BigInt takes an integer.")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise GraphQLError(f"BigInt takes an integer, not {value!r}.") from None

    @staticmethod
    def parse_literal(node: Any, _variables: Any = None) -> int:
        from graphql.language import ast

        if isinstance(node, ast.IntValueNode | ast.StringValueNode):
            return BigInt.parse_value(node.value)
        raise GraphQLError("BigInt takes an integer.")


class DirectUpload(graphene.ObjectType):
    """Represents direct upload credentials."""

    blob_id = graphene.ID(required=True, description="Created blob record ID")
    headers = graphene.String(required=True, description="HTTP request headers "
                                                         "(JSON-encoded)")
    signed_blob_id = graphene.ID(required=True, description="Created blob record signed ID")
    url = graphene.String(required=True, description="Upload URL")


class CreateDirectUpload(graphene.relay.ClientIDMutation):
    """Create blob to upload data to."""

    class Input:
        byte_size = BigInt(required=True, description="File size (bytes)")
        checksum = graphene.String(required=True, description="MD5 file checksum as base64")
        content_type = graphene.String(required=True, description="File content type")
        filename = graphene.String(required=True, description="Original file name")

    direct_upload = graphene.Field(DirectUpload, required=True)

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, byte_size: int, checksum: str,
                               content_type: str, filename: str, **_: Any) -> Any:
        require_api_scope(info)
        request = info.context.request
        try:
            blob = announce(request.db, info.context.identity.user_id, filename=filename,
                            content_type=content_type, checksum=checksum,
                            byte_size=byte_size,
                            limit=int(request.registry.settings["seqcore.upload.max_bytes"]),
                            max_pending=int(request.registry.settings[
                                "seqcore.upload.max_pending_direct_uploads"]))
        except Invalid as err:  # IRIDA Next answers bad arguments with a top-level error
            messages = [m for ms in err.problems.values() for m in ms] or [err.message]
            raise GraphQLError(messages[0], extensions={"code": "invalid"}) from None
        target = upload_target(request.storage, blob)
        if target is None:  # a local directory: the bytes come to seqcore
            url = f"{request.application_url}/api/directUploads/{blob.key}"
            headers = {"Content-Type": content_type, "Content-MD5": blob.checksum}
        else:  # an object store's signed URL: the bytes go straight to the store
            url, headers = target
        return cls(direct_upload=DirectUpload(
            url=url, headers=json.dumps(headers, separators=(",", ":")),
            blob_id=str(blob.id), signed_blob_id=signed_id(blob)))


@dataclass(frozen=True)
class OwnerSpec:
    """An owner kind of attachments, as ``attachFilesTo<Owner>`` finds it.

    :param kind: the owner column's stem (:class:`seqcore.files.attachments.Owner`).
    :param type_name: its GraphQL type (gids ``gid://<app>/<type_name>/<id>``).
    :param collection: its traversal collection under ``/api`` (ACLs decide).
    :param permission: what attaching needs on it.
    :param model: its model, with a ``puid`` column.
    :param graphql_type: the payload field's type (a callable, resolved late).
    :param refusal: when set, a caller who may read the owner but not attach gets IRIDA
        Next's top-level ``unauthorized`` error with this message (``{name}``: the owner's
        name) instead of a payload error.
    """

    kind: str
    type_name: str
    collection: str
    permission: Permission
    model: type[Any]
    graphql_type: Callable[[], type]
    refusal: str | None = None

    @property
    def read(self) -> Permission:
        return Permission(f"{self.kind}:read")


OWNERS = {
    "sample": OwnerSpec("sample", "Sample", "samples", Permission.SAMPLE_WRITE, SampleModel,
                        lambda: Sample),
    "project": OwnerSpec("project", "Project", "projects", Permission.PROJECT_WRITE,
                         ProjectModel, lambda: Project),
    # Maintainers and owners of the group or a group above it (IRIDA Next's
    # ``create_attachment?``, refused with its policy message).
    "group": OwnerSpec("group", "Group", "groups", Permission.GROUP_WRITE, GroupModel,
                       lambda: Group, refusal="You are not authorized to create attachments "
                                              "for group {name} on this server."),
}


def find_owner(info: Any, spec: OwnerSpec, gid: str | None, puid: str | None) -> Any:
    """The owner's context (its ACL) from a gid or a PUID, checked for ``spec.permission``;
    unknown and unreadable owners are both "not found"."""
    if gid is not None:
        _, pk = info.context.parse(gid, spec.type_name)
    else:
        pk = info.context.db.scalar(select(spec.model.id).where(spec.model.puid == puid))
    context = api_context(info, spec.collection, pk) if pk is not None else None
    request = info.context.request
    if context is None or not request.has_permission(spec.read, context):
        raise problem("not found by provided ID or PUID", spec.kind)
    allowed = request.has_permission(spec.permission, context)
    if not allowed:
        if refused_by_archive(allowed):
            raise problem(archive_message(info.context.db, context), spec.kind)
        if spec.refusal is not None:
            name = getattr(context, spec.kind).name
            raise GraphQLError(spec.refusal.format(name=name),
                               extensions={"code": "unauthorized"})
        raise problem(f"You are not authorized to attach files to this {spec.kind}.",
                      spec.kind)
    return context


def attach_files_mutation(spec: OwnerSpec) -> type[Any]:
    """``attachFilesTo<Owner>`` for one owner kind: input ``files`` (signedBlobIds) and one
    of ``<owner>Id``/``<owner>Puid``; payload ``<owner>``, ``status``, ``errors``."""
    name = spec.type_name
    id_arg, puid_arg = f"{spec.kind}_id", f"{spec.kind}_puid"

    def mutate_and_get_payload(cls: type[Any], /, root: Any, info: Any, files: list[str],
                               **given: Any) -> Any:
        gid, puid = given.get(id_arg), given.get(puid_arg)
        if (gid is None) == (puid is None):
            raise GraphQLError(f"Give exactly one of {spec.kind}Id and {spec.kind}Puid.",
                               extensions={"code": "invalid"})

        def work() -> dict[str, Any]:
            context = find_owner(info, spec, gid, puid)
            owner_row = getattr(context, spec.kind)
            request = info.context.request
            done = attach(request, Owner(spec.kind, owner_row.id), files,
                          info.context.identity.user_id,
                          request.registry.get("seqcore.file_kinds", {}))
            return {spec.kind: owner_row, "status": done.status, "errors": done.errors}

        return run(info, cls, work)

    input_fields = {
        "files": graphene.List(graphene.NonNull(graphene.String), required=True,
                               description=f"Files (signedBlobId) to attach to the {spec.kind}"),
        id_arg: graphene.ID(description=f"The Node ID of the {spec.kind}."),
        puid_arg: graphene.ID(description=f"Persistent Unique Identifier of the {spec.kind}."),
    }
    return type(f"AttachFilesTo{name}", (graphene.relay.ClientIDMutation,), {
        "__doc__": f"Attaches files to {spec.kind}.",
        "Input": type("Input", (), input_fields),
        spec.kind: graphene.Field(spec.graphql_type, description=f"The updated {spec.kind}."),
        "status": graphene.Field(JSON, description="The status of the mutation."),
        "errors": graphene.NonNull(graphene.List(graphene.NonNull(UserError))),
        "mutate_and_get_payload": classmethod(mutate_and_get_payload),
    })


AttachFilesToSample = attach_files_mutation(OWNERS["sample"])
AttachFilesToProject = attach_files_mutation(OWNERS["project"])
AttachFilesToGroup = attach_files_mutation(OWNERS["group"])
