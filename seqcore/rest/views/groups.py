"""``/api/groups``: groups, their subgroups, projects, members and shares; and
``/api/projects/{id}/shares``.

Every list shows what the caller may read by the rules of :mod:`seqcore.security.access` (the same
that GraphQL's ``groups``, ``group.descendantGroups`` and ``group.projects`` use), so both
transports answer alike. Access levels are written as IRIDA Next's names (``accessLevel``)
beside their numbers (``accessLevelValue``); requests may send either.
"""

from __future__ import annotations

from typing import Any, cast

from pyramid.request import Request
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.group import AccessLevel, Group, GroupHierarchy, GroupMember, GroupShare
from seqcore.models.project import Project
from seqcore.models.user import User
from seqcore.parsing.expiry import parse_expiry
from seqcore.parsing.schemas import (
    GroupLevelSchema,
    GroupMemberSchema,
    GroupSchema,
    ProjectSchema,
    ShareLevelSchema,
    ShareSchema,
)
from seqcore.projects.groups import (
    KEEP,
    add_group_member,
    change_group_member,
    change_share_level,
    create_group,
    parse_level,
    remove_group_member,
    share_with_group,
    unshare,
)
from seqcore.projects.projects import ProjectValues, new_project
from seqcore.rest.body import lenient_create, load
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import validation_error
from seqcore.rest.values import epoch_ms
from seqcore.rest.views.projects import FIELDS as PROJECT_FIELDS
from seqcore.rest.views.projects import archived_condition, project_entry
from seqcore.security.access import GROUP, PROJECT
from seqcore.security.permissions import Permission


def _flag(request: Request, name: str) -> bool:
    """A boolean query parameter: ``true``/``false`` (absent: false); anything else 400."""
    value = request.GET.get(name, "false").lower()
    if value not in ("true", "false"):
        raise validation_error({name: ["Must be true or false."]})
    return value == "true"


def _level_fields(level: int) -> dict[str, Any]:
    return {"accessLevel": AccessLevel(level).name, "accessLevelValue": level}


# -- groups -----------------------------------------------------------------------------------


def group_fields(group: Group) -> dict[str, Any]:
    return {"name": group.name, "path": group.path, "fullPath": group.full_path,
            "fullName": group.full_name, "description": group.description,
            "puid": group.puid,
            "parentIdentifier": None if group.parent_id is None else str(group.parent_id),
            "createdDate": epoch_ms(group.created), "modifiedDate": epoch_ms(group.modified),
            "label": group.name}


def group_entry(request: Request, context: Any) -> dict[str, Any]:
    return entry(request, context, group_fields(context.group), identifier=context.group.id)


def _groups_collection(request: Request) -> Any:
    return request.root["api"]["groups"]


def _readable_groups(request: Request) -> Any:
    identity = request.identity
    return select(Group).where(GROUP.readable(identity.user_id, identity.role))


def _group_list(request: Request, query: Any) -> dict:
    groups = _groups_collection(request)
    return collection(request, request.context, (
        group_entry(request, groups.resource_for(group))
        for group in request.db.scalars(query.order_by(Group.id))))


def list_groups(request: Request) -> dict:
    """Every group the caller may read."""
    return _group_list(request, _readable_groups(request))


def _created(request: Request, group: Group) -> dict:
    context = _groups_collection(request).resource_for(group)
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": group_entry(request, context)}


def create_top_group(request: Request) -> dict:
    data = load(request, GroupSchema())
    group = create_group(request.db, request.identity.user_id, data["name"], data.get("path"),
                         data.get("description"))
    return _created(request, group)


def get_group(request: Request) -> dict:
    return {"resource": group_entry(request, request.context)}


def list_subgroups(request: Request) -> dict:
    group = request.context.__parent__.group
    return _group_list(request, _readable_groups(request).where(Group.parent_id == group.id))


def create_subgroup(request: Request) -> dict:
    data = load(request, GroupSchema())
    parent = request.context.__parent__.group
    group = create_group(request.db, request.identity.user_id, data["name"], data.get("path"),
                         data.get("description"), parent)
    return _created(request, group)


# -- projects in a group ----------------------------------------------------------------------


def list_group_projects(request: Request) -> dict:
    """The readable projects in the group (``?includeSubGroups=true``: and below it; live
    ones, or archived ones with ``?archived=true``)."""
    group = request.context.__parent__.group
    identity = request.identity
    query = select(Project).where(PROJECT.readable(identity.user_id, identity.role),
                                  archived_condition(request))
    if _flag(request, "includeSubGroups"):
        query = query.join(GroupHierarchy, GroupHierarchy.descendant_id == Project.group_id
                           ).where(GroupHierarchy.ancestor_id == group.id)
    else:
        query = query.where(Project.group_id == group.id)
    projects = request.root["api"]["projects"]
    return collection(request, request.context, (
        project_entry(request, projects.resource_for(project))
        for project in request.db.scalars(query.order_by(Project.id))))


def create_group_project(request: Request) -> dict:
    """A project in the group's namespace, owned by the caller."""
    data = load(request, ProjectSchema(), allow_unknown=lenient_create(request))
    group = request.context.__parent__.group
    project = new_project(request.db, request.identity.user_id, request.identity.username,
                          cast(ProjectValues, {PROJECT_FIELDS[k]: v for k, v in data.items()}),
                          group=group)
    context = request.root["api"]["projects"].resource_for(project)
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": project_entry(request, context)}


# -- members ----------------------------------------------------------------------------------


def _member_entry(request: Request, group_ctx: Any, member: GroupMember, user: User,
                  source: Group) -> dict[str, Any]:
    inherited = source.id != group_ctx.group.id
    return {
        "userId": user.username, "email": user.email,
        **_level_fields(member.access_level),
        "inherited": inherited, "sourceGroupIdentifier": str(source.id),
        "createdDate": epoch_ms(member.created), "modifiedDate": epoch_ms(member.modified),
        "expiresAt": epoch_ms(member.expires_at), "label": user.username,
        "identifier": str(member.id),
        "links": [
            {"rel": "self", "href": url_for(request, group_ctx, "members", user.username)
             if not inherited else url_for(request, _groups_collection(request),
                                           str(source.id), "members", user.username)},
            {"rel": "user", "href": url_for(request, request.root["api"]["users"],
                                            str(user.id))},
            {"rel": "group", "href": url_for(request, _groups_collection(request),
                                             str(source.id))},
        ],
    }


def list_members(request: Request) -> dict:
    """Direct members and those of the groups above (``?directOnly=true``: direct only),
    nearest group first."""
    group_ctx = request.context.__parent__
    group = group_ctx.group
    query = (select(GroupMember, User, Group)
             .join(User, User.id == GroupMember.user_id)
             .join(Group, Group.id == GroupMember.group_id)
             .join(GroupHierarchy, GroupHierarchy.ancestor_id == GroupMember.group_id)
             .where(GroupHierarchy.descendant_id == group.id)
             .order_by(GroupHierarchy.depth, User.id))
    if _flag(request, "directOnly"):
        query = query.where(GroupMember.group_id == group.id)
    return collection(request, request.context, (
        _member_entry(request, group_ctx, member, user, source)
        for member, user, source in request.db.execute(query)))


def _user(request: Request, username: str) -> User:
    user = request.db.scalar(select(User).where(User.username == username))
    if user is None:
        raise validation_error({"userId": [f"There is no user with username '{username}'."]})
    return user


def _actor(request: Request) -> int | None:
    """Whose own level bounds a change (``None``: an administrator's, unbounded)."""
    return None if request.identity.is_admin else request.identity.user_id


def add_member(request: Request) -> dict:
    data = load(request, GroupMemberSchema())
    level = parse_level(data["accessLevel"])
    user = _user(request, data["userId"])
    group_ctx = request.context.__parent__
    member = add_group_member(request.db, group_ctx.group, user, level, _actor(request),
                              expires_at=parse_expiry(data["expiresAt"]))
    request.response.status = 201
    request.response.location = url_for(request, group_ctx, "members", user.username)
    return {"resource": _member_entry(request, group_ctx, member, user, group_ctx.group)}


def get_member(request: Request) -> dict:
    context = request.context
    group_ctx = context.__parent__.__parent__
    return {"resource": _member_entry(request, group_ctx, context.member, context.user,
                                      group_ctx.group)}


def change_member(request: Request) -> dict:
    data = load(request, GroupLevelSchema(), partial=False)
    if data.get("accessLevel") is None and "expiresAt" not in data:
        raise Invalid.field("accessLevel", "You must provide an accessLevel, an expiresAt, "
                                           "or both.")
    level = None if data.get("accessLevel") is None else parse_level(data["accessLevel"])
    expires_at = parse_expiry(data["expiresAt"]) if "expiresAt" in data else KEEP
    context = request.context
    group_ctx = context.__parent__.__parent__
    member = change_group_member(request.db, group_ctx.group, context.user, level,
                                 _actor(request), expires_at=expires_at)
    return {"resource": _member_entry(request, group_ctx, member, context.user,
                                      group_ctx.group)}


def remove_member(request: Request) -> dict:
    context = request.context
    group_ctx = context.__parent__.__parent__
    remove_group_member(request.db, group_ctx.group, context.user, _actor(request))
    return links_only([("group/members", url_for(request, group_ctx, "members")),
                       ("group", url_for(request, group_ctx))])


# -- shares -----------------------------------------------------------------------------------


def _share_entry(request: Request, shares_ctx: Any, share: GroupShare, grantee: Group
                 ) -> dict[str, Any]:
    return {
        "groupIdentifier": str(grantee.id), "groupFullPath": grantee.full_path,
        **_level_fields(share.access_level),
        "createdDate": epoch_ms(share.created), "identifier": str(share.id),
        "links": [
            {"rel": "self", "href": url_for(request, shares_ctx, str(share.id))},
            {"rel": "group", "href": url_for(request, _groups_collection(request),
                                             str(grantee.id))},
        ],
    }


def _shares_query(shares_ctx: Any) -> Any:
    owner = shares_ctx.__parent__
    query = select(GroupShare, Group).join(Group, Group.id == GroupShare.group_id)
    if hasattr(owner, "group"):
        return query.where(GroupShare.shared_group_id == owner.group.id)
    return query.where(GroupShare.project_id == owner.project_id)


def list_shares(request: Request) -> dict:
    """The groups the group or project is shared with."""
    context = request.context
    rows = request.db.execute(_shares_query(context).order_by(GroupShare.id))
    return collection(request, context, (
        _share_entry(request, context, share, grantee) for share, grantee in rows))


def add_share(request: Request) -> dict:
    """Share the group or project with the group ``groupId`` (one the caller may read) up
    to ``accessLevel``."""
    data = load(request, ShareSchema())
    level = parse_level(data["accessLevel"])
    identity = request.identity
    grantee = request.db.scalar(select(Group).where(
        Group.id == data["groupId"], GROUP.readable(identity.user_id, identity.role)))
    if grantee is None:
        raise Invalid.field("groupId", f"There is no group with id {data['groupId']}.")
    context = request.context
    owner = context.__parent__
    if hasattr(owner, "group"):
        share = share_with_group(request.db, grantee, level, group=owner.group,
                                 actor_id=_actor(request))
    else:
        share = share_with_group(request.db, grantee, level, project=owner.project,
                                 actor_id=_actor(request))
    request.response.status = 201
    request.response.location = url_for(request, context, str(share.id))
    return {"resource": _share_entry(request, context, share, grantee)}


def get_share(request: Request) -> dict:
    context = request.context
    grantee = request.db.get(Group, context.share.group_id)
    return {"resource": _share_entry(request, context.__parent__, context.share, grantee)}


def change_share(request: Request) -> dict:
    """Give the share another ``accessLevel`` (no higher than the caller's own)."""
    data = load(request, ShareLevelSchema())
    context = request.context
    share = change_share_level(request.db, context.share, parse_level(data["accessLevel"]),
                               actor_id=_actor(request))
    grantee = request.db.get(Group, share.group_id)
    return {"resource": _share_entry(request, context.__parent__, share, grantee)}


def remove_share(request: Request) -> dict:
    context = request.context
    unshare(request.db, context.share)
    return links_only([("shares", url_for(request, context.__parent__))])


GID = "{gid:\\d+}"
ENDPOINTS = [
    Endpoint("api.groups", "/api/groups", {
        "GET": View(list_groups, Permission.API_READ),
        "POST": View(create_top_group, Permission.GROUP_CREATE),
    }, description="Groups the caller can read; POST creates a top-level group owned by the "
                   "caller."),
    Endpoint("api.group", f"/api/groups/{GID}", {
        "GET": View(get_group, Permission.GROUP_READ),
    }, description="One group."),
    Endpoint("api.group.groups", f"/api/groups/{GID}/groups", {
        "GET": View(list_subgroups, Permission.GROUP_READ),
        "POST": View(create_subgroup, Permission.GROUP_WRITE),
    }, description="The groups directly below; POST creates one (maintainers and owners)."),
    Endpoint("api.group.projects", f"/api/groups/{GID}/projects", {
        "GET": View(list_group_projects, Permission.GROUP_READ),
        "POST": View(create_group_project, Permission.GROUP_WRITE),
    }, description="Readable projects in the group (`?includeSubGroups=true`: and below); "
                   "POST creates one in the group's namespace (maintainers and owners)."),
    Endpoint("api.group.members", f"/api/groups/{GID}/members", {
        "GET": View(list_members, Permission.GROUP_READ),
        "POST": View(add_member, Permission.GROUP_WRITE),
    }, description="Members, direct and inherited from the groups above "
                   "(`?directOnly=true`); POST adds a direct member at an access level."),
    Endpoint("api.group.member", f"/api/groups/{GID}/members/{{username}}", {
        "GET": View(get_member, Permission.GROUP_READ),
        "PATCH": View(change_member, Permission.GROUP_WRITE),
        "DELETE": View(remove_member, Permission.GROUP_WRITE),
    }, description="One direct membership; PATCH changes its access level."),
    Endpoint("api.group.shares", f"/api/groups/{GID}/shares", {
        "GET": View(list_shares, Permission.GROUP_READ),
        "POST": View(add_share, Permission.GROUP_WRITE),
    }, description="The groups this group is shared with; POST shares it with one."),
    Endpoint("api.group.share", f"/api/groups/{GID}/shares/{{sid:\\d+}}", {
        "GET": View(get_share, Permission.GROUP_READ),
        "PATCH": View(change_share, Permission.GROUP_WRITE),
        "DELETE": View(remove_share, Permission.GROUP_WRITE),
    }, description="One share of the group; PATCH changes its access level."),
    Endpoint("api.project.shares", "/api/projects/{pid:\\d+}/shares", {
        "GET": View(list_shares, Permission.PROJECT_READ),
        "POST": View(add_share, Permission.PROJECT_WRITE),
    }, description="The groups this project is shared with; POST shares it with one."),
    Endpoint("api.project.share", "/api/projects/{pid:\\d+}/shares/{sid:\\d+}", {
        "GET": View(get_share, Permission.PROJECT_READ),
        "PATCH": View(change_share, Permission.PROJECT_WRITE),
        "DELETE": View(remove_share, Permission.PROJECT_WRITE),
    }, description="One share of the project; PATCH changes its access level."),
]
