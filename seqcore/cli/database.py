"""``seqcore db``: migrating the database and writing revisions."""

from __future__ import annotations

import click

from seqcore.cli.base import Env, ensure_sqlite_dir, main, pass_env

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

    ensure_sqlite_dir(env.settings["sqlalchemy.url"])
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
@click.option("--path", "directory", default=None,
              type=click.Path(file_okay=False, exists=True),
              help="The branch's revisions directory in the plugin's source tree, when the "
                   "plugin is installed from a wheel rather than with pip install -e.")
@pass_env
def db_revision(env: Env, branch: str, message: str, autogenerate: bool,
                directory: str | None) -> None:
    """Write a new revision file into a plugin's (or the core's) migration branch, in its
    source tree: a branch installed in site-packages is refused unless --path names the
    source directory."""
    from seqcore.db.migrations import InstalledBranch, UnknownBranch, revision

    try:
        path = revision(env.settings, env.pm, branch, message, autogenerate=autogenerate,
                        directory=directory)
    except (UnknownBranch, InstalledBranch) as err:
        raise click.UsageError(str(err)) from None
    click.echo(f"wrote {path}")
