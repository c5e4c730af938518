"""``/api/projects/{pid}/users``: a project's members.

Apart from the project views because a membership shows both sides, the project and the
account: this module reads :mod:`seqcore.rest.views.projects` and
:mod:`seqcore.rest.views.users`, and neither of them reads it.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from sqlalchemy import select

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.user import User
from seqcore.parsing.expiry import parse_expiry
from seqcore.parsing.schemas import MembershipExpirySchema, MembershipSchema
from seqcore.projects.projects import add_member as add_membership
from seqcore.projects.projects import change_member_expiry
from seqcore.projects.projects import remove_member as remove_membership
from seqcore.rest.body import load
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import validation_error
from seqcore.rest.values import epoch_ms
from seqcore.rest.views.projects import project_entry
from seqcore.rest.views.users import user_entry, user_fields
from seqcore.security.permissions import Permission


def member_entry(request: Request, project_ctx: Any, user: User) -> dict[str, Any]:
    context = member_context(request, project_ctx, user)
    return entry(request, context, user_fields(user), identifier=user.id)


def member_context(request: Request, project_ctx: Any, user: User) -> Any:
    from seqcore.resources.projects import ProjectMemberEntry

    return ProjectMemberEntry.for_user(request, project_ctx, user)


def list_members(request: Request) -> dict:
    project_ctx = request.context.__parent__
    rows = request.db.execute(
        select(User).join(ProjectMember, ProjectMember.user_id == User.id)
        .where(ProjectMember.project_id == project_ctx.project.id).order_by(User.id)
    ).scalars()
    return collection(request, request.context,
                      (member_entry(request, project_ctx, user) for user in rows))


def relationship_body(request: Request, project_ctx: Any, member: ProjectMember,
                      user: User) -> dict[str, Any]:
    """The project-user relationship: subject (project), object (user) and the roles."""
    project = project_ctx.project
    user_ctx = member_context(request, project_ctx, user)
    inner = {
        "subject": project_entry(request, project_ctx),
        "object": user_entry(request, user_ctx),
        "timestamp": epoch_ms(member.created),
        "createdDate": epoch_ms(member.created),
        "projectRole": member.role,
        "metadataRole": member.metadata_role,
        "expiresAt": epoch_ms(member.expires_at),
        "label": project.name,
        "identifier": str(member.id),
    }
    relationship = url_for(request, project_ctx, "users", user.username)
    return {"resource": {
        "label": project.name,
        "resource": inner,
        "identifier": str(user.id),
        "links": [
            {"rel": "self", "href": url_for(request, user_ctx)},
            {"rel": "relationship", "href": relationship},
            {"rel": "project/users", "href": url_for(request, project_ctx, "users")},
            {"rel": "project", "href": url_for(request, project_ctx)},
        ],
    }}


def _actor(request: Request) -> int | None:
    """Whose ownership a membership change relies on (``None``: an administrator's)."""
    return None if request.identity.is_admin else request.identity.user_id


def add_member(request: Request) -> dict:
    project_ctx = request.context.__parent__
    data = load(request, MembershipSchema())
    user = request.db.scalar(select(User).where(User.username == data["userId"]))
    if user is None:
        raise validation_error({"userId": [f"There is no user with username "
                                           f"'{data['userId']}'."]})
    role = data["role"]
    metadata_role = data["metadataRole"] or ("LEVEL_4" if role == ProjectRole.OWNER else
                                             "LEVEL_1")
    # Refusals (seqcore.projects.projects.LastOwner, ...) are domain errors: 409 for a member
    # added twice, 403/404 when the caller's own ownership went while it waited.
    member = add_membership(request.db, project_ctx.project.id, user.id, user.username,
                            role, metadata_role, _actor(request),
                            expires_at=parse_expiry(data["expiresAt"]))
    request.response.status = 201
    request.response.location = url_for(request, project_ctx, "users", user.username)
    return relationship_body(request, project_ctx, member, user)


def get_member(request: Request) -> dict:
    context = request.context
    return relationship_body(request, context.__parent__.__parent__, context.member, context.user)


def change_member(request: Request) -> dict:
    """A membership's expiry (seqcore's: IRIDA changes no membership)."""
    data = load(request, MembershipExpirySchema(), partial=False)
    context = request.context
    project_ctx = context.__parent__.__parent__
    member = change_member_expiry(request.db, project_ctx.project.id, context.user.id,
                                  context.user.username, parse_expiry(data["expiresAt"]),
                                  _actor(request))
    return relationship_body(request, project_ctx, member, context.user)


def remove_member(request: Request) -> dict:
    context = request.context
    project_ctx = context.__parent__.__parent__
    # Removing the last owner is a 400, a membership removed meanwhile a 404.
    remove_membership(request.db, project_ctx.project.id, context.user.id,
                      context.user.username, _actor(request))
    return links_only([("project/users", url_for(request, project_ctx, "users")),
                       ("project", url_for(request, project_ctx))])




ENDPOINTS = [
    Endpoint("api.project.users", "/api/projects/{pid:\\d+}/users", {
        "GET": View(list_members, Permission.PROJECT_READ),
        "POST": View(add_member, Permission.PROJECT_WRITE),
    }, description="A project's members; POST adds one."),
    Endpoint("api.project.user", "/api/projects/{pid:\\d+}/users/{username}", {
        "GET": View(get_member, Permission.PROJECT_READ),
        "PATCH": View(change_member, Permission.PROJECT_WRITE),
        "DELETE": View(remove_member, Permission.PROJECT_WRITE),
    }, description="One membership; PATCH changes its expiry."),
]
