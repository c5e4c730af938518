"""``/api/users``: accounts."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from sqlalchemy import select

from seqcore.accounts.users import create_account, delete_account, duplicate_field
from seqcore.db import utcnow
from seqcore.errors.conflicts import DUPLICATE
from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.models.user import SystemRole, User
from seqcore.notifications.kinds import KINDS
from seqcore.notifications.outbox import mail_enabled
from seqcore.notifications.preferences import preferences, set_preferences
from seqcore.parsing.schemas import UserSchema
from seqcore.rest.body import lenient_create, load, read_json
from seqcore.rest.envelope import collection, entry, links_only
from seqcore.rest.errors import ApiError, validation_error
from seqcore.rest.values import epoch_ms
from seqcore.rest.views.projects import archived_condition, project_entry
from seqcore.security.access import readable_projects
from seqcore.security.credentials import end_other_credentials
from seqcore.security.passwords import hash_password, password_problems
from seqcore.security.permissions import Permission
from seqcore.security.policy import bearer_token
from seqcore.security.signin import LOCKED_MESSAGE, Outcome, authenticate


def user_fields(user: User) -> dict[str, Any]:
    return {
        "username": user.username,
        "email": user.email,
        "firstName": user.first_name,
        "lastName": user.last_name,
        "phoneNumber": user.phone_number,
        "enabled": user.enabled,
        "systemRole": user.system_role,
        "userType": user.user_type,
        "createdDate": epoch_ms(user.created),
        "modifiedDate": epoch_ms(user.modified),
        "locale": user.locale,
        "label": user.label,
    }


def user_entry(request: Request, context: Any) -> dict[str, Any]:
    return entry(request, context, user_fields(context.user), identifier=context.user.id)


def _hash(request: Request, password: str) -> str:
    settings = request.registry.settings
    return hash_password(password, int(settings["seqcore.password_hash.time_cost"]),
                         int(settings["seqcore.password_hash.memory_cost"]))


def check_unique(request: Request, username: str | None, email: str | None,
                 exclude_id: int | None = None) -> None:
    """409 naming the duplicated field (in any letter case), checked before writing so
    nothing is half-done."""
    field = duplicate_field(request.db, username, email, exclude_id)
    if field is not None:
        raise ApiError(409, message=DUPLICATE.format(field=field))


def list_users(request: Request) -> dict:
    users = request.db.scalars(select(User).order_by(User.id))
    context = request.context
    from seqcore.resources.users import UserResource

    return collection(request, context, (
        user_entry(request, UserResource(request, str(u.id), context, u)) for u in users
    ))


def create_user(request: Request) -> dict:
    data = load(request, UserSchema(), allow_unknown=lenient_create(request))
    problems = password_problems(data["password"])
    if problems:
        raise validation_error({"password": problems})
    role = SystemRole(data.get("systemRole", SystemRole.USER.value))
    identity = request.identity
    if not identity.is_admin and role is not SystemRole.USER:
        raise ApiError(403, message="Managers may only create accounts with ROLE_USER.")
    check_unique(request, data["username"], data["email"])
    user = create_account(request.db, {**data, "systemRole": role.value},
                          _hash(request, data["password"]))
    context = request.context[str(user.id)]
    request.response.status = 201
    request.response.location = url_for(request, context)
    return {"resource": user_entry(request, context)}


def get_user(request: Request) -> dict:
    return {"resource": user_entry(request, request.context)}


def _check_current_password(request: Request, user: User, current: str | None
                            ) -> dict | None:
    """A caller changing their own password must give the current one (administrators
    resetting another account's need not). Checked under the sign-in limit; the refusal is
    returned, not raised, so the recorded failure is committed."""
    if request.identity.user_id != user.id:
        return None
    if not current:
        request.response.status = 400
        return {"currentPassword": ["You must provide your current password to change it."]}
    result = authenticate(request, user.username, current)
    if result.outcome is Outcome.LOCKED:
        request.response.status = 429
        return {"message": LOCKED_MESSAGE}
    if result.outcome is not Outcome.OK:
        request.response.status = 400
        return {"currentPassword": ["The current password is not correct."]}
    return None


def update_user(request: Request) -> dict:
    user: User = request.context.user
    data = load(request, UserSchema(), partial=True)
    if "systemRole" in data and not request.identity.is_admin:
        raise ApiError(403, message="Only administrators may change a system role.")
    if "enabled" in data and not request.identity.is_admin:
        raise ApiError(403, message="Only administrators may enable or disable accounts.")
    if "password" in data:
        problems = password_problems(data["password"])
        if problems:
            raise validation_error({"password": problems})
        refused = _check_current_password(request, user, data.get("currentPassword"))
        if refused is not None:
            return refused
    check_unique(request, data.get("username"), data.get("email"), exclude_id=user.id)
    mapping = {"username": "username", "email": "email", "firstName": "first_name",
               "lastName": "last_name", "phoneNumber": "phone_number",
               "systemRole": "system_role", "enabled": "enabled", "locale": "locale"}
    for key, attr in mapping.items():
        if key in data:
            setattr(user, attr, data[key])
    if "password" in data:
        user.password_hash = _hash(request, data["password"])
        own = request.identity.user_id == user.id
        end_other_credentials(request.db, user.id,
                              keep_access_token=bearer_token(request) if own else None,
                              keep_personal_tokens=bool(data.get("keepPersonalAccessTokens")))
    user.modified = utcnow()
    request.db.flush()
    return links_only([("self", url_for(request, request.context)),
                       ("collection", url_for(request, request.context.__parent__))])


def remove_user(request: Request) -> dict:
    """Delete an account that owns nothing (409 naming what it owns otherwise, with
    disabling as the alternative); its tokens and sessions go with it."""
    delete_account(request.db, request.context.user)
    return links_only([("collection", url_for(request, request.context.__parent__))])


def user_projects(request: Request) -> dict:
    """The projects the account can read (the caller must be that account or an admin).

    IRIDA wraps this one list under ``projectResources`` instead of ``resource``, and its
    clients read it there; the contract's envelope is ``resource``. The answer carries both
    keys with the same collection (as ``/api/version`` does); the entries and links are
    those of every other collection."""
    user: User = request.context.__parent__.user
    projects_root = request.root["api"]["projects"]
    query = readable_projects(user.id, user.role).where(archived_condition(request))
    entries = (project_entry(request, projects_root.resource_for(p))
               for p in request.db.scalars(query))
    projects = collection(request, request.context, entries)["resource"]
    return {"resource": projects, "projectResources": projects}


def _notifications(request: Request, chosen: dict[str, bool]) -> dict:
    """The envelope of an account's notification choices, with its links."""
    return {"resource": {
        "notifications": chosen, "kinds": dict(KINDS),
        "mailEnabled": mail_enabled(request.registry.settings),
        "links": [{"rel": "self", "href": url_for(request, request.context)},
                  {"rel": "user", "href": url_for(request, request.context.__parent__)}]}}


def get_notifications(request: Request) -> dict:
    """Which kinds of e-mail notification the account receives."""
    user: User = request.context.__parent__.user
    return _notifications(request, preferences(request.db, user.id))


def put_notifications(request: Request) -> dict:
    """Turn kinds on or off: ``{"export_ready": false}``; kinds not named keep their state."""
    user: User = request.context.__parent__.user
    return _notifications(request, set_preferences(request.db, user.id, read_json(request)))


ENDPOINTS = [
    Endpoint("api.users", "/api/users", {
        "GET": View(list_users, Permission.USER_LIST),
        "POST": View(create_user, Permission.USER_CREATE),
    }, description="Accounts."),
    Endpoint("api.user", "/api/users/{key}", {
        "GET": View(get_user, Permission.USER_READ),
        "PATCH": View(update_user, Permission.USER_UPDATE),
        "DELETE": View(remove_user, Permission.USER_DELETE),
    }, description="One account, by numeric id, username, or 'current'; DELETE "
                   "(administrators) removes an account that owns nothing."),
    Endpoint("api.user.projects", "/api/users/{key}/projects", {
        "GET": View(user_projects, Permission.USER_PROJECTS),
    }, description="The projects an account can read."),
    Endpoint("api.user.notifications", "/api/users/{key}/notifications", {
        "GET": View(get_notifications, Permission.USER_UPDATE),
        "PUT": View(put_notifications, Permission.USER_UPDATE),
    }, description="Which e-mail notifications the account receives (the account itself "
                   "and administrators); PUT {kind: true|false} turns kinds on or off."),
]
