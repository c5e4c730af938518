"""``/-/admin/users``: the accounts, for administrators: a page at a time, searched by name
or e-mail address and filtered by system role and status; a form creating an account, and
on each account's row forms changing its system role and enabling or disabling it. These are
REST's operations on ``/api/users`` under its rules (the same schema and messages, the
password rules, names unique in any letter case; only administrators change a role or
enable an account), so the page refuses what REST refuses. Bot accounts are listed but
changed on their namespace's bot page, where they are made."""

from __future__ import annotations

from html import escape
from typing import Any

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import or_, select

from seqcore.accounts.users import create_account
from seqcore.db import utcnow
from seqcore.models.user import SystemRole, User
from seqcore.parsing.schemas import UserSchema
from seqcore.security.passwords import hash_with_settings, password_problems
from seqcore.security.permissions import Permission
from seqcore.web.forms import load_form
from seqcore.web.guard import PageError, add_page, administrator, context_at, require
from seqcore.web.i18n import _, translate
from seqcore.web.render import page
from seqcore.web.table import Cell, Column, Filter, Row, Table, TablePage, page_of

#: The system roles an account may be given (``ROLE_BOT`` is a bot's, given when it is made).
ROLES = {SystemRole.USER.value: _("User"), SystemRole.MANAGER.value: _("Manager"),
         SystemRole.TECHNICIAN.value: _("Technician"),
         SystemRole.SEQUENCER.value: _("Sequencer"), SystemRole.ADMIN.value: _("Administrator")}
STATUSES = (("enabled", _("Enabled")), ("disabled", _("Disabled")))
#: The create form's fields, by REST's names.
FIELDS = ("username", "email", "firstName", "lastName", "phoneNumber", "password",
          "systemRole")

TABLE = Table(
    "accounts",
    (Column("username", _("Account"), sortable=True), Column("name", _("Name"), sortable=True),
     Column("email", _("E-mail"), sortable=True), Column("role", _("System role"),
                                                          sortable=True),
     Column("status", _("Status"), sortable=True),
     Column("created", _("Created"), sortable=True), Column("actions", _("Actions"))),
    filters=(Filter("q", _("Name or e-mail contains")),
             Filter("role", _("System role"), "choice", tuple(ROLES.items())),
             Filter("status", _("Status"), "choice", STATUSES)),
    default_sort="username", caption=_("Accounts"))


def _actions(request: Request, user: User, token: str) -> str:
    """The row's forms (escaped here: the table's cells hold markup or text)."""
    if user.is_bot:
        return f'<span class="muted">{escape(translate(request, _("bot account")))}</span>'
    name = escape(user.username)
    options = "".join(
        f'<option value="{value}"{" selected" if value == user.system_role else ""}>'
        f'{escape(translate(request, label))}</option>' for value, label in ROLES.items())
    role_label = escape(translate(request, _("System role of ${name}",
                                             mapping={"name": user.username})))
    change_label = escape(translate(request, _("Change the role of ${name}",
                                               mapping={"name": user.username})))
    hidden = f'<input type="hidden" name="csrf_token" value="{escape(token)}">'
    role_form = (
        f'<form method="post" class="inline" action="'
        f'{escape(request.route_path("web.admin.account.role", id=user.id))}">{hidden}'
        f'<select name="system_role" aria-label="{role_label}">{options}</select> '
        f'<button type="submit" class="secondary" aria-label="{change_label}">'
        f'{escape(translate(request, _("Change")))}</button></form>')
    enable = not user.enabled
    verb = _("Enable") if enable else _("Disable")
    status_form = (
        f'<form method="post" class="inline" action="'
        f'{escape(request.route_path("web.admin.account.status", id=user.id))}">{hidden}'
        f'<input type="hidden" name="enabled" value="{"true" if enable else "false"}">'
        f'<button type="submit" class="{"secondary" if enable else "danger"}" aria-label="'
        f'{escape(translate(request, verb))} {name}">{escape(translate(request, verb))}'
        '</button></form>')
    return role_form + " " + status_form


def accounts_page(request: Request, status: int = 200, **values: Any) -> Response:
    administrator(request)
    state = TABLE.state(request.GET)
    statement = select(User)
    text = state.filters.get("q")
    if text:
        pattern = f"%{text}%"
        statement = statement.where(or_(User.username.ilike(pattern), User.email.ilike(pattern),
                                        User.first_name.ilike(pattern),
                                        User.last_name.ilike(pattern)))
    if state.filters.get("role"):
        statement = statement.where(User.system_role == state.filters["role"])
    if state.filters.get("status"):
        statement = statement.where(User.enabled.is_(state.filters["status"] == "enabled"))
    token = request.session.get_csrf_token()

    def to_row(row: Any) -> Row:
        user = row[0]
        status_label = translate(request, _("Enabled") if user.enabled else _("Disabled"))
        role = ROLES.get(user.system_role)
        return Row(str(user.id), (
            Cell(user.username + (f" ({translate(request, _('bot'))})" if user.is_bot else "")),
            Cell(f"{user.first_name or ''} {user.last_name or ''}".strip()),
            Cell(user.email or ""),
            Cell(translate(request, role) if role is not None else user.system_role),
            Cell(html=f'<span class="badge">{escape(status_label)}</span>'),
            Cell(user.created.strftime("%Y-%m-%d") if user.created else ""),
            Cell(html=_actions(request, user, token))))

    rows, total = page_of(request.db, statement, state,
                          {"username": User.username, "name": User.last_name,
                           "email": User.email, "role": User.system_role,
                           "status": User.enabled, "created": User.created}, User.id, to_row)
    values.setdefault("problems", {})
    values.setdefault("form", {})
    return page(request, "accounts.mako", status=status,
                table=TablePage(TABLE, state, rows, total), roles=ROLES, **values)


def create(request: Request) -> Response:
    administrator(request)
    require(request, context_at(request, "users"), Permission.USER_CREATE)
    form = {name: request.POST.get(name, "").strip() for name in FIELDS}
    form["password"] = request.POST.get("password", "")
    values, problems = load_form(UserSchema(), form)
    rules = password_problems(form["password"])
    if rules and "password" not in problems:
        problems["password"] = " ".join(rules)
    if problems:
        form.pop("password")
        return accounts_page(request, status=400, problems=problems, form=form)
    user = create_account(request.db, values,
                          hash_with_settings(values["password"], request.registry.settings))
    request.session.flash(translate(request, _("Account ${name} created.",
                                               mapping={"name": user.username})))
    return HTTPSeeOther(location=request.route_path(
        "web.admin.accounts", _query={"q": user.username}))


def _account(request: Request) -> User:
    administrator(request)
    context = context_at(request, "users", request.matchdict["id"])
    require(request, context, Permission.USER_UPDATE)
    user: User = context.user
    if user.is_bot:
        raise PageError(400, _("A bot account is changed on the bot page of its project or "
                               "group."))
    return user


def _changed(request: Request, user: User) -> Response:
    user.modified = utcnow()
    request.db.flush()
    request.session.flash(translate(request, _("${name} changed.",
                                               mapping={"name": user.username})))
    return HTTPSeeOther(location=request.route_path(
        "web.admin.accounts", _query={"q": user.username}))


def change_role(request: Request) -> Response:
    user = _account(request)
    values, problems = load_form(UserSchema(partial=True),
                                 {"systemRole": request.POST.get("system_role", "")})
    if problems or "systemRole" not in values:
        raise PageError(400, problems.get("systemRole")
                        or _("Choose a system role from the list."))
    user.system_role = values["systemRole"]
    return _changed(request, user)


def change_status(request: Request) -> Response:
    user = _account(request)
    value = request.POST.get("enabled", "")
    if value not in ("true", "false"):
        raise PageError(400, _("\"enabled\" is true or false."))
    user.enabled = value == "true"
    return _changed(request, user)


def includeme(config: Configurator) -> None:
    base = "/-/admin/users"
    add_page(config, "web.admin.accounts", base, accounts_page)
    add_page(config, "web.admin.accounts", None, create, method="POST")
    add_page(config, "web.admin.account.role", base + "/{id:\\d+}/role", change_role,
             method="POST")
    add_page(config, "web.admin.account.status", base + "/{id:\\d+}/enabled", change_status,
             method="POST")
