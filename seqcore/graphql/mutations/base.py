"""What every mutation shares: the ``api`` scope, payload errors, lookups with the REST
permission rules, and all-or-nothing writes per mutation field.

Bad input is reported in the payload's ``errors`` (``[{message, path}]``) and writes
nothing: every mutation checks all of its input before it changes a row. The rules and
their messages are the domain's (:mod:`seqcore.parsing.schemas`, :mod:`seqcore.projects.projects`,
:mod:`seqcore.samples.samples`, :mod:`seqcore.samples.metadata`); a domain error becomes payload
errors here (:func:`problems_from`), with the input paths of GraphQL's arguments.

A request may hold several mutation fields; they run one after the other, each in a
savepoint of the request's transaction. A field that fails (payload errors, a conflict
with a concurrent write, an unexpected error) rolls back to its savepoint and leaves
nothing; the fields that succeeded are committed and report what they stored. So every
field's answer is true of the database afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import graphene
from graphql import GraphQLError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.errors.domain import DomainError, Invalid
from seqcore.models.project import Project as ProjectModel
from seqcore.models.puid import PROJECT as PROJECT_KIND
from seqcore.models.puid import SAMPLE as SAMPLE_KIND
from seqcore.models.puid import is_puid
from seqcore.models.sample import Sample as SampleModel
from seqcore.parsing.schemas import check
from seqcore.security.archived import archive_message, refused_by_archive
from seqcore.security.permissions import Permission

log = logging.getLogger(__name__)


class UserError(graphene.ObjectType):
    """A problem with the input: what, and which input it concerns."""

    message = graphene.String(required=True)
    path = graphene.List(graphene.NonNull(graphene.String))


class Problems(Exception):
    """Raised inside a mutation to answer with payload errors and write nothing."""

    def __init__(self, errors: Iterable[dict[str, Any]]) -> None:
        super().__init__("input problems")
        self.errors = list(errors)


def problem(message: str, *path: str) -> Problems:
    return Problems([{"message": message, "path": list(path)}])


def problems_from(err: DomainError, prefix: Sequence[str] = (),
                  names: Mapping[str, str] | None = None) -> Problems:
    """A domain error as payload errors: each field problem of an :class:`Invalid` at
    ``[*prefix, <GraphQL name of the field>]`` (``names`` maps the domain's field names that
    differ), any other refusal's message at ``prefix``."""
    if isinstance(err, Invalid) and not err.has_message and err.problems:
        names = names or {}
        return Problems({"message": message, "path": [*prefix, names.get(field, field)]}
                        for field, messages in err.problems.items() for message in messages)
    return Problems([{"message": err.message, "path": list(prefix)}])


def require_api_scope(info: Any) -> None:
    """Mutations need the ``api`` scope (a session has it; ``read_api`` tokens do not)."""
    if "api" not in info.context.identity.scopes:
        raise GraphQLError("You are not authorized to perform this action",
                           extensions={"code": "unauthorized"})


def _begin_writing(db: Session) -> None:
    """Make sure the request's transaction is open before its first savepoint.

    SQLite's Python driver opens a transaction only before a data change, so a savepoint
    taken first would open (and its release commit) the transaction itself. ``BEGIN
    IMMEDIATE`` opens it and takes the write lock at once, waiting its turn, rather than
    failing later on upgrading a read snapshot that another writer made stale."""
    connection = db.connection()
    if connection.dialect.name != "sqlite":
        return
    raw = connection.connection.dbapi_connection
    if raw is not None and not raw.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def run(info: Any, payload: type, work: Callable[[], dict[str, Any]]) -> Any:
    """Run ``work`` (which returns the payload's fields) in a savepoint of its own.

    :class:`Problems` become the payload's ``errors``; a database conflict found while
    writing (a concurrent request took a name) and any unexpected error become a GraphQL
    error at this field. In each case this field's writes are rolled back and the other
    mutation fields of the request are unaffected."""
    require_api_scope(info)
    db: Session = info.context.db
    _begin_writing(db)
    savepoint = db.begin_nested()
    try:
        fields = work()
        db.flush()
    except (Problems, DomainError) as err:
        savepoint.rollback()
        errors = err.errors if isinstance(err, Problems) else problems_from(err).errors
        return payload(errors=[UserError(**e) for e in errors])
    except IntegrityError:
        savepoint.rollback()
        raise GraphQLError("The change conflicted with a concurrent one and was not saved.",
                           extensions={"code": "conflict"}) from None
    except GraphQLError:
        savepoint.rollback()
        raise
    except Exception:
        log.exception("GraphQL mutation failed at %s", info.path.as_list())
        savepoint.rollback()
        raise GraphQLError("Internal server error; this mutation was not saved.",
                           extensions={"code": "internal_error"}) from None
    savepoint.commit()
    # A mutation that stores part of its input (attachFiles*) reports the rest as errors.
    errors = fields.pop("errors", [])
    return payload(errors=[UserError(**e) for e in errors], **fields)


def validate(info: Any, schema: Any, data: Mapping[str, Any], prefix: str,
             names: Mapping[str, str]) -> dict[str, Any]:
    """Validate with the domain's schema (REST's rules and messages); field problems become
    ``[prefix, <GraphQL field name>]`` payload errors."""
    try:
        return check(schema, data)
    except Invalid as err:
        raise problems_from(err, [prefix], names) from None


def api_context(info: Any, collection: str, pk: int) -> Any | None:
    """The REST resource context of ``pk`` in ``/api/<collection>``, whose permissions
    the mutation checks as REST's views do; ``None`` for one that does not exist, so the
    caller answers "not found" alike for an unknown object and one it may not read."""
    try:
        return info.context.request.root["api"][collection][str(pk)]
    except KeyError:
        return None


def _pk(info: Any, ident: str, type_name: str, model: Any, kind: str) -> int | None:
    """The id a global id or a PUID (of ``kind``) names: IRIDA Next's mutations take
    either (``projectId``/``projectPuid``); ``None`` for a PUID nothing has."""
    if is_puid(ident, kind):
        return info.context.db.scalar(select(model.id).where(model.puid == ident))
    return info.context.parse(ident, type_name)[1]


def either(gid: str | None, puid: str | None, name: str) -> str:
    """The one of ``<name>Id`` and ``<name>Puid`` given; a payload error for both or
    neither."""
    if (gid is None) == (puid is None):
        raise problem(f"Give exactly one of {name}Id and {name}Puid.", f"{name}Id")
    return gid if gid is not None else puid  # type: ignore[return-value]


def find_project(info: Any, gid: str, path: str, permission: Permission,
                 verb: str) -> Any:
    """The project context behind ``gid`` (a global id or a PUID) if the caller may
    ``permission`` it. Unknown and unreadable projects are both "not found" (REST's 404);
    readable ones the caller may not change say so (REST's 403)."""
    pk = _pk(info, gid, "Project", ProjectModel, PROJECT_KIND)
    context = api_context(info, "projects", pk) if pk is not None else None
    request = info.context.request
    if context is None or not request.has_permission(Permission.PROJECT_READ, context):
        raise problem("Project not found by provided ID", path)
    allowed = request.has_permission(permission, context)
    if not allowed:
        if refused_by_archive(allowed):
            raise problem(archive_message(info.context.db, context), path)
        raise problem(f"You are not authorized to {verb} project {context.project.name}.",
                      path)
    return context


def find_sample(info: Any, gid: str, path: list[str], permission: Permission,
                verb: str) -> Any:
    """The sample context behind ``gid`` (a global id or a PUID) if the caller may
    ``permission`` it."""
    pk = _pk(info, gid, "Sample", SampleModel, SAMPLE_KIND)
    context = api_context(info, "samples", pk) if pk is not None else None
    request = info.context.request
    if context is None or not request.has_permission(Permission.SAMPLE_READ, context):
        raise problem("Sample not found by provided ID", *path)
    allowed = request.has_permission(permission, context)
    if not allowed:
        if refused_by_archive(allowed):
            raise problem(archive_message(info.context.db, context), *path)
        raise problem(f"You are not authorized to {verb} sample {context.sample.name}.",
                      *path)
    return context
