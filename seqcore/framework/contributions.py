"""Turning plugin declarations into Pyramid configuration actions.

Each declaration becomes an action with a discriminator (``("seqcore.link", context,
rel)``, the endpoint's route name and path, ...). Pyramid refuses two actions with one
discriminator at commit time; the action's info names the plugin that made it, so the
start-up error names both claimants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pluggy
from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError

from seqcore.framework.contrib import (
    AnalysisType,
    ChildSpec,
    Endpoint,
    Executor,
    FileKind,
    LinkSpec,
    MetadataType,
    OutputRel,
)


def declarations(pm: pluggy.PluginManager, hook_name: str) -> Iterable[tuple[str, Any]]:
    """``(plugin name, declaration)`` for every item every plugin returns from a hook."""
    hook = getattr(pm.hook, hook_name)
    for impl in reversed(hook.get_hookimpls()):  # registration order
        result = impl.function()
        for item in result or ():
            yield impl.plugin_name, item


def _each(config: Configurator, pm: pluggy.PluginManager, hook_name: str, kind: type,
          apply: Callable[[Configurator, Any], None]) -> None:
    for plugin_name, item in declarations(pm, hook_name):
        if not isinstance(item, kind):
            raise ConfigurationError(
                f"plugin {plugin_name!r}: {hook_name} returned {item!r}, "
                f"expected {kind.__name__}"
            )
        # A Configurator per declaration, carrying the plugin's name as the action info, so
        # a conflict report says which plugins collided.
        sub = config.with_package(config.package)
        sub.info = f"plugin {plugin_name!r}: {kind.__name__} {_describe(item)}"
        apply(sub, item)


def _describe(item: Any) -> str:
    if isinstance(item, LinkSpec):
        return f"rel {item.rel!r} on {item.context.__name__}"
    if isinstance(item, Endpoint):
        return f"{item.name!r} at {item.path!r}"
    if isinstance(item, AnalysisType):
        return f"{item.name!r}"
    if isinstance(item, OutputRel):
        return f"{item.rel!r} of {item.analysis_type!r}"
    if isinstance(item, FileKind):
        return f"{item.name!r} at {item.path_segment!r}"
    if isinstance(item, ChildSpec):
        return f"{item.parent.__name__}[{item.name!r}]"
    return repr(item)


def includeme(config: Configurator) -> None:
    pm = config.registry.pm
    # Models: importing them is what maps them; collect them to catch a wrong base early.
    from seqcore.db import Base

    for plugin_name, model in declarations(pm, "register_models"):
        if not (isinstance(model, type) and issubclass(model, Base)):
            raise ConfigurationError(f"plugin {plugin_name!r}: {model!r} is not a "
                                     "subclass of seqcore.db.Base")
    _each(config, pm, "register_resource_children", ChildSpec,
          lambda c, spec: c.add_resource_child(spec))
    _each(config, pm, "register_links", LinkSpec, lambda c, spec: c.add_link(spec))
    _each(config, pm, "register_file_kinds", FileKind, lambda c, kind: c.add_file_kind(kind))
    _each(config, pm, "register_analysis_types", AnalysisType,
          lambda c, analysis_type: c.add_analysis_type(analysis_type))
    _each(config, pm, "register_output_rels", OutputRel, lambda c, rel: c.add_output_rel(rel))
    _each(config, pm, "register_executors", Executor, lambda c, ex: c.add_executor(ex))
    _each(config, pm, "register_metadata_types", MetadataType,
          lambda c, metadata_type: c.add_metadata_type(metadata_type))
    _each(config, pm, "register_rest_endpoints", Endpoint,
          lambda c, endpoint: c.add_endpoint(endpoint))
    # GraphQL: type names and Query field names are discriminators (seqcore.graphql.schema).
    _each(config, pm, "register_graphql_types", type,
          lambda c, graphene_type: c.add_graphql_type(graphene_type))
    _each(config, pm, "register_graphql_query_fields", type,
          lambda c, mixin: c.add_graphql_query_fields(mixin))
