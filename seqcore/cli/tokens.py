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
                   "expiry (refused when seqcore.tokens.require_expiry is on; then at most "
                   "seqcore.tokens.max_lifetime_days).")
@pass_env
def tokens_create(env: Env, username: str, scopes: tuple[str, ...], name: str,
                  days: int | None) -> None:
    """Create a personal access token for USERNAME and print it: it is shown this once and
    stored only as a digest (for scripts, CI and GraphQL tests; the account can list and
    revoke it on its profile page)."""
    from seqcore.oauth.personal import LifetimeRules, create_token, token_problems

    expires = (utcnow().date() + timedelta(days=days)).isoformat() if days else None
    problems = token_problems(name, list(scopes), expires,
                              rules=LifetimeRules.of(env.settings))
    if problems:
        raise click.UsageError(" ".join(problems.values()))
    with env.session() as db:
        user = find_user(db, username)
        if not user.enabled:
            raise click.UsageError(f"the account {user.username!r} is disabled")
        created = create_token(db, user.id, name, list(scopes), expires)
        secret = created.secret
    click.echo(secret)


@tokens.command("list")
@click.argument("username")
@pass_env
def tokens_list(env: Env, username: str) -> None:
    """List the personal access tokens of USERNAME, newest first, one per line: id, name,
    scopes, status (active, expired, revoked) and the day it stops working ("never")."""
    from seqcore.oauth.personal import LifetimeRules, tokens_of

    rules = LifetimeRules.of(env.settings)
    now = utcnow()
    with env.session() as db:
        user = find_user(db, username)
        for token in tokens_of(db, user.id):
            ends = token.ends_at(rules.max_lifetime)
            status = ("revoked" if token.revoked
                      else "active" if token.active(now, rules.max_lifetime) else "expired")
            click.echo("\t".join((str(token.id), token.name, token.scopes, status,
                                  ends.date().isoformat() if ends else "never")))


@tokens.command("rotate")
@click.argument("username")
@click.argument("token_id", type=click.IntRange(min=1), metavar="TOKEN_ID")
@pass_env
def tokens_rotate(env: Env, username: str, token_id: int) -> None:
    """Rotate USERNAME's personal access token TOKEN_ID (see `seqcore tokens list`): it is
    revoked at once, and a new one with the same name, scopes and lifetime span is printed,
    this once. A revoked or expired token is not rotated (exit status 1)."""
    from seqcore.oauth.personal import LifetimeRules, RotationRefused, rotate_token

    with env.session() as db:
        user = find_user(db, username)
        if not user.enabled:
            raise click.UsageError(f"the account {user.username!r} is disabled")
        try:
            created = rotate_token(db, user.id, token_id, LifetimeRules.of(env.settings))
        except RotationRefused as refused:
            if refused.missing:
                raise click.BadParameter(
                    f"{user.username} has no personal access token {token_id}",
                    param_hint="TOKEN_ID") from None
            raise click.ClickException(refused.message) from None
        secret = created.secret
    click.echo(secret)


@tokens.command("prune")
@click.option("--days", type=click.IntRange(min=0), default=None,
              help="Delete tokens that stopped working more than this many days ago "
                   "[default: seqcore.tokens.cleanup_after_days].")
@pass_env
def tokens_prune(env: Env, days: int | None) -> None:
    """Delete expired and revoked personal access tokens that stopped working more than
    seqcore.tokens.cleanup_after_days ago (the worker does it hourly; this is for sites that
    run no worker, or to do it now). Working tokens are never deleted."""
    from seqcore.oauth.personal import LifetimeRules, prune_tokens

    after = days if days is not None else int(env.settings["seqcore.tokens.cleanup_after_days"])
    with env.session() as db:
        deleted = prune_tokens(db, after, LifetimeRules.of(env.settings))
    click.echo(f"deleted {deleted} personal access tokens")
