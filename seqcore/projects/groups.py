"""Operations on groups, their members and shares, shared by REST and GraphQL.

Every operation checks all of its input before it writes, and raises a domain error
(:mod:`seqcore.errors.domain`) that each transport turns into its own 4xx; the caller's permission
on the group (``group:write``) is checked by the transport against the group's ACL, as for
every other resource.

Invariants, kept whatever the order of concurrent requests:

* ``full_path`` is unique (a database constraint) and no top-level group takes the
  personal namespace of an account;
* a top-level group keeps at least one owner among its direct members whose membership does
  not expire (changes that can lower the count take the group's row lock before counting);
* nobody grants more than they hold: a member is added, raised or shared at a level no
  higher than the actor's own level **by membership** (of the group or a group above it),
  and a member above that level is neither changed nor removed (so owners are changed only
  by owners and administrators). Access that comes only through a group share changes no
  membership, makes no share and creates no subgroup or project (its creator would be
  their direct owner): whatever it made would outlive the share (:class:`BeyondYourLevel`,
  :func:`check_may_create_in`). ``actor_id`` ``None`` is an administrator. Anyone may leave.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Conflict, Forbidden, Invalid, NotFound
from seqcore.governance.activity import operation
from seqcore.models.group import (
    AccessLevel,
    Group,
    GroupHierarchy,
    GroupMember,
    GroupShare,
)
from seqcore.models.project import Project
from seqcore.models.user import SystemRole, User, UserType
from seqcore.notifications.events import member_added
from seqcore.parsing.expiry import check_ahead
from seqcore.projects.expiry import check_own_expiry
from seqcore.projects.namespaces import PATH_TAKEN, path_problem, slugify

MAX_NAME = 255
MAX_FULL_PATH = 255
MAX_DEPTH = 20  # IRIDA Next (like GitLab) limits nesting; a deeper tree is refused
LEVEL_NAMES = {level.name: level for level in AccessLevel if level != AccessLevel.NO_ACCESS}


def parse_level(value: Any, field: str = "accessLevel") -> AccessLevel:
    """An access level from its number (10-50) or its name (``guest`` ... ``owner``, any
    case), or :class:`Invalid` naming the choices."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, int):
        try:
            level = AccessLevel(value)
        except ValueError:
            level = None
    elif isinstance(value, str):
        level = LEVEL_NAMES.get(value.strip().upper())
    else:
        level = None
    if level is None or level == AccessLevel.NO_ACCESS:
        choices = ", ".join(f"{lvl.name} ({lvl.value})" for lvl in LEVEL_NAMES.values())
        raise Invalid.field(field, f"Access level must be one of {choices}.")
    return level


# -- groups -----------------------------------------------------------------------------------


def _name_problem(name: Any) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "Name can't be blank."
    if len(name) > MAX_NAME:
        return f"Name is too long (maximum is {MAX_NAME} characters)."
    return None


def path_is_taken(db: Session, parent: Group | None, path: str) -> bool:
    """Whether ``path`` under ``parent`` names a group already, or (at the top) the
    personal namespace of an account or of its projects."""
    full_path = path if parent is None else f"{parent.full_path}/{path}"
    if db.scalar(select(Group.id).where(func.lower(Group.full_path) == full_path.lower())):
        return True
    if parent is not None:
        return False
    if db.scalar(select(Project.id).where(Project.namespace == path, Project.group_id.is_(None))
                 .limit(1)):
        return True
    # An account's namespace is its username, lower-cased (namespace_for).
    return db.scalar(select(User.id).where(func.lower(User.username) == path).limit(1)
                     ) is not None


@operation("group.create")
def create_group(db: Session, creator_id: int, name: Any, path: Any = None,
                 description: Any = None, parent: Group | None = None) -> Group:
    """A new group (under ``parent``) owned by ``creator_id``; :class:`Invalid` listing
    every problem with the input (nothing written)."""
    problems: dict[str, list[str]] = {}
    trouble = _name_problem(name)
    if trouble:
        problems["name"] = [trouble]
    if description is not None and not isinstance(description, str):
        problems["description"] = ["Description must be text."]
    if path is None and not trouble:
        path = slugify(name, fallback="group")
        base, n = path, 2
        while path_is_taken(db, parent, path):
            path, n = f"{base[:MAX_NAME - 8]}-{n}", n + 1
    elif path is not None:
        trouble = path_problem(path) if isinstance(path, str) else "Path must be text."
        if trouble is None and path_is_taken(db, parent, path):
            trouble = PATH_TAKEN
        if trouble:
            problems["path"] = [trouble]
    if parent is not None:
        depth = db.scalar(select(func.count()).select_from(GroupHierarchy).where(
            GroupHierarchy.descendant_id == parent.id)) or 0
        if depth >= MAX_DEPTH:
            problems.setdefault("parent", []).append(
                f"Groups nest at most {MAX_DEPTH} levels deep.")
    full_path = path if parent is None or path is None else f"{parent.full_path}/{path}"
    if isinstance(full_path, str) and len(full_path) > MAX_FULL_PATH:
        problems.setdefault("path", []).append(
            f"Full path is too long (maximum is {MAX_FULL_PATH} characters).")
    if problems:
        raise Invalid(problems)
    if parent is not None:
        check_may_create_in(db, parent, creator_id, "create a subgroup in this group")
    full_name = name if parent is None else f"{parent.full_name} / {name}"
    group = Group(name=name, path=path, full_path=full_path, full_name=full_name,
                  description=description, parent_id=parent.id if parent else None,
                  created=utcnow())
    savepoint = db.begin_nested()
    try:
        db.add(group)
        db.flush()
    except IntegrityError:
        savepoint.rollback()
        raise Invalid.field("path", PATH_TAKEN) from None
    savepoint.commit()
    db.add(GroupHierarchy(ancestor_id=group.id, descendant_id=group.id, depth=0))
    if parent is not None:
        for ancestor_id, depth in db.execute(
                select(GroupHierarchy.ancestor_id, GroupHierarchy.depth)
                .where(GroupHierarchy.descendant_id == parent.id)).all():
            db.add(GroupHierarchy(ancestor_id=ancestor_id, descendant_id=group.id,
                                  depth=depth + 1))
    db.add(GroupMember(group_id=group.id, user_id=creator_id,
                       access_level=AccessLevel.OWNER.value))
    db.flush()
    return group


def ancestor_ids(db: Session, group_id: int) -> list[int]:
    """The group and the groups above it, nearest first."""
    return list(db.scalars(select(GroupHierarchy.ancestor_id)
                           .where(GroupHierarchy.descendant_id == group_id)
                           .order_by(GroupHierarchy.depth)))


# -- members ----------------------------------------------------------------------------------


class AlreadyGroupMember(Conflict):
    def __init__(self, username: str) -> None:
        super().__init__(f"{username} is already a member of this group.")


class NotGroupMember(NotFound):
    def __init__(self, username: str) -> None:
        super().__init__(f"{username} is not a direct member of this group.")


class LastGroupOwner(Invalid):
    def __init__(self) -> None:
        super().__init__(message="A top-level group must keep at least one owner: make "
                                 "another member an owner first.")


def group_membership(db: Session, group_id: int, user_id: int) -> GroupMember | None:
    return db.scalar(select(GroupMember).where(GroupMember.group_id == group_id,
                                               GroupMember.user_id == user_id)
                     .execution_options(populate_existing=True))


class BeyondYourLevel(Forbidden):
    def __init__(self, what: str) -> None:
        super().__init__(f"You cannot {what}: it is above the access level your own "
                         "membership gives you (access through a group share changes no "
                         "membership).")


def membership_level(db: Session, group_id: int, user_id: int) -> int:
    """The account's level on the group from membership of it or of a group above it
    (shares and expired memberships not counted); 0 for none."""
    return db.scalar(select(func.max(GroupMember.access_level))
                     .join(GroupHierarchy, GroupHierarchy.ancestor_id == GroupMember.group_id)
                     .where(GroupHierarchy.descendant_id == group_id,
                            GroupMember.user_id == user_id, GroupMember.active)) or 0


def check_may_create_in(db: Session, group: Group, user_id: int, what: str) -> None:
    """:class:`BeyondYourLevel` unless the account may create in ``group`` by its own
    membership (``MAINTAINER`` or above, of the group or a group above it) or is an
    administrator. Its creation makes it a direct owner of what it creates, so access that
    comes only through a group share, which ends when the share does, creates nothing."""
    role = db.scalar(select(User.system_role).where(User.id == user_id))
    if role == SystemRole.ADMIN.value:
        return
    if membership_level(db, group.id, user_id) < AccessLevel.MAINTAINER:
        raise BeyondYourLevel(what)


def project_membership_level(db: Session, project: Project, user_id: int) -> int:
    """The account's level on the project from its direct membership (``PROJECT_OWNER`` is
    owner, ``PROJECT_USER`` analyst), membership of the project's group tree, or (a project
    bot) the level it was made with; 0 for none."""
    from seqcore.models.bot import NamespaceBot
    from seqcore.models.project import ProjectMember, ProjectRole

    bot = db.scalar(select(NamespaceBot.access_level).where(
        NamespaceBot.project_id == project.id, NamespaceBot.user_id == user_id,
        NamespaceBot.deleted_at.is_(None)))
    if bot is not None:
        return int(bot)

    role = db.scalar(select(ProjectMember.role).where(ProjectMember.project_id == project.id,
                                                      ProjectMember.user_id == user_id,
                                                      ProjectMember.active))
    direct = {ProjectRole.OWNER.value: AccessLevel.OWNER.value,
              ProjectRole.USER.value: AccessLevel.ANALYST.value}.get(role or "", 0)
    inherited = membership_level(db, project.group_id, user_id) if project.group_id else 0
    return max(direct, inherited)


def _may_grant(held: int | None, level: int, what: str) -> None:
    """:class:`BeyondYourLevel` unless ``level`` is within ``held`` (``None``: an
    administrator)."""
    if held is not None and level > held:
        raise BeyondYourLevel(what)


@operation("groupMember.add")
def add_group_member(db: Session, group: Group, user: User, level: AccessLevel,
                     actor_id: int | None = None,
                     expires_at: datetime | None = None) -> GroupMember:
    """Add ``user`` at ``level``, until ``expires_at`` if given (it must lie ahead); a
    membership of the group that expired is replaced."""
    check_ahead(expires_at, utcnow())
    lock_row(db, Group, group.id)
    held = None if actor_id is None else membership_level(db, group.id, actor_id)
    _may_grant(held, level.value, f"add a member as {level.label}")
    existing = group_membership(db, group.id, user.id)
    if existing is not None:
        if existing.active:
            raise AlreadyGroupMember(user.username)
        db.delete(existing)
        db.flush()
    member = GroupMember(group_id=group.id, user_id=user.id, access_level=level.value,
                         created=utcnow(), expires_at=expires_at)
    db.add(member)
    db.flush()
    member_added(db, user.id, "group", group.name, level.label, f"/-/groups/{group.id}",
                 actor_id)
    return member


def permanent_owners(db: Session, group_id: int) -> int:
    """The group's direct owners whose membership does not expire; bot accounts never
    count (a group must keep a person who owns it)."""
    return db.scalar(select(func.count()).select_from(GroupMember)
                     .join(User, User.id == GroupMember.user_id).where(
        GroupMember.group_id == group_id,
        GroupMember.access_level == AccessLevel.OWNER.value,
        GroupMember.expires_at.is_(None),
        User.account_type == UserType.HUMAN.value)) or 0


def _keeps_an_owner(db: Session, group: Group, member: GroupMember) -> None:
    """:class:`LastGroupOwner` if ``member`` is the last owner of a top-level group whose
    membership does not expire (and is about to stop being one)."""
    if (group.parent_id is None and member.access_level == AccessLevel.OWNER.value
            and member.expires_at is None
            and db.scalar(select(User.account_type).where(User.id == member.user_id))
            == UserType.HUMAN.value
            and permanent_owners(db, group.id) <= 1):
        raise LastGroupOwner()


#: "Leave the expiry as it is" in :func:`change_group_member` (``None`` removes it).
KEEP: Any = object()


@operation("groupMember.update")
def change_group_member(db: Session, group: Group, user: User, level: AccessLevel | None,
                        actor_id: int | None = None,
                        expires_at: datetime | None = KEEP) -> GroupMember:
    """Change the member's level (``None``: keep it) and expiry (:data:`KEEP`: keep it;
    ``None``: none; else an instant that must lie ahead)."""
    if expires_at is not KEEP:
        check_ahead(expires_at, utcnow())
    lock_row(db, Group, group.id)
    member = group_membership(db, group.id, user.id)
    if member is None:
        raise NotGroupMember(user.username)
    held = None if actor_id is None else membership_level(db, group.id, actor_id)
    _may_grant(held, member.access_level,
               f"change a member who is {AccessLevel(member.access_level).label}")
    if level is None:
        level = AccessLevel(member.access_level)
    _may_grant(held, level.value, f"make a member {level.label}")
    if expires_at is not KEEP:
        check_own_expiry(actor_id, user.id, member.expires_at, expires_at)
    if level != AccessLevel.OWNER or (expires_at is not KEEP and expires_at is not None):
        _keeps_an_owner(db, group, member)
    member.access_level = level.value
    if expires_at is not KEEP:
        member.expires_at = expires_at
    member.modified = utcnow()
    db.flush()
    return member


@operation("groupMember.remove")
def remove_group_member(db: Session, group: Group, user: User,
                        actor_id: int | None = None) -> None:
    lock_row(db, Group, group.id)
    member = group_membership(db, group.id, user.id)
    if member is None:
        raise NotGroupMember(user.username)
    if actor_id is not None and actor_id != user.id:
        _may_grant(membership_level(db, group.id, actor_id), member.access_level,
                   f"remove a member who is {AccessLevel(member.access_level).label}")
    _keeps_an_owner(db, group, member)
    db.delete(member)
    db.flush()


# -- shares -----------------------------------------------------------------------------------


class AlreadyShared(Conflict):
    def __init__(self, what: str, group: str) -> None:
        super().__init__(f"{what} is already shared with group {group}.")


@operation("groupShare.create")
def share_with_group(db: Session, grantee: Group, level: AccessLevel, *,
                     group: Group | None = None, project: Project | None = None,
                     actor_id: int | None = None) -> GroupShare:
    """Share ``group`` or ``project`` with ``grantee`` up to ``level`` (no higher than the
    actor's own level by membership)."""
    if actor_id is not None:
        held = (membership_level(db, group.id, actor_id) if group is not None
                else project_membership_level(db, project, actor_id))  # type: ignore[arg-type]
        _may_grant(held, level.value, f"share at {level.label}")
    if group is not None and group.id == grantee.id:
        raise Invalid.field("groupId", "A group cannot be shared with itself.")
    existing = select(GroupShare.id).where(GroupShare.group_id == grantee.id)
    if group is not None:
        existing = existing.where(GroupShare.shared_group_id == group.id)
    else:
        assert project is not None
        existing = existing.where(GroupShare.project_id == project.id)
    what = group.full_path if group is not None else project.full_path  # type: ignore[union-attr]
    if db.scalar(existing) is not None:
        raise AlreadyShared(what, grantee.full_path)
    share = GroupShare(group_id=grantee.id, access_level=level.value, created=utcnow(),
                       shared_group_id=group.id if group is not None else None,
                       project_id=project.id if project is not None else None)
    savepoint = db.begin_nested()
    try:
        db.add(share)
        db.flush()
    except IntegrityError:
        savepoint.rollback()
        raise AlreadyShared(what, grantee.full_path) from None
    savepoint.commit()
    return share


@operation("groupShare.update")
def change_share_level(db: Session, share: GroupShare, level: AccessLevel, *,
                       actor_id: int | None = None) -> GroupShare:
    """Give the share another level, within the actor's own level by membership (as when
    sharing: ``None``, an administrator, is unbounded) for the share as it is and as it
    becomes."""
    if actor_id is not None:
        if share.shared_group_id is not None:
            held = membership_level(db, share.shared_group_id, actor_id)
        else:
            project = db.get_one(Project, share.project_id)
            held = project_membership_level(db, project, actor_id)
        _may_grant(held, share.access_level,
                   f"change a share at {AccessLevel(share.access_level).label}")
        _may_grant(held, level.value, f"share at {level.label}")
    share.access_level = level.value
    db.flush()
    return share


@operation("groupShare.delete")
def unshare(db: Session, share: GroupShare) -> None:
    db.delete(share)
    db.flush()
