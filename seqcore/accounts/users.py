"""Account names: usernames and e-mail addresses are unique regardless of letter case.

Two accounts ``Alice`` and ``alice`` (or ``Bob@Example.org`` and ``bob@example.org``) would
let one person pass for another in every list that shows names, so the database refuses
them: each account stores the *name key* (:func:`seqcore.models.user.name_key`) of both, the
same on every database, and the key columns carry unique indexes (migration ``c0007``).

Deleting an account (:func:`delete_account`) is for accounts that hold nothing: an account
that owns projects, submitted analyses or created sequencing runs is the record of who made
them, so deleting it is refused, naming what it owns; disabling it (``enabled: false``) ends
its access and keeps that record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from seqcore.db.locks import lock_row
from seqcore.errors.conflicts import DUPLICATE
from seqcore.errors.domain import Conflict
from seqcore.models.access_token import PersonalAccessToken, WebSession
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthToken
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.sequencing import SequencingRun
from seqcore.models.user import SystemRole, User, name_key


def duplicate_field(db: Session, username: str | None, email: str | None,
                    exclude_id: int | None = None) -> str | None:
    """``"username"`` or ``"email"`` if another account already has that name in any letter
    case, else ``None``. A concurrent request can still take the name before this one
    commits; the unique index then refuses it (see :mod:`seqcore.errors.conflicts`)."""
    for field, column, value in (("username", User.username_key, username),
                                 ("email", User.email_key, email)):
        if value is None:
            continue
        query = select(User.id).where(column == name_key(value))
        if exclude_id is not None:
            query = query.where(User.id != exclude_id)
        if db.scalar(query) is not None:
            return field
    return None


def create_account(db: Session, values: Mapping[str, Any], password_hash: str) -> User:
    """An account from ``values`` as :class:`seqcore.parsing.schemas.UserSchema` loads them
    (REST's names: ``firstName``, ``systemRole``...) and the hash of its password (the
    caller checked the password's rules and hashed it). :class:`Conflict` naming the field
    when the username or e-mail address is taken in any letter case, nothing stored."""
    field = duplicate_field(db, values["username"], values["email"])
    if field is not None:
        raise Conflict(DUPLICATE.format(field=field))
    user = User(
        username=values["username"], email=values["email"], password_hash=password_hash,
        first_name=values["firstName"], last_name=values["lastName"],
        phone_number=values["phoneNumber"],
        system_role=values.get("systemRole", SystemRole.USER.value),
        enabled=values.get("enabled", True), locale=values.get("locale", "en"))
    db.add(user)
    db.flush()
    return user


LAST_ADMIN = ("The account {id} is the last enabled administrator; make another account an "
              "administrator before deleting it.")
OWNS_DATA = ("The account {id} owns data and cannot be deleted: {owned}. Disable it instead "
             "(PATCH /api/users/{id} with {{\"enabled\": false}}): it can then no longer sign "
             "in, and what it made keeps its record of who made it.")


def _ids(db: Session, query: object) -> list[int]:
    return list(db.scalars(query))  # type: ignore[call-overload]


def owned_data(db: Session, user_id: int) -> dict[str, list[int]]:
    """What the account owns, by kind, as sorted ids: ``projects`` it is an owner of,
    analysis ``submissions`` it submitted and sequencing ``runs`` it created (kinds with
    none are left out)."""
    owned = {
        "projects": _ids(db, select(ProjectMember.project_id).where(
            ProjectMember.user_id == user_id, ProjectMember.role == ProjectRole.OWNER.value)
            .order_by(ProjectMember.project_id)),
        "submissions": _ids(db, select(AnalysisSubmission.id).where(
            AnalysisSubmission.submitter_id == user_id).order_by(AnalysisSubmission.id)),
        "runs": _ids(db, select(SequencingRun.id).where(
            SequencingRun.user_id == user_id).order_by(SequencingRun.id)),
    }
    return {kind: ids for kind, ids in owned.items() if ids}


def _describe(owned: dict[str, list[int]]) -> str:
    names = {"projects": "owner of project(s)", "submissions": "submitter of analysis "
             "submission(s)", "runs": "creator of sequencing run(s)"}
    return "; ".join(f"{names[kind]} {', '.join(map(str, ids))}" for kind, ids in owned.items())


def delete_account(db: Session, user: User) -> None:
    """Delete ``user`` with its memberships and every credential it holds (OAuth tokens and
    codes, personal access tokens, web sessions), so nothing it was granted still works.

    Raises :class:`~seqcore.errors.domain.Conflict`, changing nothing, when the account is the last
    enabled administrator or owns data (:func:`owned_data`).
    """
    # Hold the account's row first: a project, run or submission the account creates while
    # this runs then waits, and fails on the deleted row instead of losing its owner.
    lock_row(db, User, user.id)
    if user.system_role == SystemRole.ADMIN.value and user.enabled:
        # Hold every administrator's row before counting them, so two administrators
        # deleting each other at once cannot both succeed and leave none.
        db.execute(update(User).where(User.system_role == SystemRole.ADMIN.value)
                   .values(id=User.id).execution_options(synchronize_session=False))
        admins = db.execute(select(func.count()).select_from(User).where(
            User.system_role == SystemRole.ADMIN.value, User.enabled.is_(True))).scalar_one()
        if admins <= 1:
            raise Conflict(LAST_ADMIN.format(id=user.id))
    owned = owned_data(db, user.id)
    if owned:
        raise Conflict(OWNS_DATA.format(id=user.id, owned=_describe(owned)))
    for model in (OAuthToken, OAuthAuthorizationCode, PersonalAccessToken, WebSession,
                  ProjectMember):
        db.execute(delete(model).where(model.user_id == user.id))
    db.execute(delete(User).where(User.id == user.id))
    db.expire_all()
