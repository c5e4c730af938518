"""``seqcore serve``: the development server on its embedded defaults, with credentials made
on first start."""

from __future__ import annotations

import os
import secrets
import sys
from typing import Any

import click
from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.cli.base import Env, ensure_sqlite_dir, main, pass_env
from seqcore.cli.clients import create_client
from seqcore.cli.users import create_user

# -- development server -----------------------------------------------------------------------


# waitress reads every request (headers and body) in its event loop before a worker thread
# sees it, so a slow or idle client holds a socket, not a thread. Its defaults would still
# let about 100 idle connections take the server off the air (connection_limit = 100): these
# keep it answering with hundreds open, and close a connection idle for a minute. An ini's
# own [server:main] values win.
SLOW_CLIENT_DEFAULTS = {"connection_limit": "1000", "channel_timeout": "60",
                        "cleanup_interval": "15"}


def raise_open_files(wanted: int) -> None:
    """Let the process hold ``wanted`` open files (each connection is one), up to the hard
    limit the system allows."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def bootstrap(db: Session, settings: dict[str, Any]) -> dict[str, str] | None:
    """Create a development administrator and OAuth client, only if no administrator exists.

    Returns the credentials to print, or ``None`` when there was nothing to do.
    """
    from seqcore.models.user import SystemRole, User

    if db.scalar(select(User.id).where(User.system_role == SystemRole.ADMIN.value)):
        return None
    password = "Dev-" + secrets.token_urlsafe(12) + "1a!"
    create_user(db, settings, username="admin", email="admin@localhost.localdomain",
                password=password, first_name="Development", last_name="Administrator",
                phone_number="0000", role=SystemRole.ADMIN.value)
    client_id = "seqcore-dev"
    from seqcore.models.oauth import OAuthClient

    existing = db.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
    if existing is not None:
        client_id = f"seqcore-dev-{secrets.token_hex(3)}"
    _, secret = create_client(db, client_id, ["password", "refresh_token"], ["read", "write"],
                              43200, 2592000, [], lenient=True)
    return {"username": "admin", "password": password, "client_id": client_id,
            "client_secret": secret}


@main.command("serve")
@click.option("--host", default=None, help="Override the ini's [server:main] host.")
@click.option("--port", default=None, type=int, help="Override the ini's port.")
@pass_env
def serve(env: Env, host: str | None, port: int | None) -> None:
    """Migrate, create development credentials if needed, and serve the ini's app."""
    from pyramid.paster import get_app, setup_logging

    from seqcore.db.migrations import upgrade

    if os.path.exists(env.ini):
        setup_logging(env.ini)
    ensure_sqlite_dir(env.settings["sqlalchemy.url"])
    upgrade(env.settings, env.pm)
    with env.session() as db:
        creds = bootstrap(db, env.settings)
    if creds:
        click.echo("Development credentials (shown once):")
        for key, value in creds.items():
            click.echo(f"  {key}: {value}")
    app = get_app(env.ini, "main")
    if env.settings["seqcore.worker.embedded"]:
        from seqcore.worker import start_embedded

        start_embedded(app.registry)
        click.echo("embedded worker started")
    import configparser

    import waitress

    parser = configparser.RawConfigParser()
    parser.read(env.ini)
    # Every waitress setting of [server:main] applies (body size limit, threads, proxies).
    options = dict(parser["server:main"]) if parser.has_section("server:main") else {}
    if "waitress" not in options.pop("use", "egg:waitress#main"):
        raise click.UsageError(f"{env.ini} does not use waitress: run it with pserve "
                               "(and `seqcore worker` beside it).")
    options["host"] = host or options.get("host", "127.0.0.1")
    options["port"] = str(port or options.get("port", "6543"))
    for key, value in SLOW_CLIENT_DEFAULTS.items():
        options.setdefault(key, value)
    raise_open_files(int(options["connection_limit"]) + 128)
    click.echo(f"serving on http://{options['host']}:{options['port']}/api")
    sys.stdout.flush()
    waitress.serve(app, **options)
