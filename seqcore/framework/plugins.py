"""Building the per-application plugin manager.

One manager per application, never a module global: two apps in one process (tests, a
worker beside a web server) each see exactly the plugins they were built with.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pluggy

from seqcore import __version__
from seqcore.framework import hookspecs

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "seqcore"

# The core's own contributions go through the same hooks a third-party plugin uses (the
# REST transport registers its own endpoints, so the core plugin needs no view).
CORE_PLUGINS = ("seqcore.framework.core_plugin", "seqcore.rest.views", "seqcore.analysis.executors",
                "seqcore.analysis.automation")


@dataclass(frozen=True)
class PluginInfo:
    """What the admin plugin listing shows for one loaded plugin."""

    name: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]


def _split(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.replace(",", " ").split() if v]
    return list(value)


def build_plugin_manager(
    settings: Mapping[str, Any], plugins: Iterable[ModuleType | object] | None = None
) -> pluggy.PluginManager:
    """Create the plugin manager for one application.

    :param settings: ``seqcore.plugins.disabled`` lists plugin names to block;
        ``seqcore.plugins.enabled``, if set, is an allow-list for entry-point plugins.
    :param plugins: when given (tests), exactly these plugin objects are registered besides
        the core, and entry points are not consulted.
    """
    pm = pluggy.PluginManager("seqcore")
    pm.add_hookspecs(hookspecs)
    for name in _split(settings.get("seqcore.plugins.disabled")):
        pm.set_blocked(name)

    import importlib

    for dotted in CORE_PLUGINS:
        pm.register(importlib.import_module(dotted), name=dotted)

    for dotted in _split(settings.get("seqcore.plugins.modules")):
        # Site plugins that are modules rather than installed distributions.
        if not pm.is_blocked(dotted) and pm.get_plugin(dotted) is None:
            pm.register(importlib.import_module(dotted), name=dotted)

    if plugins is None:
        enabled = set(_split(settings.get("seqcore.plugins.enabled")))
        if enabled:
            for name in list(_entry_point_names()):
                if name not in enabled and not pm.is_blocked(name):
                    pm.set_blocked(name)
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    else:
        for plugin in plugins:
            name = getattr(plugin, "__name__", None) or repr(plugin)
            if pm.is_blocked(name):
                continue
            pm.register(plugin, name=name)

    pm.hook.addhooks.call_historic(kwargs={"plugin_manager": pm})
    pm.check_pending()
    for info in plugin_infos(pm):
        log.info("seqcore plugin loaded: %s (%s %s)", info.name, info.distribution, info.version)
    return pm


def installed_plugin(name: str) -> object:
    """The plugin an installed distribution declares as ``name`` in the ``seqcore``
    entry-point group, loaded as :func:`build_plugin_manager` loads it. A plugin's tests
    that need another plugin (the FASTQ file kinds of ``sequencefiles``, say) take it by
    the name it is installed under, without importing that plugin's package."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP, name=name):
        return point.load()
    raise LookupError(f"No installed seqcore plugin is named {name!r}: install the "
                      "distribution that provides it.")


def _entry_point_names() -> Iterable[str]:
    from importlib.metadata import entry_points

    return (ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


def plugin_infos(pm: pluggy.PluginManager) -> list[PluginInfo]:
    """Every registered plugin with its distribution, version and implemented hooks."""
    dists = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
    infos = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        dist = dists.get(id(plugin))
        if dist is not None:
            dist_name, dist_ver = dist.project_name, dist.version
        elif name.startswith("seqcore."):
            dist_name, dist_ver = "seqcore", __version__
        else:
            dist_name, dist_ver = None, None
        hooks = tuple(sorted(h.name for h in pm.get_hookcallers(plugin) or ()))
        infos.append(PluginInfo(name, dist_name, dist_ver, hooks))
    return sorted(infos, key=lambda i: i.name)
