"""``/api/projects/{id}/transfer`` and ``/api/groups/{id}/transfer`` (seqcore's): move a
project to another namespace, a group under another group or to the top
(:mod:`seqcore.projects.transfer`).

The destination group must be one the caller reads (another is "no such group", a 400, as
for a share); whether the caller may create in it and owns what it moves are the
operation's questions (403 when not).
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.framework.contrib import Endpoint, View
from seqcore.models.group import Group
from seqcore.parsing.schemas import GroupTransferSchema, ProjectTransferSchema
from seqcore.projects.ownership import check_owns_group, check_owns_project
from seqcore.projects.transfer import transfer_group, transfer_project
from seqcore.rest.body import load
from seqcore.rest.errors import ApiError
from seqcore.rest.views.groups import group_entry
from seqcore.rest.views.projects import project_entry
from seqcore.security.access import GROUP
from seqcore.security.permissions import Permission


def _readable_group(request: Request, group_id: int, field: str) -> Group:
    identity = request.identity
    group = request.db.scalar(select(Group).where(
        Group.id == group_id, GROUP.readable(identity.user_id, identity.role)))
    if group is None:
        raise Invalid.field(field, f"There is no group with id {group_id}.")
    return group


def _project_answer(request: Request, context: Any) -> dict[str, Any]:
    """The project's entry, with where it now lives and its (unchanged) PUID."""
    project = context.project
    resource = project_entry(request, context)
    resource.update({"namespace": project.namespace, "fullPath": project.full_path,
                     "groupIdentifier": None if project.group_id is None
                     else str(project.group_id), "puid": project.puid})
    return {"resource": resource}


def move_project(request: Request) -> dict:
    data = load(request, ProjectTransferSchema())
    # Who may move it before where to: one who may not is told so, whatever it named.
    check_owns_project(request.db, request.context.project, request.identity.user_id)
    group = None if data["groupId"] is None else _readable_group(request, data["groupId"],
                                                                 "groupId")
    context = request.context
    transfer_project(request.db, context.project, request.identity.user_id, group)
    return _project_answer(request, context)


def move_group(request: Request) -> dict:
    data = load(request, GroupTransferSchema())
    context = request.context
    check_owns_group(request.db, context.group, request.identity.user_id)
    parent = None
    if data["parentId"] is None:
        groups = request.root["api"]["groups"]
        if not request.has_permission(Permission.GROUP_CREATE, groups):
            raise ApiError(403, message="You may not create top-level groups.")
    else:
        parent = _readable_group(request, data["parentId"], "parentId")
    transfer_group(request.db, context.group, request.identity.user_id, parent)
    return {"resource": group_entry(request, context)}


ENDPOINTS = [
    Endpoint("api.project.transfer", "/api/projects/{pid:\\d+}/transfer", {
        "POST": View(move_project, Permission.PROJECT_WRITE),
    }, traverse="/api/projects/{pid}",
       description="Move the project into another group, or into your own namespace "
                   "(owners; its PUID stays, its full path changes)."),
    Endpoint("api.group.transfer", "/api/groups/{gid:\\d+}/transfer", {
        "POST": View(move_group, Permission.GROUP_READ),
    }, traverse="/api/groups/{gid}",
       description="Move the group, with its subgroups and projects, under another group "
                   "or to the top level (owners; PUIDs stay, full paths change)."),
]
