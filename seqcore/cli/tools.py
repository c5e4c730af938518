"""``seqcore tools``: the tool environments analyses run in."""

from __future__ import annotations

import shutil
import sys
import threading
import time

import click

from seqcore.cli.base import Env, main, pass_env


class TerminalInstall:
    """An install's progress on standard error (a terminal): a line for each phase, and
    below it one status line, rewritten in place every second, with the time so far and
    what pip is doing (so a long download or build still shows the clock moving); at the
    end the time it all took."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = time.monotonic()
        self.installed = False  # a phase was reported: the environment was (re)built
        self._text: str | None = None  # the status line's text; None: no line drawn
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def _elapsed(self) -> str:
        seconds = time.monotonic() - self.started
        if seconds < 60:
            return f"{seconds:.1f} s"
        return f"{int(seconds // 60)} min {int(seconds % 60)} s"

    def _draw(self) -> None:  # with the lock held
        if self._text is not None:
            width = shutil.get_terminal_size().columns - 1
            line = f"  [{self._elapsed()}] {self._text}".rstrip()[:width]
            click.echo(f"\r\x1b[K{line}", nl=False, err=True)

    def _clear(self) -> None:  # with the lock held
        if self._text is not None:
            click.echo("\r\x1b[K", nl=False, err=True)
            self._text = None

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                self._draw()

    def phase(self, text: str) -> None:
        with self._lock:
            self._clear()
            self.installed = True
            click.echo(f"{self.name}: {text}", err=True)
            self._text = ""  # the clock runs until pip says what it does
            self._draw()
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def status(self, text: str) -> None:
        with self._lock:
            self._text = text
            self._draw()

    def finish(self, ok: bool = True) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
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
        ok = False
        try:
            python = install(environment, env.settings, force=force,
                             log=None if shown else click.echo, progress=shown)
            ok = True
        except ToolEnvironmentError as err:
            raise click.ClickException(str(err)) from None
        finally:
            if shown:
                shown.finish(ok)
        click.echo(f"{environment.name}: {python}")
