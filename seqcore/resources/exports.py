"""Data exports: ``/api/exports[/{id}[/download]]`` and a project's, ``/api/projects/{id}/
exports``.

An export's ACL comes from :data:`seqcore.security.access.EXPORT`: the account that asked reads,
downloads and deletes it while it is a member of the project (administrators always); to
anyone else it does not exist (404). A project's exports are made by whoever holds
``export:create`` on the project (members and owners) and listed for the caller from the
same rules' SQL condition.
"""

from __future__ import annotations

from typing import Any, cast

from seqcore.models.export import DataExport, ExportState
from seqcore.resources.base import Context, ProjectNode, int_key
from seqcore.security.access import EXPORT, EXPORTS, Ace
from seqcore.security.permissions import Permission


class ExportsCollection(Context):
    """``/api/exports``: the exports the caller may read."""

    __acl__ = EXPORTS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        export = self.db.get(DataExport, int_key(key))
        if export is None:
            raise KeyError(key)
        return ExportResource(self.request, key, self, export)

    def resource_for(self, export: DataExport) -> ExportResource:
        return ExportResource(self.request, str(export.id), self, export)


class ExportResource(Context):
    read_permission = EXPORT.read

    def __init__(self, request: Any, name: str, parent: Context, export: DataExport) -> None:
        super().__init__(request, name, parent)
        self.export = export

    @property
    def __acl__(self) -> list[Ace]:
        if not hasattr(self, "_acl"):
            self._acl = EXPORT.acl(self.db, self.export)
        return self._acl

    @property
    def ready(self) -> bool:
        return self.export.state == ExportState.READY.value

    def child(self, key: str) -> Any:
        if key == "download":
            return ExportDownload(self.request, key, self)
        raise KeyError(key)


class ExportDownload(Context):
    """``/api/exports/{id}/download``: the bundle; inherits the export's ACL."""

    has_self_link = False

    @property
    def export(self) -> DataExport:
        return self.__parent__.export  # type: ignore[no-any-return, union-attr]


class ProjectExports(Context):
    """``/api/projects/{id}/exports``: inherits the project's ACL (``export:create``)."""

    @property
    def project_ctx(self) -> ProjectNode:
        """The project this collection hangs below."""
        return cast(ProjectNode, self.__parent__)
