"""Groups: the tree of the groups an account may read, a group's page (its subgroups,
projects, members and the groups it is shared with), and the form creating a group or
subgroup. Visibility is the domain's (:data:`seqcore.security.access.GROUP`), creation the
domain's :func:`create_group` under the permissions REST asks (``group:create`` at the top,
``group:write`` on a parent)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.i18n import TranslationString
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import select

from seqcore.errors.domain import Invalid
from seqcore.models.group import Group, GroupMember
from seqcore.models.project import Project
from seqcore.models.user import User
from seqcore.projects.groups import create_group
from seqcore.security.access import GROUP, PROJECT
from seqcore.security.permissions import Permission
from seqcore.web.guard import add_page, context_at, may, parent_group, signed_in
from seqcore.web.i18n import _
from seqcore.web.labels import ACCESS_LEVELS
from seqcore.web.render import page
from seqcore.web.shares import SHARE_LEVELS, grantee_choices, shares_of


@dataclass
class Node:
    group: Group
    children: list[Node] = field(default_factory=list)


def tree(groups: list[Group]) -> list[Node]:
    """The groups as a forest: a group whose parent is not among them is a root (one may
    read a subgroup through a share without reading its parent)."""
    nodes = {group.id: Node(group) for group in groups}
    roots: list[Node] = []
    for group in groups:
        parent = nodes.get(group.parent_id) if group.parent_id is not None else None
        (parent.children if parent else roots).append(nodes[group.id])
    return roots


def groups_page(request: Request, status: int = 200, **values: object) -> Response:
    identity = signed_in(request)
    groups = request.db.scalars(select(Group).where(
        GROUP.readable(identity.user_id, identity.role)).order_by(Group.full_path)).all()
    collection = context_at(request, "groups")
    values.setdefault("problems", {})
    values.setdefault("form", {})
    return page(request, "groups.mako", status=status, roots=tree(list(groups)),
                can_create=may(request, collection, Permission.GROUP_CREATE), parent=None,
                **values)


def create(request: Request) -> Response:
    identity = signed_in(request)
    parent = parent_group(request, "parent_id", "groups", Permission.GROUP_CREATE)
    form = {"name": request.POST.get("name", "").strip(),
            "path": request.POST.get("path", "").strip(),
            "description": request.POST.get("description", "").strip()}
    try:
        group = create_group(request.db, identity.user_id, form["name"], form["path"] or None,
                             form["description"] or None, parent=parent)
    except Invalid as error:
        problems = {key: " ".join(messages) for key, messages in error.problems.items()}
        if parent is not None:
            return group_page(request, status=400, problems=problems, form=form,
                              group_id=str(parent.id))
        return groups_page(request, status=400, problems=problems, form=form)
    request.session.flash(str(request.localizer.translate(
        _("Group ${name} created.", mapping={"name": group.full_name}))))
    return HTTPSeeOther(location=request.route_path("web.group", id=group.id))


def group_page(request: Request, status: int = 200, group_id: str | None = None,
               **values: object) -> Response:
    identity = signed_in(request)
    context = context_at(request, "groups", group_id or request.matchdict["id"])
    group = context.group
    db = request.db
    subgroups = db.scalars(select(Group).where(
        Group.parent_id == group.id, GROUP.readable(identity.user_id, identity.role))
        .order_by(Group.name)).all()
    projects = db.scalars(select(Project).where(
        Project.group_id == group.id, PROJECT.readable(identity.user_id, identity.role),
        Project.archived_at.is_(None))
        .order_by(Project.name)).all()
    members = db.execute(select(User, GroupMember)
                         .join(GroupMember, GroupMember.user_id == User.id)
                         .where(GroupMember.group_id == group.id)
                         .order_by(User.username)).all()
    values.setdefault("problems", {})
    values.setdefault("form", {})
    can_write = may(request, context, Permission.GROUP_WRITE)
    return page(request, "group.mako", status=status, group=group, subgroups=subgroups,
                projects=projects, members=members, level_label=level_label,
                shares=shares_of(db, group_id=group.id), share_levels=SHARE_LEVELS,
                share_groups=grantee_choices(db, identity, exclude=group.id)
                if can_write else [], can_write=can_write, **values)


def level_label(level: int) -> str | TranslationString:
    return ACCESS_LEVELS.get(level, str(level))


def includeme(config: Configurator) -> None:
    add_page(config, "web.groups", "/-/groups", groups_page)
    add_page(config, "web.groups", None, create, method="POST")
    add_page(config, "web.group", "/-/groups/{id}", group_page)
