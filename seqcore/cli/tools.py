"""``seqcore tools``: the tool environments analyses run in."""

from __future__ import annotations

import click

from seqcore.cli.base import Env, main, pass_env

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
    seqcore.tools.path, from the package index pip is configured with."""
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
        try:
            python = install(environment, env.settings, force=force, log=click.echo)
        except ToolEnvironmentError as err:
            raise click.ClickException(str(err)) from None
        click.echo(f"{environment.name}: {python}")
