"""``seqcore tokens``: credentials granted to accounts."""

from __future__ import annotations

import click

from seqcore.cli.base import Env, main, pass_env
from seqcore.cli.users import find_user, revoke_credentials


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
