"""``seqcore tokens``: credentials granted to accounts."""

from __future__ import annotations

from datetime import timedelta

import click

from seqcore.cli.base import Env, main, pass_env
from seqcore.cli.users import find_user, revoke_credentials
from seqcore.db import utcnow
from seqcore.models.access_token import SCOPES


@main.group()
def tokens() -> None:
    """Credentials granted to accounts."""


@tokens.command("revoke")
@click.option("--user", "username", required=True, help="The account whose credentials end.")
@pass_env
def tokens_revoke(env: Env, username: str) -> None:
    """Revoke every OAuth2 token and personal access token of an account and end its web
    sessions (a stolen laptop, a departing colleague). The account stays enabled."""
    with env.session() as db:
        user = find_user(db, username)
        counts = revoke_credentials(db, user.id)
    click.echo(f"revoked for {user.username}: "
               + ", ".join(f"{count} {what}" for what, count in counts.items()))


@tokens.command("create")
@click.argument("username")
@click.option("--scope", "scopes", multiple=True, type=click.Choice(SCOPES),
              default=("read_api",), show_default=True,
              help="What the token may do; repeat for more (api: read and write).")
@click.option("--name", default="command line", show_default=True,
              help="How the profile page lists the token.")
@click.option("--expires", "days", type=click.IntRange(min=1), default=None,
              help="Days the token works (until the start of that day, UTC); default: no "
                   "expiry.")
@pass_env
def tokens_create(env: Env, username: str, scopes: tuple[str, ...], name: str,
                  days: int | None) -> None:
    """Create a personal access token for USERNAME and print it: it is shown this once and
    stored only as a digest (for scripts, CI and GraphQL tests; the account can list and
    revoke it on its profile page)."""
    from seqcore.oauth.personal import create_token, token_problems

    expires = (utcnow().date() + timedelta(days=days)).isoformat() if days else None
    problems = token_problems(name, list(scopes), expires)
    if problems:
        raise click.UsageError(" ".join(problems.values()))
    with env.session() as db:
        user = find_user(db, username)
        if not user.enabled:
            raise click.UsageError(f"the account {user.username!r} is disabled")
        created = create_token(db, user.id, name, list(scopes), expires)
        secret = created.secret
    click.echo(secret)
