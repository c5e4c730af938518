"""A synchronized project's sync state on GraphQL's ``Project.remoteSync`` (a seqcore
extension: IRIDA Next has no synchronized projects)."""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.sync.state import is_running, sync_of


class RemoteSync(graphene.ObjectType):
    """How a project mirrored from a remote install stands (``docs/sync.md``)."""

    status = graphene.String(required=True, description="scheduled, updating, synchronized, "
                                                        "error or unauthorized.")
    error = graphene.String(description="Why the last sync failed; null when it did not.")
    running = graphene.Boolean(required=True, description="Whether a sync runs now.")
    last_sync_at = graphene.DateTime(description="When the last sync ended.")
    next_sync_at = graphene.DateTime(description="When the next one is due; null: only on "
                                                 "demand.")
    remote_url = graphene.String(required=True, description="The remote project's URL.")

    @staticmethod
    def resolve_running(row: Any, info: Any) -> bool:
        return is_running(row)

    @staticmethod
    def resolve_last_sync_at(row: Any, info: Any) -> Any:
        return row.last_sync

    @staticmethod
    def resolve_next_sync_at(row: Any, info: Any) -> Any:
        return row.next_sync


def remote_sync_field() -> graphene.Field:
    return graphene.Field(RemoteSync, description="The sync state when the project mirrors "
                                                  "a remote one; null otherwise (seqcore "
                                                  "extension).")


def resolve_remote_sync(project: Any, info: Any) -> Any:
    return sync_of(info.context.db, project.id)
