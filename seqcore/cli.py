"""The ``seqcore`` command: database, accounts, OAuth2 clients and the development server."""

from __future__ import annotations

import contextlib
import os
import secrets
import string
import sys
from collections.abc import Iterator
from typing import Any

import click
import transaction
from sqlalchemy import select
from sqlalchemy.orm import Session

DEFAULT_INI = "development.ini"
# The system roles an account may hold (seqcore.models.user.SystemRole).
ROLES = ["ROLE_ADMIN", "ROLE_USER", "ROLE_MANAGER", "ROLE_SEQUENCER", "ROLE_TECHNICIAN"]


def app_section(ini: str) -> str:
    """The name of the app in ``ini``: ``main``, or the last element of ``[pipeline:main]``
    (production.ini puts a proxy filter in front of the app)."""
    import configparser

    parser = configparser.RawConfigParser()
    parser.read(ini)
    if parser.has_section("pipeline:main"):
        return parser["pipeline:main"]["pipeline"].split()[-1]
    return "main"


class Env:
    """Settings and plugin manager for one CLI invocation, loaded lazily from the ini."""

    def __init__(self, ini: str) -> None:
        self.ini = ini
        self._settings: dict[str, Any] | None = None
        self._pm: Any = None

    @property
    def settings(self) -> dict[str, Any]:
        if self._settings is None:
            from pyramid.paster import get_appsettings

            from seqcore.settings import resolve_settings

            raw = (dict(get_appsettings(self.ini, name=app_section(self.ini)))
                   if os.path.exists(self.ini) else {})
            self._settings = resolve_settings(raw, origin=f"ini file {self.ini}")
        return self._settings

    @property
    def pm(self) -> Any:
        if self._pm is None:
            from seqcore.plugins import build_plugin_manager

            self._pm = build_plugin_manager(self.settings)
        return self._pm

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A session committed when the block succeeds, rolled back otherwise."""
        from seqcore.db import get_engine, get_session_factory, session_for

        engine = get_engine(self.settings["sqlalchemy.url"])
        manager = transaction.TransactionManager(explicit=True)
        try:
            with manager:
                yield session_for(get_session_factory(engine), manager)
        finally:
            engine.dispose()


pass_env = click.make_pass_decorator(Env)


def _seqcore_version() -> str:
    from seqcore import __version__

    return __version__


@click.group()
@click.option("-c", "--config", "ini", default=DEFAULT_INI, show_default=True,
              envvar="SEQCORE_CONFIG", help="The ini file with the [app:main] settings.",
              # A misspelt path must not silently become a new, empty SQLite database:
              # click refuses a missing file with a usage error (exit code 2).
              type=click.Path(exists=True, dir_okay=False, readable=True))
@click.version_option(version=_seqcore_version(), prog_name="seqcore",
                      message="%(prog)s %(version)s")
@click.pass_context
def main(ctx: click.Context, ini: str) -> None:
    """Manage a seqcore deployment."""
    ctx.obj = Env(ini)


# -- database ---------------------------------------------------------------------------------


@main.group()
def db() -> None:
    """Database schema (Alembic, core and plugin branches)."""


@db.command("upgrade")
@click.argument("target", default="heads")
@pass_env
def db_upgrade(env: Env, target: str) -> None:
    """Apply migrations of the core and every installed plugin up to TARGET."""
    from seqcore.db.migrations import upgrade

    _ensure_sqlite_dir(env.settings["sqlalchemy.url"])
    upgrade(env.settings, env.pm, target=target)
    click.echo(f"database upgraded to {target}")


@db.command("heads")
@pass_env
def db_heads(env: Env) -> None:
    """Show the head revision of each branch."""
    from seqcore.db.migrations import heads

    for head in heads(env.settings, env.pm):
        click.echo(head)


@db.command("downgrade")
@click.argument("target")
@pass_env
def db_downgrade(env: Env, target: str) -> None:
    """Revert migrations to TARGET (``fast5@base`` removes one plugin's tables alone)."""
    from seqcore.db.migrations import downgrade

    downgrade(env.settings, env.pm, target)
    click.echo(f"database downgraded to {target}")


@db.command("revision")
@click.option("--plugin", "branch", default="seqcore", show_default=True,
              help="The branch to extend: a plugin's name or its branch label "
                   "(``seqcore`` is the core's).")
@click.option("-m", "--message", required=True, help="What the revision does.")
@click.option("--autogenerate", is_flag=True,
              help="Fill in the operations by comparing the database (at its heads) with "
                   "the models of the core and every plugin.")
@pass_env
def db_revision(env: Env, branch: str, message: str, autogenerate: bool) -> None:
    """Write a new revision file into a plugin's (or the core's) migration branch."""
    from seqcore.db.migrations import UnknownBranch, revision

    try:
        path = revision(env.settings, env.pm, branch, message, autogenerate=autogenerate)
    except UnknownBranch as err:
        raise click.UsageError(str(err)) from None
    click.echo(f"wrote {path}")


def _ensure_sqlite_dir(url: str) -> None:
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        directory = os.path.dirname(url.removeprefix("sqlite:///"))
        if directory:
            os.makedirs(directory, exist_ok=True)


# -- users ------------------------------------------------------------------------------------


def create_user(db: Session, settings: dict[str, Any], **fields: Any) -> Any:
    from seqcore.accounts import duplicate_field
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
def users_create(env: Env, **fields: Any) -> None:
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


# -- tool environments ------------------------------------------------------------------------
# Virtualenvs of their own for tools that pin old libraries (seqcore.toolenvs).


@main.group()
def tools() -> None:
    """Tool environments: virtualenvs of their own for tools that pin old libraries."""


@tools.command("list")
@pass_env
def tools_list(env: Env) -> None:
    """Each declared environment: name, installed or missing, directory, requirements."""
    from seqcore.toolenvs import environment_dir, is_installed, registered_environments

    for environment in registered_environments(env.pm):
        state = "installed" if is_installed(environment, env.settings) else "missing"
        click.echo(f"{environment.name}\t{state}\t{environment_dir(environment, env.settings)}"
                   f"\t{' '.join(environment.requirements)}")


@tools.command("install")
@click.argument("names", nargs=-1)
@click.option("--force", is_flag=True, help="Recreate environments that are installed.")
@pass_env
def tools_install(env: Env, names: tuple[str, ...], force: bool) -> None:
    """Create the tool environments the installed plugins declare (or only NAMES) under
    seqcore.tools.path, from the package index pip is configured with."""
    from seqcore.toolenvs import (
        ToolEnvironmentError,
        by_names,
        install,
        registered_environments,
    )

    try:
        chosen = by_names(registered_environments(env.pm), names)
    except KeyError as err:
        raise click.BadParameter(f"no tool environment {err.args[0]!r} is declared",
                                 param_hint="NAMES") from None
    for environment in chosen:
        try:
            python = install(environment, env.settings, force=force, log=click.echo)
        except ToolEnvironmentError as err:
            raise click.ClickException(str(err)) from None
        click.echo(f"{environment.name}: {python}")


# -- OAuth2 clients ---------------------------------------------------------------------------

# The grants the token endpoint serves. client_credentials is not offered: a token acts for
# a person, and seqcore has no permissions for a client of its own (docs/security.md).
GRANTS = ["password", "authorization_code", "refresh_token"]


def new_client_secret() -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(42))


def create_client(db: Session, client_id: str, grant_types: list[str], scopes: list[str],
                  token_seconds: int, refresh_seconds: int | None, redirect_uris: list[str],
                  lenient: bool) -> tuple[Any, str]:
    from seqcore.models.oauth import OAuthClient, digest

    if not client_id or any(c.isspace() for c in client_id):
        raise click.BadParameter("Client details cannot contain spaces.",
                                 param_hint="--client-id")
    if db.scalar(select(OAuthClient.id).where(OAuthClient.client_id == client_id)):
        raise click.BadParameter(f"a client {client_id!r} already exists",
                                 param_hint="--client-id")
    if "authorization_code" in grant_types and not redirect_uris:
        raise click.BadParameter("the authorization_code grant needs --redirect-uri")
    secret = new_client_secret()
    client = OAuthClient(
        client_id=client_id, secret_hash=digest(secret), grant_types=" ".join(grant_types),
        scopes=" ".join(scopes), redirect_uris=" ".join(redirect_uris),
        access_token_seconds=token_seconds, refresh_token_seconds=refresh_seconds,
        lenient=lenient,
    )
    db.add(client)
    db.flush()
    return client, secret


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


# -- worker -----------------------------------------------------------------------------------


@main.command("worker")
@click.option("--once", is_flag=True, help="Process what is waiting, then exit.")
@click.option("--interval", default=2.0, show_default=True,
              help="Seconds between looks at the queue when idle.")
@pass_env
def worker(env: Env, once: bool, interval: float) -> None:
    """Process uploads (checksum, decompression, QC), drive analyses and NCBI submissions,
    prepare and purge data exports, until stopped."""
    import signal
    import threading

    from pyramid.paster import setup_logging

    from seqcore.config import configure
    from seqcore.observability.logconfig import apply as apply_logging
    from seqcore.worker import WorkerLoop

    if os.path.exists(env.ini):
        setup_logging(env.ini)
    config = configure(env.settings, origin=f"ini file {env.ini}")
    config.commit()
    apply_logging(config.get_settings())  # seqcore.log.format, as the web server's
    runner = WorkerLoop(config.registry)
    if once:
        click.echo(f"processed {runner.processing.run_until_idle()} object(s)")
        runner.analyses.run_until_idle()
        runner.ncbi.run_once()  # upload waiting NCBI submissions, read the reports due
        while runner.exports.run_once():  # purge expired exports, build the waiting ones
            pass
        return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    click.echo(f"worker {runner.name} running")
    sys.stdout.flush()
    runner.run_forever(stop, interval=interval)


# -- development server -----------------------------------------------------------------------


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
    _ensure_sqlite_dir(env.settings["sqlalchemy.url"])
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
    click.echo(f"serving on http://{options['host']}:{options['port']}/api")
    sys.stdout.flush()
    waitress.serve(app, **options)


# -- backups (seqcore.backups) ----------------------------------------------------------------


def _backup_errors() -> tuple[type[Exception], ...]:
    """What a backup, restore or check reports as a message: its own refusals, and a
    database it cannot reach (the first line of the driver's message; never the URL)."""
    from sqlalchemy.exc import SQLAlchemyError

    from seqcore.backups import BackupError

    return (BackupError, SQLAlchemyError)


@main.command("backup")
@click.argument("directory", type=click.Path(file_okay=False))
@pass_env
def backup_command(env: Env, directory: str) -> None:
    """Write a consistent snapshot of the database and the stored files into DIRECTORY;
    a later backup into the same DIRECTORY copies only new files."""
    from seqcore.backups import backup

    try:
        report = backup(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"],
                        directory)
    except _backup_errors() as err:
        raise click.ClickException(str(err).splitlines()[0]) from None
    click.echo(f"backed up the database ({report.database}) and {report.files} stored files "
               f"to {report.directory}: {report.copied} copied ({report.copied_bytes} bytes), "
               f"{report.files - report.copied} already there, {report.removed} dropped")


@main.command("restore")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@pass_env
def restore_command(env: Env, directory: str) -> None:
    """Restore the backup in DIRECTORY into this deployment, which must be new (a database
    without tables, an empty storage directory). Run `seqcore db upgrade` after it when
    this seqcore is newer than the backup's."""
    from seqcore.backups import restore

    _ensure_sqlite_dir(env.settings["sqlalchemy.url"])
    try:
        count = restore(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"],
                        directory)
    except _backup_errors() as err:
        raise click.ClickException(str(err).splitlines()[0]) from None
    click.echo(f"restored the database and {count} stored files from {directory}")


@main.command("check")
@pass_env
def check_command(env: Env) -> None:
    """Check that every stored file is in storage with its recorded size and checksum and
    that storage holds no file the database does not refer to; exit 1 listing what is
    wrong."""
    from seqcore.backups import check

    try:
        report = check(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"])
    except _backup_errors() as err:
        raise click.ClickException(str(err).splitlines()[0]) from None
    for problem in report.problems:
        click.echo(problem)
    if report.problems:
        click.echo(f"{len(report.problems)} problems among {report.checked} stored files",
                   err=True)
        sys.exit(1)
    click.echo(f"{report.checked} stored files present and intact; no unreferenced files")


if __name__ == "__main__":  # pragma: no cover
    main()
