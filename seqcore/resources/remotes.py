"""``/api/remoteapis``: the remote APIs administrators register (other installs users
connect to). Nobody else holds a permission here, so every other caller is refused (403):
the names of remote APIs are no secret (every user sees them on ``/-/remotes``), their
addresses and clients are the administrators' business."""

from __future__ import annotations

from typing import Any

from seqcore.models.remote import RemoteApi
from seqcore.resources.base import Context, int_key
from seqcore.security.permissions import Permission


class RemoteApisCollection(Context):
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        remote = self.db.get(RemoteApi, int_key(key))
        if remote is None:
            raise KeyError(key)
        return RemoteApiResource(self.request, str(remote.id), self, remote)


class RemoteApiResource(Context):
    read_permission = Permission.API_READ

    def __init__(self, request: Any, name: str, parent: Context, remote: RemoteApi) -> None:
        super().__init__(request, name, parent)
        self.remote = remote
