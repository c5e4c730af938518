"""``seqcore plugin new``: a complete, working plugin project to start from.

The project's files are templates shipped inside the package
(``seqcore/cli/templates/plugin``: ``common`` for every kind, then one directory per kind;
named ``*.tmpl`` so that no tool takes them for the core's own code), filled with
:class:`string.Template`. Its ``ruff.toml`` bans every module of seqcore but the
public two, computed from the installed package, so the ban always matches the release.
"""

from __future__ import annotations

import keyword
import pkgutil
import re
from importlib.resources import files
from pathlib import Path
from string import Template

import click

from seqcore.cli.base import main

KINDS = ("analysis", "filekind", "executor")
MAX_NAME = 20  # it names the package, the URL segment, the type: keeps the lines short
BAN = ("a plugin imports seqcore only through seqcore.plugin (and its tests through "
       "seqcore.testing); see docs/plugin_api.md")
# (template, where it goes in the project) for every kind, then per kind.
LAYOUT = {
    "common": [("pyproject.toml", "pyproject.toml"), ("README.md", "README.md"),
               ("__init__.py", "src/{package}/__init__.py")],
    "analysis": [("plugin.py", "src/{package}/plugin.py"),
                 ("pipeline.py", "src/{package}/pipeline.py"),
                 ("models.py", "src/{package}/models.py"),
                 ("graphql.py", "src/{package}/graphql.py"),
                 ("migrations_init.py", "src/{package}/migrations/__init__.py"),
                 ("migration.py", "src/{package}/migrations/versions/{module}0001_results.py"),
                 ("conftest.py", "tests/conftest.py"),
                 ("test_plugin.py", "tests/test_{package}.py")],
    "executor": [("plugin.py", "src/{package}/plugin.py"),
                 ("executor.py", "src/{package}/executor.py"),
                 ("conftest.py", "tests/conftest.py"),
                 ("lengths.py", "tests/lengths.py"),
                 ("__init__.py", "tests/__init__.py"),
                 ("test_plugin.py", "tests/test_{package}.py")],
    # The Alembic branch of a plugin with no table yet (an analysis writes its own).
    "branch": [("migrations_init.py", "src/{package}/migrations/__init__.py"),
               ("migration.py", "src/{package}/migrations/versions/{module}0001_base.py")],
    "filekind": [("plugin.py", "src/{package}/plugin.py"),
                 ("check.py", "src/{package}/check.py"),
                 ("conftest.py", "tests/conftest.py"),
                 ("test_plugin.py", "tests/test_{package}.py")],
}
DEPENDENCIES = {
    "analysis": '"seqcore-server", "seqcore-server-sequencefiles"',
    "filekind": '"seqcore-server"',
    "executor": '"seqcore-server"',
}
NEXT_STEPS = {
    "analysis": ("Replace the pipeline (`src/{package}/pipeline.py`) with yours, declare "
                 "its outputs in `plugin.py` and what it writes back, and keep the tests "
                 "asserting what a client sees."),
    "executor": ("Replace the threads in `src/{package}/executor.py` with calls to your "
                 "cluster or service, and choose the executor with "
                 "`seqcore.analysis.executor = {name}`."),
    "filekind": ("Replace the check (`src/{package}/check.py`) with what your files must "
                 "be, and `sample_files()` with a valid example of one."),
}


def banned_modules() -> list[str]:
    """Every module of the installed seqcore a plugin may not import."""
    import seqcore

    modules = {f"seqcore.{info.name}" for info in pkgutil.iter_modules(seqcore.__path__)}
    modules -= {"seqcore.plugin", "seqcore.testing"}
    return sorted(modules | {"seqcore.hookimpl", "seqcore.hookspec", "seqcore.__version__"})


def ruff_config(package: str) -> str:
    """ruff's configuration: the import ban of seqcore's own examples, standalone."""
    lines = ["# The plugin imports seqcore only through seqcore.plugin (its tests also through",
             "# seqcore.testing): ruff refuses any other module of seqcore (TID251).",
             'line-length = 99', 'target-version = "py311"', "", "[lint]",
             'select = ["E", "F", "W", "I", "B", "UP", "TID251"]', "", "[lint.isort]",
             f'known-first-party = ["{package}"]', "",
             "[lint.flake8-tidy-imports.banned-api]"]
    lines += [f'"{module}".msg = "{BAN}"' for module in banned_modules()]
    return "\n".join(lines) + "\n"


def names(name: str) -> dict[str, str]:
    """The names derived from a plugin's name (``mlst-lite``)."""
    module = name.replace("-", "_")
    words = name.split("-")
    package = "seqcore_" + module
    return {"name": name, "package": package, "distribution": f"seqcore-{name}",
            "module": module, "constant": module.upper(),
            "klass": "".join(word.capitalize() for word in words),
            "field": words[0] + "".join(word.capitalize() for word in words[1:]) + "Results",
            "label": name.replace("-", " ").capitalize()}


@main.group("plugin")
def plugin() -> None:
    """Plugin projects."""


@plugin.command("new")
@click.argument("name")
@click.option("--kind", type=click.Choice(KINDS), required=True,
              help="analysis: an analysis type with its pipeline, output and write-back; "
                   "filekind: a kind of sequencing file with its upload check; executor: "
                   "something that runs analysis jobs.")
@click.option("--directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the project (default: ./seqcore-NAME); must not exist.")
@click.option("--description", default=None, help="One line saying what the plugin does.")
def plugin_new(name: str, kind: str, directory: Path | None, description: str | None) -> None:
    """Write a plugin project NAME (lower case, digits and dashes: mlst-lite) that installs,
    passes its tests and starts with seqcore as generated."""
    if (not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name) or keyword.iskeyword(name)
            or len(name) > MAX_NAME):
        raise click.BadParameter(f"a plugin's name is lower-case letters and digits, words "
                                 f"joined by dashes, at most {MAX_NAME} characters "
                                 "(mlst-lite)", param_hint="NAME")
    if description is not None and re.search(r'["\\\n]', description):
        raise click.BadParameter("one line without double quotes or backslashes",
                                 param_hint="--description")
    values = names(name)
    target = directory or Path(values["distribution"])
    if target.exists():
        raise click.UsageError(f"{target} exists; seqcore plugin new writes a new directory")
    if not target.parent.resolve().is_dir():
        raise click.UsageError(f"the directory {target.parent} does not exist")
    values.update(kind=kind, dependencies=DEPENDENCIES[kind],
                  description=description or f"A seqcore {kind} plugin: {name}.",
                  next_steps=NEXT_STEPS[kind].format(**values))
    root = files("seqcore.cli") / "templates" / "plugin"
    written = []
    for group in ("common", kind, *(("branch",) if kind != "analysis" else ())):
        for template, where in LAYOUT[group]:
            path = target / where.format(**values)
            path.parent.mkdir(parents=True, exist_ok=True)
            text = (root / group / f"{template}.tmpl").read_text()
            path.write_text(Template(text).substitute(values))
            written.append(path)
    (target / "ruff.toml").write_text(ruff_config(values["package"]))
    click.echo(f"wrote {target} ({len(written) + 1} files)")
    click.echo(f"next: pip install -e {target} && pytest {target}")
