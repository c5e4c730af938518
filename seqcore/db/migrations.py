"""Alembic, driven by the plugin manager.

Revision files live in the package that owns the tables: the core's in
``seqcore/migrations/versions`` (branch ``seqcore``), each plugin's wherever its
:class:`~seqcore.contrib.MigrationSource` says. ``version_locations`` is assembled from the
plugin manager, so ``seqcore db upgrade`` upgrades every installed branch to its head.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pluggy
from alembic.config import Config
from sqlalchemy.engine import Engine

from alembic import command

CORE_BRANCH = "seqcore"
SCRIPT_LOCATION = Path(__file__).resolve().parent.parent.parent / "alembic"
CORE_VERSIONS = Path(__file__).resolve().parent.parent / "migrations" / "versions"


def _resolve_location(location: str) -> str:
    if ":" in location and not Path(location).is_absolute():
        package, _, relative = location.partition(":")
        return str(importlib.resources.files(package).joinpath(relative))
    return location


def version_locations(pm: pluggy.PluginManager) -> list[str]:
    locations = [str(CORE_VERSIONS)]
    for sources in pm.hook.register_migrations():
        for source in sources or ():
            locations.append(_resolve_location(source.location))
    return locations


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
    return cfg


def upgrade(settings: Mapping[str, Any], pm: pluggy.PluginManager,
            engine: Engine | None = None, target: str = "heads") -> None:
    """Apply every branch up to ``target`` (all heads by default)."""
    command.upgrade(alembic_config(settings, pm, engine), target)


def downgrade(settings: Mapping[str, Any], pm: pluggy.PluginManager, target: str,
              engine: Engine | None = None) -> None:
    command.downgrade(alembic_config(settings, pm, engine), target)


def heads(settings: Mapping[str, Any], pm: pluggy.PluginManager) -> Iterable[str]:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(settings, pm)).get_heads()
