"""The ``seqcore`` command group and what every command shares: the ini file it reads, its
settings, plugin manager and a database session."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import click
import transaction
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

            from seqcore.framework.settings import resolve_settings

            raw = (dict(get_appsettings(self.ini, name=app_section(self.ini)))
                   if os.path.exists(self.ini) else {})
            self._settings = resolve_settings(raw, origin=f"ini file {self.ini}")
        return self._settings

    @property
    def pm(self) -> Any:
        if self._pm is None:
            from seqcore.framework.plugins import build_plugin_manager

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
              type=click.Path(dir_okay=False))
@click.version_option(version=_seqcore_version(), prog_name="seqcore",
                      message="%(prog)s %(version)s")
@click.pass_context
def main(ctx: click.Context, ini: str) -> None:
    """Manage a seqcore deployment."""
    # A misspelt path must not silently become a new, empty SQLite database: a missing file
    # is a usage error (exit code 2), except for the commands that write files from nothing.
    if ctx.invoked_subcommand not in WITHOUT_INI and not os.path.exists(ini):
        raise click.BadParameter(f"File {ini!r} does not exist.", ctx=ctx,
                                 param_hint="'-c' / '--config'")
    ctx.obj = Env(ini)


#: Commands that need no ini file: they write a new one, or a plugin project.
WITHOUT_INI = {"init", "plugin"}



def ensure_sqlite_dir(url: str) -> None:
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        directory = os.path.dirname(url.removeprefix("sqlite:///"))
        if directory:
            os.makedirs(directory, exist_ok=True)
