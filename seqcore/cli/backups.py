"""``seqcore backup``, ``restore`` and ``check``: the database and stored files together."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import click

from seqcore.cli.base import Env, ensure_sqlite_dir, main, pass_env

T = TypeVar("T")

# -- backups (seqcore.exports.backups) -------------------------------------------------------


def terminal_progress(items: Sequence[T], label: str) -> Iterable[T]:
    """A progress bar on standard error when it is a terminal; nothing in logs and scripts
    (click's own bar: click is the command line's library already)."""
    interactive = sys.stderr.isatty()
    with click.progressbar(items, label=label, file=sys.stderr, hidden=not interactive,
                           show_pos=True) as bar:
        yield from bar


def _backup_errors() -> tuple[type[Exception], ...]:
    """What a backup, restore or check reports as a message: its own refusals, and a
    database it cannot reach (the first line of the driver's message; never the URL)."""
    from sqlalchemy.exc import SQLAlchemyError

    from seqcore.exports.backups import BackupError

    return (BackupError, SQLAlchemyError)


def _backend(env: Env) -> Any:
    """The deployment's storage backend (``seqcore.storage.backend``)."""
    from pathlib import Path

    from seqcore.storage.backends import BackendSettingsError, backend_from_settings

    try:
        return backend_from_settings(env.settings,
                                     Path(env.settings["seqcore.storage.path"]).resolve())
    except BackendSettingsError as err:
        raise click.ClickException(str(err)) from None


def _local_only(env: Env, command: str) -> None:
    """``backup`` and ``restore`` copy a storage directory; an object store keeps its own
    history (docs/operations.md, Storage backends)."""
    if env.settings.get("seqcore.storage.backend", "local") != "local":
        raise click.ClickException(
            f"seqcore {command} copies a local storage directory; this deployment's files are "
            "in an object store: turn on the bucket's versioning (S3) or soft delete and "
            "point-in-time restore (Azure) and back the database up as docs/operations.md, "
            "Storage backends, says (seqcore check verifies the objects)")


@main.command("backup")
@click.argument("directory", type=click.Path(file_okay=False))
@pass_env
def backup_command(env: Env, directory: str) -> None:
    """Write a consistent snapshot of the database and the stored files into DIRECTORY;
    a later backup into the same DIRECTORY copies only new files."""
    from seqcore.exports.backups import backup

    _local_only(env, "backup")
    try:
        report = backup(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"],
                        directory, terminal_progress)
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

    _local_only(env, "restore")
    ensure_sqlite_dir(env.settings["sqlalchemy.url"])
    try:
        count = restore(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"],
                        directory, terminal_progress)
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
        report = check(env.settings["sqlalchemy.url"], env.settings["seqcore.storage.path"],
                       terminal_progress, backend=_backend(env))
    except _backup_errors() as err:
        raise click.ClickException(str(err).splitlines()[0]) from None
    for problem in report.problems:
        click.echo(problem)
    if report.problems:
        click.echo(f"{len(report.problems)} problems among {report.checked} stored files",
                   err=True)
        sys.exit(1)
    click.echo(f"{report.checked} stored files present and intact; no unreferenced files")

