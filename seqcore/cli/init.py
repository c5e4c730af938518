"""``seqcore init``: a minimal ini file to start a deployment from.

The files are shipped inside the package (``seqcore/cli/templates/ini``), so an installed
seqcore writes the same ``development.ini`` and ``production.ini`` as a checkout holds.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import click

from seqcore.cli.base import main


def ini_template(production: bool) -> str:
    """The text of the shipped development or production ini file."""
    name = "production.ini" if production else "development.ini"
    return (files("seqcore.cli") / "templates" / "ini" / name).read_text()


@main.command("init")
@click.option("--production", is_flag=True,
              help="PostgreSQL behind a reverse proxy, secrets from the environment "
                   "(default: SQLite and local storage under ./var, for development).")
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
def init(production: bool, path: Path | None) -> None:
    """Write a minimal ini file to PATH (default: development.ini, or production.ini with
    --production). An existing file is never overwritten."""
    target = path or Path("production.ini" if production else "development.ini")
    if target.exists():
        raise click.UsageError(f"{target} exists; seqcore init never overwrites a file "
                               "(move it away or name another PATH)")
    if not target.parent.is_dir():
        raise click.UsageError(f"the directory {target.parent} does not exist")
    target.write_text(ini_template(production))
    click.echo(f"wrote {target}")
    if production:
        click.echo("set SEQCORE_SQLALCHEMY_URL, SEQCORE_STORAGE_PATH and SEQCORE_SESSION_SECRET "
                   f"in the environment, then: seqcore -c {target} db upgrade")
    else:
        click.echo(f"start it with: seqcore -c {target} serve")
