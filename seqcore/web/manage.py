"""A project's management page: its members with their roles and metadata levels, the
groups it is shared with (:mod:`seqcore.web.shares`), its metadata fields with their
restriction levels, its metadata templates, and its activity feed. Every member reads it
(restricted fields are left out for those below their level); owners (and maintainers
through groups) change it, through the operations and under the permission
(``project:write``) REST's members, fields and templates endpoints use. A member may be
added until a date (its expiry); expired members stay listed, marked, until the worker
removes them."""

from __future__ import annotations

from typing import Any, cast

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.governance.activity import ActivityQuery, activities
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.user import User
from seqcore.parsing.expiry import parse_expiry
from seqcore.projects.projects import add_member, change_member_expiry, remove_member
from seqcore.samples.metadatafields import (
    FieldValues,
    create_template,
    declare_field,
    get_field,
    project_fields,
    project_templates,
    remove_field,
)
from seqcore.security.fieldaccess import LEVELS, Caller, readable_fields
from seqcore.security.permissions import Permission
from seqcore.web.guard import PageError, add_page, context_at, may, require, signed_in
from seqcore.web.i18n import _
from seqcore.web.render import page
from seqcore.web.shares import SHARE_LEVELS, grantee_choices, shares_of

ROLES = {ProjectRole.USER.value: _("Member"), ProjectRole.OWNER.value: _("Owner")}


def _project(request: Request, write: bool) -> Any:
    context = context_at(request, "projects", request.matchdict["id"])
    if write:
        require(request, context, Permission.PROJECT_WRITE)
    return context


def manage_page(request: Request) -> Response:
    identity = signed_in(request)
    context = _project(request, write=False)
    project = context.project
    db = request.db
    caller = Caller.of(identity)
    access = readable_fields(db, caller, project.id)
    members = db.execute(select(User, ProjectMember).join(
        ProjectMember, ProjectMember.user_id == User.id).where(
        ProjectMember.project_id == project.id).order_by(User.username)).all()
    feed, _cursor = activities(db, caller, ActivityQuery(limit=50), project_id=project.id)
    can_write = may(request, context, Permission.PROJECT_WRITE)
    return page(request, "manage.mako", project=project, members=members, roles=ROLES,
                levels=LEVELS, fields=project_fields(db, project.id, access),
                templates=project_templates(db, project.id), activity=feed,
                shares=shares_of(db, project_id=project.id), share_levels=SHARE_LEVELS,
                share_groups=grantee_choices(db, identity) if can_write else [],
                can_write=can_write)


def _actor(identity: Any) -> int | None:
    """Whose ownership a membership change relies on (``None``: an administrator's)."""
    return None if identity.is_admin else identity.user_id


def _back(request: Request, project_id: int, message: Any) -> Response:
    request.session.flash(request.localizer.translate(message))
    return HTTPSeeOther(location=request.route_path("web.project.manage", id=project_id))


def member_add(request: Request) -> Response:
    identity = signed_in(request)
    project = _project(request, write=True).project
    username = request.POST.get("username", "").strip()
    role = request.POST.get("role", ProjectRole.USER.value)
    level = request.POST.get("metadata_role", "LEVEL_1")
    if role not in ROLES or level not in LEVELS:
        raise PageError(400, _("Choose a role and a metadata level from the lists."))
    user = request.db.scalar(select(User).where(User.username == username))
    if user is None:
        raise PageError(400, _("There is no account named \"${name}\"."), name=username)
    # A date: the membership ends at 00:00 UTC that day (seqcore.parsing.expiry).
    expires_at = parse_expiry(request.POST.get("expires_at", "").strip())
    add_member(request.db, project.id, user.id, user.username, role, level, _actor(identity),
               expires_at=expires_at)
    return _back(request, project.id, _("${name} added.", mapping={"name": user.username}))


def _member_user(request: Request) -> User:
    """The account the URL's ``{user}`` names (404 as for anything unseen)."""
    user = request.db.get(User, int(request.matchdict["user"]))
    if user is None:
        raise PageError(404, _("There is nothing here, or you may not see it."))
    return user


def member_expiry(request: Request) -> Response:
    """A member's expiry date (empty: none)."""
    identity = signed_in(request)
    project = _project(request, write=True).project
    user = _member_user(request)
    expires_at = parse_expiry(request.POST.get("expires_at", "").strip())
    change_member_expiry(request.db, project.id, user.id, user.username, expires_at,
                         _actor(identity))
    return _back(request, project.id, _("${name} changed.", mapping={"name": user.username}))


def member_remove(request: Request) -> Response:
    identity = signed_in(request)
    project = _project(request, write=True).project
    user = _member_user(request)
    remove_member(request.db, project.id, user.id, user.username, _actor(identity))
    return _back(request, project.id, _("${name} removed.", mapping={"name": user.username}))


def field_add(request: Request) -> Response:
    signed_in(request)
    project = _project(request, write=True).project
    values: dict[str, Any] = {"name": request.POST.get("name", ""),
                              "type": request.POST.get("type", "text"),
                              "restriction": request.POST.get("restriction", "LEVEL_1")}
    choices = [c.strip() for c in request.POST.get("choices", "").split(",") if c.strip()]
    if choices:
        values["choices"] = choices
    field = declare_field(request.db, project.id, cast(FieldValues, values))
    return _back(request, project.id, _("Field ${name} declared.", mapping={"name": field.name}))


def field_remove(request: Request) -> Response:
    signed_in(request)
    project = _project(request, write=True).project
    field = get_field(request.db, project.id, int(request.matchdict["field"]))
    name = field.name
    remove_field(request.db, field)
    return _back(request, project.id, _("Field ${name} removed.", mapping={"name": name}))


def template_add(request: Request) -> Response:
    signed_in(request)
    project = _project(request, write=True).project
    name = request.POST.get("name", "").strip()
    template = create_template(request.db, project.id, name,
                               request.POST.get("description") or None,
                               request.POST.getall("fields"))
    return _back(request, project.id,
                 _("Template ${name} created.", mapping={"name": template.name}))


def includeme(config: Configurator) -> None:
    base = "/-/projects/{id:\\d+}/manage"
    add_page(config, "web.project.manage", base, manage_page)
    add_page(config, "web.project.members", base + "/members", member_add, method="POST")
    add_page(config, "web.project.member.remove", base + "/members/{user:\\d+}/remove",
             member_remove, method="POST")
    add_page(config, "web.project.member.expiry", base + "/members/{user:\\d+}/expiry",
             member_expiry, method="POST")
    add_page(config, "web.project.fields", base + "/fields", field_add, method="POST")
    add_page(config, "web.project.field.remove", base + "/fields/{field:\\d+}/remove",
             field_remove, method="POST")
    add_page(config, "web.project.templates", base + "/templates", template_add,
             method="POST")
