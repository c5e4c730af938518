"""Who counts as the owner of a project or a group, for the operations only owners do
(moving it to another namespace, archiving it).

Ownership is read from membership, as :func:`seqcore.projects.groups.check_may_create_in`
reads the right to create: a direct ``PROJECT_OWNER`` membership, or ``OWNER`` of the
group or a group above it. Access through a group share is not ownership (it ends with
the share). Administrators are owners of everything. ``project:write`` alone (which group
maintainers also hold) is not enough: a maintainer changes a project but does not decide
where it lives or whether it is retired.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Forbidden
from seqcore.models.group import AccessLevel, Group
from seqcore.models.project import Project
from seqcore.models.user import SystemRole, User


class NotTheOwner(Forbidden):
    def __init__(self, what: str) -> None:
        super().__init__(f"Only an owner of the {what} may do this.")


def is_administrator(db: Session, user_id: int) -> bool:
    role = db.scalar(select(User.system_role).where(User.id == user_id))
    return role == SystemRole.ADMIN.value


def check_owns_project(db: Session, project: Project, user_id: int) -> None:
    """:class:`NotTheOwner` unless the account owns ``project`` (see the module)."""
    from seqcore.projects.groups import project_membership_level

    if is_administrator(db, user_id):
        return
    if project_membership_level(db, project, user_id) < AccessLevel.OWNER:
        raise NotTheOwner("project")


def check_owns_group(db: Session, group: Group, user_id: int) -> None:
    """:class:`NotTheOwner` unless the account owns ``group`` (see the module)."""
    from seqcore.projects.groups import membership_level

    if is_administrator(db, user_id):
        return
    if membership_level(db, group.id, user_id) < AccessLevel.OWNER:
        raise NotTheOwner("group")
