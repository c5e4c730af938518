"""Alembic, driven by the plugin manager.

Revision files live in the package that owns the tables: the core's in
``seqcore/migrations/versions`` (branch ``seqcore``), each plugin's wherever its
:class:`~seqcore.framework.contrib.MigrationSource` says. ``version_locations`` is assembled from
the plugin manager, so ``seqcore db upgrade`` upgrades every installed branch to its head. The
environment (``env.py``) and the revision template ship inside the ``seqcore`` package, so an
installed wheel migrates exactly like a checkout.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pluggy
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import Engine

CORE_BRANCH = "seqcore"
SCRIPT_LOCATION = Path(__file__).resolve().parent.parent / "migrations"
CORE_VERSIONS = SCRIPT_LOCATION / "versions"


class UnknownBranch(LookupError):
    """No installed plugin ships the Alembic branch that was asked for."""


class InstalledBranch(ValueError):
    """The branch's revisions are in an installed (not editable) copy of its package, where a
    new revision would be lost on the next install."""


def installed_copy(directory: str | Path) -> bool:
    """Whether ``directory`` is inside an installation directory (``site-packages``,
    ``dist-packages``, this interpreter's purelib/platlib) rather than a source tree: an
    editable install (``pip install -e``) leaves the revisions in the source tree."""
    import sysconfig

    path = Path(directory).resolve()
    if {"site-packages", "dist-packages"} & set(path.parts):
        return True
    roots = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    return any(path.is_relative_to(root) for root in roots)


@dataclass(frozen=True)
class Branch:
    """One Alembic branch: its label, the directory of its revisions and who ships it."""

    label: str
    directory: str
    plugin: str


def _resolve_location(location: str) -> str:
    if ":" in location and not Path(location).is_absolute():
        package, _, relative = location.partition(":")
        return str(importlib.resources.files(package).joinpath(relative))
    return location


def branches(pm: pluggy.PluginManager) -> list[Branch]:
    """The core's branch, then every registered plugin's, with the plugin that ships it."""
    found = [Branch(CORE_BRANCH, str(CORE_VERSIONS), CORE_BRANCH)]
    for impl in pm.hook.register_migrations.get_hookimpls():
        # pluggy annotates a hook implementation as returning object.
        sources = cast("Iterable[Any] | None", impl.function())
        for source in sources or ():
            found.append(Branch(source.branch_label, _resolve_location(source.location),
                                impl.plugin_name))
    return found


def version_locations(pm: pluggy.PluginManager) -> list[str]:
    return [branch.directory for branch in branches(pm)]


def alembic_config(
    settings: Mapping[str, Any], pm: pluggy.PluginManager, engine: Engine | None = None
) -> Config:
    """An Alembic config for this application's core and plugin branches."""
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    cfg.set_main_option("version_locations", " ".join(version_locations(pm)))
    cfg.set_main_option("path_separator", "space")
    cfg.set_main_option("sqlalchemy.url", str(settings["sqlalchemy.url"]).replace("%", "%%"))
    cfg.attributes["engine"] = engine
    cfg.attributes["pm"] = pm
    return cfg


def upgrade(settings: Mapping[str, Any], pm: pluggy.PluginManager,
            engine: Engine | None = None, target: str = "heads") -> None:
    """Apply every branch up to ``target`` (all heads by default)."""
    command.upgrade(alembic_config(settings, pm, engine), target)


def downgrade(settings: Mapping[str, Any], pm: pluggy.PluginManager, target: str,
              engine: Engine | None = None) -> None:
    """Revert to ``target``: ``<branch>@base`` removes one plugin's tables alone."""
    command.downgrade(alembic_config(settings, pm, engine), target)


def heads(settings: Mapping[str, Any], pm: pluggy.PluginManager) -> Iterable[str]:
    return ScriptDirectory.from_config(alembic_config(settings, pm)).get_heads()


def find_branch(pm: pluggy.PluginManager, name: str) -> Branch:
    """The branch named ``name``: a branch label, or the name of the plugin shipping it."""
    known = branches(pm)
    for branch in known:
        if name in (branch.label, branch.plugin):
            return branch
    labels = ", ".join(sorted(b.label for b in known))
    raise UnknownBranch(f"no installed plugin ships a migration branch {name!r} "
                        f"(branches: {labels})")


def revision(settings: Mapping[str, Any], pm: pluggy.PluginManager, branch_name: str,
             message: str, *, autogenerate: bool = False, directory: str | None = None) -> str:
    """Write a new revision at the head of ``branch_name`` and return its file's path.

    A plugin's first revision starts its branch and depends on the core's head, so that
    upgrading applies the core's tables first. ``autogenerate`` compares the database with
    the models of the core and every plugin (the database must be at the heads).

    The revision goes into the branch's directory, which must be in a source tree (an
    editable install): one in ``site-packages`` raises :class:`InstalledBranch`, since the
    file would be lost on the next install and never reach the plugin's repository.
    ``directory`` names the branch's revisions directory in the plugin's source tree
    instead; it takes the installed directory's place for this command.
    """
    cfg = alembic_config(settings, pm)
    branch = find_branch(pm, branch_name)
    if directory is not None:
        target = str(Path(directory).resolve())
        locations = [target if location == branch.directory else location
                     for location in version_locations(pm)]
        cfg.set_main_option("version_locations", " ".join(locations))
        branch = Branch(branch.label, target, branch.plugin)
    elif installed_copy(branch.directory):
        raise InstalledBranch(
            f"the migration branch {branch.label!r} of {branch.plugin!r} is in an installed "
            f"copy ({branch.directory}): a revision written there is lost on the next "
            "install. Install the plugin from its source with pip install -e, or name the "
            "branch's directory in the source tree with --path "
            "(e.g. --path src/<package>/migrations/versions).")
    script = ScriptDirectory.from_config(cfg)
    if _branch_head(script, branch.label) is not None:
        created = command.revision(cfg, message=message, head=f"{branch.label}@head",
                                   version_path=branch.directory, autogenerate=autogenerate)
    else:
        created = command.revision(cfg, message=message, head="base",
                                   branch_label=branch.label,
                                   depends_on=_branch_head(script, CORE_BRANCH),
                                   version_path=branch.directory, autogenerate=autogenerate)
    scripts = created if isinstance(created, list) else [created]
    if scripts[0] is None:
        raise RuntimeError(f"alembic created no revision in {branch.directory}")
    return str(scripts[0].path)


def _branch_head(script: ScriptDirectory, label: str) -> str | None:
    """The head revision of the branch ``label``, or ``None`` while it has none."""
    try:
        head = script.get_revision(f"{label}@head")
    except CommandError:
        return None
    return head.revision if head is not None else None
