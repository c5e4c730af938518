"""``seqcore users``: accounts and their credentials, for administrators."""

from __future__ import annotations

from typing import Any

import click
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.cli.base import ROLES, Env, main, pass_env

# -- users ------------------------------------------------------------------------------------


def create_user(db: Session, settings: dict[str, Any], **fields: Any) -> Any:
    from seqcore.accounts.users import duplicate_field
    from seqcore.models.user import User
    from seqcore.security.passwords import hash_password, password_problems

    problems = password_problems(fields["password"])
    if problems:
        raise click.BadParameter(" ".join(problems), param_hint="--password")
    field = duplicate_field(db, fields["username"], fields["email"])
    if field is not None:
        raise click.BadParameter(f"a user with that {field} (in any letter case) already "
                                 "exists", param_hint=f"--{field}")
    user = User(
        username=fields["username"], email=fields["email"],
        password_hash=hash_password(fields["password"],
                                    settings["seqcore.password_hash.time_cost"],
                                    settings["seqcore.password_hash.memory_cost"]),
        first_name=fields["first_name"], last_name=fields["last_name"],
        phone_number=fields.get("phone_number"), system_role=fields["role"],
    )
    db.add(user)
    db.flush()
    return user


@main.group()
def users() -> None:
    """Accounts."""


@users.command("create")
@click.option("--username", required=True)
@click.option("--email", required=True)
@click.option("--password", required=True, prompt=True, hide_input=True,
              confirmation_prompt=True)
@click.option("--first-name", required=True)
@click.option("--last-name", required=True)
@click.option("--phone-number", default=None)
@click.option("--role", default="ROLE_USER", show_default=True, type=click.Choice(ROLES))
@pass_env
def users_create(env: Env, /, **fields: Any) -> None:
    """Create an account."""
    with env.session() as db:
        user = create_user(db, env.settings, **fields)
        click.echo(f"created user {user.username} (id {user.id}, {user.system_role})")


# -- administration: accounts and their credentials ------------------------------------------
# What a system administrator does from the shell, without a token: list accounts, lock one
# out, reset a forgotten password, change a role, and revoke everything a user was granted.

def find_user(db: Session, username: str) -> Any:
    """The account named ``username`` (in any letter case, as sign-in matches it), or a
    usage error naming it."""
    from seqcore.models.user import User, name_key

    user = db.scalar(select(User).where(User.username_key == name_key(username)))
    if user is None:
        raise click.BadParameter(f"no user {username!r}", param_hint="USERNAME")
    return user


def warn_without_admin(db: Session) -> None:
    """A warning when no enabled administrator remains (``users enable`` or ``set-role``
    gives one back)."""
    from seqcore.models.user import SystemRole, User

    if db.scalar(select(User.id).where(User.system_role == SystemRole.ADMIN.value,
                                       User.enabled.is_(True)).limit(1)) is None:
        click.echo("warning: no enabled administrator remains", err=True)


def revoke_credentials(db: Session, user_id: int) -> dict[str, int]:
    """End every web session and revoke every OAuth2 and personal access token of
    ``user_id``; returns how many of each were still live."""
    from sqlalchemy import func

    from seqcore.models.access_token import PersonalAccessToken, WebSession
    from seqcore.models.oauth import OAuthToken
    from seqcore.security.credentials import end_other_credentials

    counts = {
        "OAuth2 tokens": db.scalar(select(func.count(OAuthToken.id)).where(
            OAuthToken.user_id == user_id, OAuthToken.revoked.is_(False))) or 0,
        "personal access tokens": db.scalar(select(func.count(PersonalAccessToken.id)).where(
            PersonalAccessToken.user_id == user_id,
            PersonalAccessToken.revoked.is_(False))) or 0,
        "web sessions": db.scalar(select(func.count(WebSession.id)).where(
            WebSession.user_id == user_id)) or 0,
    }
    end_other_credentials(db, user_id)
    return counts


@users.command("list")
@click.option("--disabled/--all", "only_disabled", default=False,
              help="Only disabled accounts.")
@pass_env
def users_list(env: Env, only_disabled: bool) -> None:
    """List accounts: id, username, e-mail, role, enabled or disabled (tab-separated)."""
    from seqcore.models.user import User

    with env.session() as db:
        query = select(User).order_by(User.id)
        if only_disabled:
            query = query.where(User.enabled.is_(False))
        for user in db.scalars(query):
            state = "enabled" if user.enabled else "disabled"
            click.echo(f"{user.id}\t{user.username}\t{user.email}\t{user.system_role}\t"
                       f"{state}")


@users.command("disable")
@click.argument("username")
@pass_env
def users_disable(env: Env, username: str) -> None:
    """Disable an account: it can no longer sign in, and its tokens and sessions stop
    working at once (they stay refused after ``users enable``)."""
    with env.session() as db:
        user = find_user(db, username)
        user.enabled = False
        revoke_credentials(db, user.id)
        db.flush()
        warn_without_admin(db)
    click.echo(f"disabled {user.username}")


@users.command("enable")
@click.argument("username")
@pass_env
def users_enable(env: Env, username: str) -> None:
    """Enable a disabled account again."""
    from seqcore.db import utcnow

    with env.session() as db:
        user = find_user(db, username)
        user.enabled = True
        user.modified = utcnow()
    click.echo(f"enabled {user.username}")


@users.command("set-password")
@click.argument("username")
@click.option("--password", required=True, prompt=True, hide_input=True,
              confirmation_prompt=True, help="Prompted for (hidden) when not given.")
@pass_env
def users_set_password(env: Env, username: str, password: str) -> None:
    """Set an account's password (the same rules as everywhere else); every session and
    token granted with the old one ends."""
    from seqcore.security.passwords import hash_password, password_problems

    problems = password_problems(password)
    if problems:
        raise click.BadParameter(" ".join(problems), param_hint="--password")
    with env.session() as db:
        user = find_user(db, username)
        user.password_hash = hash_password(password,
                                           env.settings["seqcore.password_hash.time_cost"],
                                           env.settings["seqcore.password_hash.memory_cost"])
        revoke_credentials(db, user.id)
    click.echo(f"password of {user.username} set; its sessions and tokens were revoked")


@users.command("set-role")
@click.argument("username")
@click.argument("role", type=click.Choice(ROLES))
@pass_env
def users_set_role(env: Env, username: str, role: str) -> None:
    """Give an account another system role (effective on its next request)."""
    from seqcore.db import utcnow

    with env.session() as db:
        user = find_user(db, username)
        user.system_role = role
        user.modified = utcnow()
        db.flush()
        warn_without_admin(db)
    click.echo(f"{user.username} is now {role}")
