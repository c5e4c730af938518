"""``seqcore tools``: the tool environments analyses run in."""

from __future__ import annotations

import shutil
import sys
import time

import click

from seqcore.cli.base import Env, main, pass_env


class TerminalInstall:
    """An install's progress on standard error (a terminal): a line for each phase, and
    below it one status line, rewritten in place, with the time so far and what pip is
    doing; at the end the time it all took."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = time.monotonic()
        self.shown = False  # a status line is drawn and not yet cleared
        self.installed = False  # a phase was reported: the environment was (re)built

    def _elapsed(self) -> str:
        seconds = time.monotonic() - self.started
        if seconds < 60:
            return f"{seconds:.1f} s"
        return f"{int(seconds // 60)} min {int(seconds % 60)} s"

    def _clear(self) -> None:
        if self.shown:
            click.echo("\r\x1b[K", nl=False, err=True)
            self.shown = False

    def phase(self, text: str) -> None:
        self._clear()
        self.installed = True
        click.echo(f"{self.name}: {text}", err=True)

    def status(self, text: str) -> None:
        self._clear()
        width = shutil.get_terminal_size().columns - 1
        click.echo(f"  [{self._elapsed()}] {text}"[:width], nl=False, err=True)
        self.shown = True

    def finish(self, ok: bool = True) -> None:
        self._clear()
        if ok and self.installed:
            click.echo(f"{self.name}: installed in {self._elapsed()}", err=True)


def terminal_install(name: str) -> TerminalInstall | None:
    """Progress for installing ``name`` when standard error is a terminal; none in logs and
    scripts (pip then runs quietly, as at a job's first use)."""
    return TerminalInstall(name) if sys.stderr.isatty() else None

# -- tool environments ------------------------------------------------------------------------
# Virtualenvs of their own for tools that pin old libraries (seqcore.analysis.toolenvs).


@main.group()
def tools() -> None:
    """Tool environments: virtualenvs of their own for tools that pin old libraries."""


@tools.command("list")
@pass_env
def tools_list(env: Env) -> None:
    """Each declared environment: name, installed or missing, directory, requirements."""
    from seqcore.analysis.toolenvs import environment_dir, is_installed, registered_environments

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
    seqcore.tools.path, from the package index pip is configured with. On a terminal it
    shows each step and what pip is doing; in a pipe or a log, one line when it starts
    and one when it is done."""
    from seqcore.analysis.toolenvs import (
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
        shown = terminal_install(environment.name)
        try:
            python = install(environment, env.settings, force=force,
                             log=None if shown else click.echo, progress=shown)
        except ToolEnvironmentError as err:
            if shown:
                shown.finish(ok=False)
            raise click.ClickException(str(err)) from None
        if shown:
            shown.finish()
        click.echo(f"{environment.name}: {python}")
