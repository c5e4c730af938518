"""``seqcore remotes``: the register of remote APIs (other installs users connect to)."""

from __future__ import annotations

import click

from seqcore.cli.base import Env, main, pass_env
from seqcore.errors.domain import Conflict, Invalid, NotFound
from seqcore.remotes.registry import (
    KINDS,
    create_remote_api,
    delete_remote_api,
    find_remote_api,
    remote_apis,
)

#: The command's option for each of the register's (REST) names.
OPTIONS = {"name": "--name", "baseUrl": "--base-url", "kind": "--kind",
           "graphqlUrl": "--graphql-url", "description": "--description",
           "clientId": "--client-id", "clientSecret": "--client-secret"}


@main.group()
def remotes() -> None:
    """Remote APIs: other installs (IRIDA, IRIDA Next, seqcore) users connect to."""


@remotes.command("add")
@click.option("--name", required=True)
@click.option("--base-url", required=True, help="The install's address (https://...).")
@click.option("--kind", type=click.Choice(KINDS), default="irida", show_default=True)
@click.option("--graphql-url", default=None, help="IRIDA Next's GraphQL endpoint.")
@click.option("--client-id", required=True, help="This install's OAuth2 client there.")
@click.option("--client-secret", envvar="SEQCORE_REMOTE_CLIENT_SECRET", prompt=True,
              hide_input=True, help="Its secret (or SEQCORE_REMOTE_CLIENT_SECRET; prompted "
                                    "when neither is given).")
@click.option("--description", default=None)
@pass_env
def remotes_add(env: Env, name: str, base_url: str, kind: str, graphql_url: str | None,
                client_id: str, client_secret: str, description: str | None) -> None:
    """Register a remote API; prints its id and the redirect URI path to register there."""
    values = {"name": name, "baseUrl": base_url, "kind": kind, "graphqlUrl": graphql_url,
              "clientId": client_id, "clientSecret": client_secret,
              "description": description}
    try:
        with env.session() as db:
            remote = create_remote_api(db, values)
            remote_id = remote.id
    except Invalid as error:
        field, messages = next(iter(error.problems.items()))
        raise click.BadParameter(" ".join(messages),
                                 param_hint=OPTIONS.get(field, field)) from None
    except Conflict as error:
        raise click.BadParameter(error.message, param_hint="--name") from None
    click.echo(f"id: {remote_id}\nredirect URI: <this install's URL>/-/remotes/{remote_id}"
               "/callback")


@remotes.command("list")
@pass_env
def remotes_list(env: Env) -> None:
    """List the remote APIs (never their secrets)."""
    with env.session() as db:
        for remote in remote_apis(db):
            graphql = f"\tgraphql={remote.graphql_url}" if remote.graphql_url else ""
            click.echo(f"{remote.id}\t{remote.name}\t{remote.kind}\t{remote.base_url}\t"
                       f"client={remote.client_id}{graphql}")


@remotes.command("delete")
@click.argument("remote")
@pass_env
def remotes_delete(env: Env, remote: str) -> None:
    """Delete a remote API (by id or name) with its users' connections."""
    try:
        with env.session() as db:
            found = find_remote_api(db, remote)
            name = found.name
            delete_remote_api(db, found)
    except NotFound as error:
        raise click.BadParameter(error.message, param_hint="REMOTE") from None
    except Conflict as error:
        raise click.ClickException(error.message) from None
    click.echo(f"deleted {name}")
