"""``/api/projects``: projects and their members."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from sqlalchemy import select

from seqcore.access import readable_projects
from seqcore.contrib import Endpoint, View
from seqcore.db import utcnow
from seqcore.links import url_for
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.user import User
from seqcore.namespaces import namespace_for
from seqcore.projects import AlreadyMember, MembershipError, NoLongerMember, NotAnOwner
from seqcore.projects import add_member as add_membership
from seqcore.projects import create_project as create_project_row
from seqcore.projects import remove_member as remove_membership
from seqcore.rest.body import lenient_create, load
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import ApiError, validation_error
from seqcore.rest.schemas import MembershipSchema, ProjectSchema
from seqcore.rest.values import epoch_ms
from seqcore.security.permissions import Permission

FIELDS = {
    "name": "name", "projectDescription": "description", "remoteURL": "remote_url",
    "organism": "organism", "genomeSize": "genome_size", "minimumCoverage": "minimum_coverage",
    "maximumCoverage": "maximum_coverage", "syncFrequency": "sync_frequency",
}


def project_fields(project: Project) -> dict[str, Any]:
    fields = {"name": project.name, "createdDate": epoch_ms(project.created),
              "modifiedDate": epoch_ms(project.modified)}
    for key, attr in FIELDS.items():
        if key != "name":
            fields[key] = getattr(project, attr)
    fields["label"] = project.name
    return fields


def project_entry(request: Request, context: Any) -> dict[str, Any]:
    return entry(request, context, project_fields(context.project), identifier=context.project.id)


def list_projects(request: Request) -> dict:
    identity = request.identity
    context = request.context
    projects = request.db.scalars(readable_projects(identity.user_id, identity.role))
    return collection(request, context,
                      (project_entry(request, context.resource_for(p)) for p in projects))


def _check_coverage(values: dict[str, Any]) -> None:
    low, high = values.get("minimum_coverage"), values.get("maximum_coverage")
    if low is not None and high is not None and low > high:
        raise validation_error({"maximumCoverage": [
            "Maximum coverage must not be less than minimum coverage."]})


def create_project(request: Request) -> dict:
    data = load(request, ProjectSchema(), allow_unknown=lenient_create(request))
    values = {FIELDS[k]: v for k, v in data.items()}
    _check_coverage(values)
    project = create_project_row(request.db, request.identity.user_id,
                                 namespace_for(request.identity.username), values)
    context = request.context.resource_for(project)
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": project_entry(request, context)}


def get_project(request: Request) -> dict:
    return {"resource": project_entry(request, request.context)}


def update_project(request: Request) -> dict:
    project: Project = request.context.project
    data = load(request, ProjectSchema(), partial=True)
    values = {FIELDS[k]: v for k, v in data.items()}
    merged = {"minimum_coverage": project.minimum_coverage,
              "maximum_coverage": project.maximum_coverage, **values}
    _check_coverage(merged)
    for attr, value in values.items():
        setattr(project, attr, value)
    project.modified = utcnow()
    request.db.flush()
    return links_only([("self", url_for(request, request.context)),
                       ("collection", url_for(request, request.context.__parent__))])


def delete_project(request: Request) -> dict:
    """Delete the project, and the samples no other project holds."""
    from seqcore.samples import delete_samples, orphans_after_removal

    orphans = orphans_after_removal(request.db, request.context.project.id)
    delete_samples(request.db, request.registry.pm, orphans, request)
    request.registry.pm.hook.projects_deleting(project_ids=[request.context.project.id],
                                               request=request)
    request.db.delete(request.context.project)
    request.db.flush()
    return links_only([("collection", url_for(request, request.context.__parent__))])


# -- members ---------------------------------------------------------------------------------


def member_entry(request: Request, project_ctx: Any, user: User) -> dict[str, Any]:
    from seqcore.rest.views.users import user_fields

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
    from seqcore.rest.views.users import user_entry

    project = project_ctx.project
    user_ctx = member_context(request, project_ctx, user)
    inner = {
        "subject": project_entry(request, project_ctx),
        "object": user_entry(request, user_ctx),
        "timestamp": epoch_ms(member.created),
        "createdDate": epoch_ms(member.created),
        "projectRole": member.role,
        "metadataRole": member.metadata_role,
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


def membership_refused(err: MembershipError) -> ApiError:
    """The REST answer to a refused membership change.

    Removing the last owner stays a 400 as before. A caller whose own ownership went while
    the request waited for the project's lock gets what it would get now: 404 if it may no
    longer read the project, else 403; a membership removed meanwhile is a 404; adding a
    member twice is a 409.
    """
    if isinstance(err, NotAnOwner):
        return ApiError(403 if err.member else 404, message=str(err) if err.member else
                        "The resource was not found.")
    if isinstance(err, NoLongerMember):
        return ApiError(404, message=str(err))
    if isinstance(err, AlreadyMember):
        return ApiError(409, message=str(err))
    return ApiError(400, message=str(err))


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
    try:
        member = add_membership(request.db, project_ctx.project.id, user.id, user.username,
                                role, metadata_role, _actor(request))
    except MembershipError as err:
        raise membership_refused(err) from None
    request.response.status = 201
    request.response.location = url_for(request, project_ctx, "users", user.username)
    return relationship_body(request, project_ctx, member, user)


def get_member(request: Request) -> dict:
    context = request.context
    return relationship_body(request, context.__parent__.__parent__, context.member, context.user)


def remove_member(request: Request) -> dict:
    context = request.context
    project_ctx = context.__parent__.__parent__
    try:
        remove_membership(request.db, project_ctx.project.id, context.user.id,
                          context.user.username, _actor(request))
    except MembershipError as err:
        raise membership_refused(err) from None
    return links_only([("project/users", url_for(request, project_ctx, "users")),
                       ("project", url_for(request, project_ctx))])


# -- analyses shared with the project ---------------------------------------------------------


def _project_analyses(request: Request) -> dict:
    from seqcore.rest.views.analyses import project_analyses

    return project_analyses(request)


ENDPOINTS = [
    Endpoint("api.projects", "/api/projects", {
        "GET": View(list_projects, Permission.API_READ),
        "POST": View(create_project, Permission.PROJECT_CREATE),
    }, description="Projects the caller can read; POST creates one owned by the caller."),
    Endpoint("api.project", "/api/projects/{pid:\\d+}", {
        "GET": View(get_project, Permission.PROJECT_READ),
        "PATCH": View(update_project, Permission.PROJECT_WRITE),
        "DELETE": View(delete_project, Permission.PROJECT_WRITE),
    }, description="One project."),
    Endpoint("api.project.users", "/api/projects/{pid:\\d+}/users", {
        "GET": View(list_members, Permission.PROJECT_READ),
        "POST": View(add_member, Permission.PROJECT_WRITE),
    }, description="A project's members; POST adds one."),
    Endpoint("api.project.user", "/api/projects/{pid:\\d+}/users/{username}", {
        "GET": View(get_member, Permission.PROJECT_READ),
        "DELETE": View(remove_member, Permission.PROJECT_WRITE),
    }, description="One membership."),
    Endpoint("api.project.analyses", "/api/projects/{pid:\\d+}/analyses", {
        "GET": View(_project_analyses, Permission.PROJECT_READ),
    }, description="Analysis submissions shared with the project."),
]
