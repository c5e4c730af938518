"""The root of the tree and the ``/api`` node."""

from __future__ import annotations

from functools import cache
from typing import Any

from pyramid.request import Request

from seqcore.resources.base import Context
from seqcore.security.access import API
from seqcore.security.permissions import Permission


class Root(Context):
    """The site root; only ``api`` lives under it (web pages use URL dispatch)."""

    def __init__(self, request: Request) -> None:
        super().__init__(request, "", None)

    def child(self, key: str) -> Any:
        if key == "api":
            return ApiRoot(self.request, "api", self)
        raise KeyError(key)


class ApiRoot(Context):
    """``/api``: administrators may do anything anywhere below; everyone else is granted
    permissions by the contexts further down."""

    __acl__ = API.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        children = _api_children()
        if key in children:
            return children[key](self.request, key, self)
        raise KeyError(key)


@cache
def _api_children() -> dict[str, type[Context]]:
    """The node classes under /api by name, built on first use (the collections' modules
    import this one): importing eight modules and building the table cost every /api
    request."""
    from seqcore.resources.analyses import SubmissionsCollection, TypesCollection
    from seqcore.resources.exports import ExportsCollection
    from seqcore.resources.groups import GroupsCollection
    from seqcore.resources.projects import ProjectsCollection
    from seqcore.resources.remotes import RemoteApisCollection
    from seqcore.resources.runs import RunsCollection
    from seqcore.resources.samples import SamplesCollection
    from seqcore.resources.users import UsersCollection

    return {
        "analysisSubmissions": SubmissionsCollection,
        "analysisTypes": TypesCollection,
        "users": UsersCollection,
        "groups": GroupsCollection,
        "exports": ExportsCollection,
        "projects": ProjectsCollection,
        "samples": SamplesCollection,
        "sequencingrun": RunsCollection,
        "version": VersionResource,
        "plugins": PluginsResource,
        "remoteapis": RemoteApisCollection,
    }


class VersionResource(Context):
    pass


class PluginsResource(Context):
    """The loaded plugins and their versions (administrators only)."""
