"""``seqcore clients``: OAuth2 clients."""

from __future__ import annotations

from typing import Any

import click
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.cli.base import Env, main, pass_env
from seqcore.errors.domain import Conflict, Invalid
from seqcore.oauth.clients import GRANTS as CLIENT_GRANTS
from seqcore.oauth.clients import create_client as register

# -- OAuth2 clients ---------------------------------------------------------------------------

GRANTS = list(CLIENT_GRANTS)


def create_client(db: Session, client_id: str, grant_types: list[str], scopes: list[str],
                  token_seconds: int, refresh_seconds: int | None, redirect_uris: list[str],
                  lenient: bool) -> tuple[Any, str]:
    """:func:`seqcore.oauth.clients.create_client`, its refusals as the options' errors."""
    try:
        return register(db, client_id, grant_types, scopes, token_seconds, refresh_seconds,
                        redirect_uris, lenient)
    except Invalid as error:
        option, messages = next(iter(error.problems.items()))
        raise click.BadParameter(" ".join(messages), param_hint=f"--{option}") from None
    except Conflict as error:
        raise click.BadParameter(error.message, param_hint="--client-id") from None


@main.group()
def clients() -> None:
    """OAuth2 clients."""


@clients.command("create")
@click.option("--client-id", required=True)
@click.option("--grant-type", "grant_types", multiple=True, type=click.Choice(GRANTS),
              default=("password", "refresh_token"), show_default=True)
@click.option("--scope", "scopes", multiple=True, type=click.Choice(["read", "write"]),
              default=("read", "write"), show_default=True)
@click.option("--token-seconds", type=click.IntRange(60), default=43200, show_default=True)
@click.option("--refresh-seconds", type=click.IntRange(60), default=2592000, show_default=True)
@click.option("--redirect-uri", "redirect_uris", multiple=True)
@click.option("--lenient/--strict", default=False, show_default=True,
              help="Lenient clients may send unknown fields when creating resources.")
@pass_env
def clients_create(env: Env, client_id: str, grant_types: tuple[str, ...],
                   scopes: tuple[str, ...], token_seconds: int, refresh_seconds: int,
                   redirect_uris: tuple[str, ...], lenient: bool) -> None:
    """Register a client; its secret is printed once and stored only as a hash."""
    with env.session() as db:
        _, secret = create_client(db, client_id, list(grant_types), list(scopes),
                                  token_seconds, refresh_seconds, list(redirect_uris), lenient)
    click.echo(f"client_id: {client_id}\nclient_secret: {secret}")


@clients.command("list")
@pass_env
def clients_list(env: Env) -> None:
    """List registered clients."""
    from seqcore.models.oauth import OAuthClient

    with env.session() as db:
        for c in db.scalars(select(OAuthClient).order_by(OAuthClient.id)):
            state = "revoked" if c.revoked else "active"
            click.echo(f"{c.client_id}\t{state}\tgrants={c.grant_types}\tscopes={c.scopes}\t"
                       f"token={c.access_token_seconds}s\tlenient={c.lenient}")


@clients.command("revoke")
@click.argument("client_id")
@pass_env
def clients_revoke(env: Env, client_id: str) -> None:
    """Revoke a client: its tokens stop working at once."""
    from seqcore.models.oauth import OAuthClient

    with env.session() as db:
        client = db.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
        if client is None:
            raise click.BadParameter(f"no client {client_id!r}")
        client.revoked = True
    click.echo(f"revoked {client_id}")
