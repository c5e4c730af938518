"""``seqcore storage migrate``: move every stored file to another backend."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from seqcore.cli.backups import terminal_progress
from seqcore.cli.base import Env, app_section, main, pass_env


@main.group("storage")
def storage_group() -> None:
    """Where stored files live (docs/operations.md, Storage backends)."""


def target_settings(ini: str, current: dict[str, Any]) -> dict[str, Any]:
    """The target's settings: the ``seqcore.storage.*`` keys of ``ini``'s app section (not
    the environment: its ``SEQCORE_STORAGE_*`` variables describe the current backend)."""
    from pyramid.paster import get_appsettings

    from seqcore.framework.settings import resolve_settings

    raw = dict(get_appsettings(ini, name=app_section(ini)))
    raw.setdefault("seqcore.storage.path", current["seqcore.storage.path"])
    raw = {**{k: v for k, v in current.items() if not k.startswith("seqcore.storage.")},
           **raw}
    return resolve_settings(raw, environ={}, origin=f"ini file {ini}")


def _recorded(env: Env) -> dict[str, str | None]:
    from sqlalchemy import text

    from seqcore.exports.backups import STORED_FILES, stored_files

    with env.session() as db:
        files = stored_files(db.execute(text(STORED_FILES)).all())
    return {path: stored.sha256 for path, stored in files.items()}


@storage_group.command("migrate")
@click.option("--to", "target_ini", required=True,
              type=click.Path(exists=True, dir_okay=False),
              help="An ini file whose seqcore.storage.* settings describe the new backend.")
@click.option("--prune", is_flag=True,
              help="Remove what the target holds that the current backend does not (files "
                   "deleted since an earlier run).")
@pass_env
def migrate_command(env: Env, target_ini: str, prune: bool) -> None:
    """Copy every stored file from this deployment's backend to the one --to describes,
    verifying each by checksum. Run it while seqcore serves, then once more with web,
    workers and Celery stopped (it copies only what is new), then switch the settings;
    it exits 1 if any file is missing or differs."""
    from seqcore.storage.backends import BackendSettingsError, backend_from_settings
    from seqcore.storage.migrate import migrate

    target_config = target_settings(target_ini, env.settings)
    try:
        source = backend_from_settings(env.settings,
                                       Path(env.settings["seqcore.storage.path"]).resolve())
        target = backend_from_settings(target_config,
                                       Path(target_config["seqcore.storage.path"]).resolve())
    except BackendSettingsError as err:
        raise click.ClickException(str(err)) from None
    if source.describe() == target.describe():
        raise click.ClickException("the target is the current backend")
    recorded = _recorded(env)
    click.echo(f"copying from {source.describe()} to {target.describe()}", err=True)
    try:
        report = migrate(source, target, recorded,
                         lambda keys: terminal_progress(keys, "copying stored files"),
                         prune=prune)
    except OSError as err:
        raise click.ClickException(f"the copy stopped: {err}; run the command again to "
                                   "resume") from None
    for problem in report.problems:
        click.echo(problem)
    extra = (f"{report.pruned} removed from the target" if prune
             else f"{len(report.extra)} in the target only (--prune removes them)")
    click.echo(f"{report.copied} copied ({report.copied_bytes} bytes), {report.already} "
               f"already there and intact; {extra}")
    if report.problems:
        sys.exit(1)
    click.echo(f"every stored file is in {target.describe()}: stop seqcore, run this once "
               f"more, then set {os.path.basename(target_ini)}'s seqcore.storage.* settings "
               "in this deployment's ini file (or its SEQCORE_STORAGE_* variables) and start it")
