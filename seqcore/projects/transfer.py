"""Moving a project to another namespace, and a group under another group (or to the top).

What a move changes, and what it keeps:

* a project's ``namespace`` and ``group_id`` (so its ``full_path``); a group's ``parent_id``,
  ``full_path`` and ``full_name``, those of every group below it, and the ``namespace`` of
  every project in any of them; the group closure (``group_hierarchy``) rows that link the
  moved subtree to the groups above it are replaced by rows to its new ancestors;
* PUIDs, ids, direct memberships, shares and the samples a project holds never change.

Access inherited through groups (:mod:`seqcore.security.inheritance`) is read from
``group_id`` and the closure, so it follows the move at once: members of the old parent
groups lose what they reached through them, members of the new ones gain it.

Who moves what: an owner of the project or group (:mod:`seqcore.projects.ownership`), into
a group it may create in (:func:`seqcore.projects.groups.check_may_create_in`), or a
project into the mover's own personal namespace, or a group to the top (where any account
that may create groups may put one). Everything is checked before anything is written:
a path taken at the destination, a group moved under itself or a group below it, a tree
that would nest too deep or a full path too long are refused and change nothing.
"""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.db.locks import lock_row
from seqcore.errors.domain import Invalid
from seqcore.governance.activity import note, operation
from seqcore.models.group import AccessLevel, Group, GroupHierarchy, GroupMember
from seqcore.models.project import Project
from seqcore.models.user import User
from seqcore.projects.groups import (
    MAX_DEPTH,
    MAX_FULL_PATH,
    check_may_create_in,
    membership_level,
    path_is_taken,
    permanent_owners,
)
from seqcore.projects.namespaces import namespace_for, path_taken
from seqcore.projects.ownership import check_owns_group, check_owns_project


def _project_taken(namespace: str, path: str) -> Invalid:
    return Invalid.field("path", f"Path {path} has already been taken in namespace "
                                 f"{namespace}: rename the project's path first.")


@operation("project.transfer")
def transfer_project(db: Session, project: Project, actor_id: int,
                     group: Group | None) -> Project:
    """Move ``project`` into ``group``, or (``group`` ``None``) into the actor's personal
    namespace. :class:`~seqcore.errors.domain.Invalid` (nothing changed) when it is there
    already or its path is taken there; :class:`~seqcore.errors.domain.Forbidden` when the
    actor does not own it or may not create in ``group``."""
    check_owns_project(db, project, actor_id)
    if group is not None:
        check_may_create_in(db, group, actor_id, "move a project into this group")
        namespace = group.full_path
    else:
        username = db.scalar(select(User.username).where(User.id == actor_id))
        assert username is not None
        namespace = namespace_for(username)
    lock_row(db, Project, project.id)
    if project.namespace == namespace and project.group_id == (
            None if group is None else group.id):
        raise Invalid.field("namespace", f"The project is in namespace {namespace} already.")
    if len(namespace) + 1 + len(project.path) > MAX_FULL_PATH:
        raise Invalid.field("namespace", f"Full path would be too long (maximum is "
                                         f"{MAX_FULL_PATH} characters).")
    if path_taken(db, namespace, project.path):
        raise _project_taken(namespace, project.path)
    savepoint = db.begin_nested()
    try:
        project.namespace = namespace
        project.group_id = None if group is None else group.id
        project.modified = utcnow()
        db.flush()
    except IntegrityError:  # a concurrent request took the path after the check
        savepoint.rollback()
        raise _project_taken(namespace, project.path) from None
    savepoint.commit()
    return project


def _subtree(db: Session, group: Group) -> list[tuple[int, int]]:
    """The groups at or below ``group`` with their distance from it."""
    return [(row.descendant_id, row.depth) for row in db.execute(
        select(GroupHierarchy.descendant_id, GroupHierarchy.depth)
        .where(GroupHierarchy.ancestor_id == group.id))]


def _check_group_move(db: Session, group: Group, parent: Group | None,
                      below: list[tuple[int, int]]) -> None:
    """Every reason ``group`` cannot move under ``parent``, as one
    :class:`~seqcore.errors.domain.Invalid`."""
    if parent is not None and parent.id in {gid for gid, _ in below}:
        what = "itself" if parent.id == group.id else "a group below it"
        raise Invalid.field("parent", f"A group cannot be moved under {what}.")
    if group.parent_id == (None if parent is None else parent.id):
        where = "at the top level" if parent is None else f"in group {parent.full_path}"
        raise Invalid.field("parent", f"The group is {where} already.")
    problems: dict[str, list[str]] = {}
    if path_is_taken(db, parent, group.path):
        where = "at the top level" if parent is None else f"in group {parent.full_path}"
        problems["path"] = [f"Path {group.path} has already been taken {where}: rename the "
                            "group's path first."]
    levels = 0 if parent is None else db.scalar(
        select(func.count()).select_from(GroupHierarchy)
        .where(GroupHierarchy.descendant_id == parent.id)) or 0
    height = max(depth for _, depth in below)
    if levels + 1 + height > MAX_DEPTH:
        problems.setdefault("parent", []).append(
            f"Groups nest at most {MAX_DEPTH} levels deep.")
    longest = db.scalar(select(func.max(func.length(Group.full_path)))
                        .where(Group.id.in_([gid for gid, _ in below]))) or 0
    project_paths = db.scalar(
        select(func.max(func.length(Project.namespace) + 1 + func.length(Project.path)))
        .where(Project.group_id.in_([gid for gid, _ in below]))) or 0
    new_prefix = len(group.path) if parent is None else len(parent.full_path) + 1 + len(
        group.path)
    grows = new_prefix - len(group.full_path)
    if max(longest, project_paths) + grows > MAX_FULL_PATH:
        problems.setdefault("path", []).append(
            f"Full paths below the group would be too long (maximum is {MAX_FULL_PATH} "
            "characters).")
    if problems:
        raise Invalid(problems)


def _keeps_an_owner(db: Session, group: Group, actor_id: int) -> None:
    """A group moved to the top keeps a direct owner whose membership does not expire
    (:mod:`seqcore.projects.groups`'s invariant): if it has none, the mover, who owns it
    through a group above, becomes one; an administrator with no such membership is asked to
    name one first."""
    if permanent_owners(db, group.id):  # an owner whose membership expires does not count
        return
    if membership_level(db, group.id, actor_id) < AccessLevel.OWNER:  # an administrator
        raise Invalid.field("parent", "A top-level group must keep at least one owner: "
                                      "make a member a direct owner of the group first.")
    mine = db.scalar(select(GroupMember).where(GroupMember.group_id == group.id,
                                               GroupMember.user_id == actor_id))
    if mine is None:
        db.add(GroupMember(group_id=group.id, user_id=actor_id,
                           access_level=AccessLevel.OWNER.value, created=utcnow()))
    else:  # an expired or expiring membership of the mover becomes a lasting one
        mine.access_level = AccessLevel.OWNER.value
        mine.expires_at = None
        mine.modified = utcnow()


@operation("group.transfer")
def transfer_group(db: Session, group: Group, actor_id: int, parent: Group | None) -> Group:
    """Move ``group`` (with everything below it) under ``parent``, or to the top level
    (``parent`` ``None``); see the module for what changes and what is refused."""
    check_owns_group(db, group, actor_id)
    if parent is not None:
        check_may_create_in(db, parent, actor_id, "move a group into this group")
    lock_row(db, Group, group.id)
    below = _subtree(db, group)
    _check_group_move(db, group, parent, below)
    if parent is None:
        _keeps_an_owner(db, group, actor_id)
    ids = [gid for gid, _ in below]
    old_path, old_name = group.full_path, group.full_name
    new_path = group.path if parent is None else f"{parent.full_path}/{group.path}"
    new_name = group.name if parent is None else f"{parent.full_name} / {group.name}"
    savepoint = db.begin_nested()
    try:
        # The closure: links from above the subtree go, links from the new ancestors come.
        db.execute(delete(GroupHierarchy).where(
            GroupHierarchy.descendant_id.in_(ids), GroupHierarchy.ancestor_id.not_in(ids)))
        if parent is not None:
            above = db.execute(select(GroupHierarchy.ancestor_id, GroupHierarchy.depth)
                               .where(GroupHierarchy.descendant_id == parent.id)).all()
            db.add_all(GroupHierarchy(ancestor_id=ancestor, descendant_id=gid,
                                      depth=up + down + 1)
                       for ancestor, up in above for gid, down in below)
        now = utcnow()
        group.parent_id = None if parent is None else parent.id
        moved = {gid: None for gid in ids}
        for each in db.scalars(select(Group).where(Group.id.in_(ids))):
            each.full_path = new_path + each.full_path[len(old_path):]
            each.full_name = new_name + each.full_name[len(old_name):]
            each.modified = now
            moved[each.id] = each.full_path  # type: ignore[assignment]
        db.flush()
        for project in db.scalars(select(Project).where(Project.group_id.in_(ids))):
            project.namespace = moved[project.group_id]  # type: ignore[assignment, index]
            project.modified = now
        db.flush()
    except IntegrityError:  # a concurrent request took a path after the check
        savepoint.rollback()
        raise Invalid.field("path", "A path at the destination was taken meanwhile; "
                                    "nothing was moved.") from None
    savepoint.commit()
    note(db, on="groupHierarchy", group=group.id, action="moved",
         values={"from": old_path, "to": new_path, "groups": len(ids)})
    return group
