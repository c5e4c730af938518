"""Building the application: one function, in a fixed and commented order.

``main()`` (PasteDeploy), the CLI, the worker and the tests all call :func:`configure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyramid.config import Configurator

from seqcore.plugins import build_plugin_manager
from seqcore.resources.root import Root
from seqcore.settings import resolve_settings


def apply_plugin_settings(settings: dict[str, Any], pm: Any) -> None:
    """Defaults (and ``SEQCORE_*`` environment overrides) for keys plugins declare."""
    import os

    from seqcore.settings import env_name

    for declared in pm.hook.register_settings():
        for setting in declared or ():
            value = settings.get(setting.name, setting.default)
            value = os.environ.get(env_name(setting.name), value)
            settings[setting.name] = setting.type_(value) if value is not None else None


def configure(settings: Mapping[str, Any] | None = None,
              plugins: Iterable[object] | None = None) -> Configurator:
    """Assemble the application.

    :param settings: ini settings; environment variables override (``seqcore.settings``).
    :param plugins: plugin objects to load instead of the installed entry points (tests).
    """
    # 1. Settings first: everything below reads them.
    resolved = resolve_settings(settings or {})
    # 2. The plugin manager, so plugin settings get their defaults before anyone reads them.
    pm = build_plugin_manager(resolved, plugins)
    apply_plugin_settings(resolved, pm)

    config = Configurator(settings=resolved, root_factory=Root)
    config.registry.pm = pm

    # 3. Core infrastructure, in dependency order: the service registry first (storage, the
    #    database, links, QC, analyses and executors register there against the interfaces
    #    of seqcore.services); the database (and pyramid_tm) before security (token lookups
    #    use request.db); links and resource directives before anything registers links or
    #    children; the REST machinery before endpoints. Malformed framing (paths, query
    #    strings, charsets, boundaries) is refused first.
    config.include("pyramid_services")
    config.include("seqcore.wellformed")
    config.include("seqcore.db")
    config.include("seqcore.security")
    config.include("seqcore.links")
    config.include("seqcore.resources")
    config.include("seqcore.rest")
    config.include("seqcore.metadata")
    config.include("seqcore.storage")
    config.include("seqcore.filekinds")
    config.include("seqcore.processing")
    config.include("seqcore.analysis")
    config.include("seqcore.oauth")
    # Sessions and web pages (sign-in, access tokens, GraphiQL), then GraphQL, whose schema
    # is built by a late action once every contribution below is registered.
    config.include("seqcore.web")
    config.include("seqcore.graphql")

    # 4. Every declaration of the core and plugins, turned into conflict-checked actions.
    config.include("seqcore.contributions")

    # 5. The escape hatch: plugins may do anything else Pyramid allows.
    pm.hook.configure_app(config=config)
    return config
