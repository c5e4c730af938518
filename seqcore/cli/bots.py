"""``seqcore bots``: a project's or group's bot accounts, for an administrator at the
server (the REST endpoints and the workbench's pages are the maintainers' way). The
operations are the domain's (:mod:`seqcore.projects.bots`) as an administrator's, so the
level is not bounded by a membership. A bot's further tokens are ``seqcore tokens create
<bot username>``, as any account's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import click

from seqcore.cli.base import Env, main, pass_env
from seqcore.db import utcnow
from seqcore.models.access_token import SCOPES


def _namespace(db: Any, project_id: int | None, group_id: int | None) -> Any:
    """The project or group the options name (exactly one), or a usage error."""
    from seqcore.models.group import Group
    from seqcore.models.project import Project

    if (project_id is None) == (group_id is None):
        raise click.UsageError("name one namespace: --project ID or --group ID")
    found = (db.get(Project, project_id) if project_id is not None
             else db.get(Group, group_id))
    if found is None:
        kind = "project" if project_id is not None else "group"
        raise click.BadParameter(f"no {kind} {project_id or group_id}",
                                 param_hint=f"--{kind}")
    return found


def _where(function: Any) -> Any:
    function = click.option("--group", "group_id", type=click.IntRange(min=1),
                            help="The group's id.")(function)
    return click.option("--project", "project_id", type=click.IntRange(min=1),
                        help="The project's id.")(function)


@main.group()
def bots() -> None:
    """Bot accounts of projects and groups."""


@bots.command("list")
@_where
@pass_env
def bots_list(env: Env, project_id: int | None, group_id: int | None) -> None:
    """List the namespace's bots, oldest first, one per line: id, username, e-mail (the user
    name for GraphQL), access level."""
    from seqcore.models.group import AccessLevel
    from seqcore.projects.bots import list_bots

    with env.session() as db:
        for bot, user, level in list_bots(db, _namespace(db, project_id, group_id)):
            click.echo("\t".join((str(bot.id), user.username, user.email,
                                  AccessLevel(level).name)))


@bots.command("create")
@_where
@click.option("--level", required=True, help="GUEST, UPLOADER, ANALYST, MAINTAINER, OWNER "
                                             "(or 10-50).")
@click.option("--token-name", default="command line", show_default=True,
              help="The name of its first personal access token.")
@click.option("--scope", "scopes", multiple=True, type=click.Choice(SCOPES),
              default=("api",), show_default=True, help="The token's scopes; repeat for more.")
@click.option("--expires", "days", type=click.IntRange(min=1), default=None,
              help="Days the token works, as for `seqcore tokens create`; default: no expiry "
                   "(where allowed).")
@pass_env
def bots_create(env: Env, project_id: int | None, group_id: int | None, level: str,
                token_name: str, scopes: tuple[str, ...], days: int | None) -> None:
    """Make a bot of the namespace and print its e-mail address and first token (shown this
    once)."""
    from seqcore.errors.domain import Invalid
    from seqcore.models.access_token import LifetimeRules
    from seqcore.projects.bots import create_bot

    value: Any = int(level) if level.isdigit() else level
    expires = (utcnow().date() + timedelta(days=days)).isoformat() if days else None
    with env.session() as db:
        try:
            _bot, token = create_bot(db, _namespace(db, project_id, group_id), value,
                                     token_name, list(scopes), expires, actor_id=None,
                                     rules=LifetimeRules.of(env.settings))
        except Invalid as error:
            raise click.UsageError(" ".join(
                f"{field}: {' '.join(messages)}" for field, messages in error.problems.items()
            )) from None
        email, secret = token.record.user.email, token.secret
    click.echo(email)
    click.echo(secret)


@bots.command("delete")
@_where
@click.argument("bot_id", type=click.IntRange(min=1), metavar="BOT_ID")
@pass_env
def bots_delete(env: Env, project_id: int | None, group_id: int | None, bot_id: int) -> None:
    """Delete bot BOT_ID (see `seqcore bots list`): its account is disabled, its tokens
    revoked and its memberships removed at once."""
    from seqcore.errors.domain import NotFound
    from seqcore.projects.bots import delete_bot

    with env.session() as db:
        try:
            delete_bot(db, _namespace(db, project_id, group_id), bot_id, actor_id=None)
        except NotFound as missing:
            raise click.BadParameter(missing.message, param_hint="BOT_ID") from None
    click.echo(f"deleted bot {bot_id}")
