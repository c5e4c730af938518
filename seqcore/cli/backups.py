"""``seqcore backup``, ``restore`` and ``check``: the database and stored files together."""

from __future__ import annotations

import sys

import click

from seqcore.cli.base import Env, ensure_sqlite_dir, main, pass_env

# -- backups (seqcore.exports.backups) -------------------------------------------------------


def _backup_errors() -> tuple[type[Exception], ...]:
    """What a backup, restore or check reports as a message: its own refusals, and a
    database it cannot reach (the first line of the driver's message; never the URL)."""
    from sqlalchemy.exc import SQLAlchemyError

    from seqcore.exports.backups import BackupError

    return (BackupError, SQLAlchemyError)


@main.command("backup")
@click.argument("directory", type=click.Path(file_okay=False))
@pass_env
def backup_command(env: Env, directory: str) -> None:
    """Write a consistent snapshot of the database and the stored files into DIRECTORY;
    a later backup into the same DIRECTORY copies only new files."""
    from seqcore.exports.backups import backup

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
    from seqcore.exports.backups import restore

    ensure_sqlite_dir(env.settings["sqlalchemy.url"])
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
    from seqcore.exports.backups import check

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

