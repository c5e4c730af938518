"""``linelistDownload``: a signed, short-lived link to a project's line list
(:mod:`seqcore.samples.linelist`), served at ``/downloads/linelist/<token>`` without credentials."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import graphene
from graphql import GraphQLError

from seqcore.errors.domain import DomainError, Invalid
from seqcore.samples.linelist import LINK_SECONDS, check_format, linelist_columns, sign_download
from seqcore.security.fieldaccess import Caller


class LinelistDownload(graphene.ObjectType):
    url = graphene.String(required=True, description="GET it (no credentials needed) until "
                                                     "expiresAt.")
    expires_at = graphene.DateTime(required=True)
    columns = graphene.NonNull(graphene.List(graphene.NonNull(graphene.String)),
                               description="The header row.")


async def resolve_linelist_download(root: Any, info: Any, project_id: str,
                                    template: str | None = None, format: str = "csv") -> Any:
    context = info.context
    _, pk = context.parse(project_id, "Project")
    project = await context.loaders.project.load(pk)
    if project is None:
        raise GraphQLError(f"Project {project_id} was not found or is hidden due to "
                           "permissions", extensions={"code": "not_found"})
    try:
        fmt = check_format(format)
        linelist = linelist_columns(context.db, Caller.of(context.identity), project.id,
                                    template)
    except Invalid as err:
        message = "; ".join(f"{key}: {text}" for key, texts in err.problems.items()
                            for text in texts) or err.message
        raise GraphQLError(message, extensions={"code": "bad_request"}) from None
    except DomainError as err:  # an unknown template
        raise GraphQLError(err.message, extensions={"code": "not_found"}) from None
    now = time.time()
    token = sign_download(context.request.registry["seqcore.download_secret"],
                          context.identity.user_id, project.id, template, fmt, now)
    return LinelistDownload(
        url=f"{context.request.application_url}/downloads/linelist/{token}",
        expires_at=datetime.fromtimestamp(int(now + LINK_SECONDS), UTC),
        columns=linelist.header)


def linelist_download_field() -> graphene.Field:
    return graphene.Field(
        LinelistDownload, required=True, project_id=graphene.ID(required=True),
        template=graphene.String(description="A template's id or name; default: every "
                                              "readable field."),
        format=graphene.String(default_value="csv", description="csv, tsv or xlsx"),
        description="A link to the project's line list.")
