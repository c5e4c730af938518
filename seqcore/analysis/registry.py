"""The analysis types, output rels and executors of one application."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError
from pyramid.registry import Registry

from seqcore.analysis.pipeline import load_pipeline
from seqcore.framework.contrib import AnalysisType, Executor, OutputRel
from seqcore.services import IAnalysisRegistry, IExecutor, registry_service


class AnalysisRegistry:
    """Lookups by name or alias; filled by config actions, read at request time."""

    def __init__(self) -> None:
        self.types: dict[str, AnalysisType] = {}
        self.aliases: dict[str, str] = {}
        self.outputs: dict[str, list[OutputRel]] = {}
        self.executors: dict[str, Executor] = {}

    def type(self, name: str) -> AnalysisType | None:
        return self.types.get(self.aliases.get(name, name))

    def names(self, analysis_type: AnalysisType) -> tuple[str, ...]:
        """The type's name and aliases: each gets a filter path and a rel."""
        return (analysis_type.name, *analysis_type.aliases)

    def output_rels(self, type_name: str) -> list[OutputRel]:
        return self.outputs.get(type_name, [])

    def output_keys(self, type_name: str) -> dict[str, OutputRel]:
        return {rel.key: rel for rel in self.output_rels(type_name)}


def analysis_registry(registry: Registry) -> AnalysisRegistry:
    analyses: AnalysisRegistry = registry_service(registry, IAnalysisRegistry)
    return analyses


def add_analysis_type(config: Configurator, analysis_type: AnalysisType) -> None:
    if analysis_type.samples not in ("one", "many"):
        raise ConfigurationError(f"analysis type {analysis_type.name!r}: samples must be "
                                 "'one' or 'many'")
    # Every setting a pipeline receives is declared (core or register_settings), so it has
    # its default by now; a misspelt name fails here, not in a job on another machine.
    unknown = [name for name in analysis_type.settings if name not in config.get_settings()]
    if unknown:
        raise ConfigurationError(f"analysis type {analysis_type.name!r}: unknown setting(s) "
                                 f"{', '.join(map(repr, unknown))} in settings (declared by "
                                 "no loaded plugin: is the plugin that owns it disabled?)")

    def register() -> None:
        reg = analysis_registry(config.registry)
        reg.types[analysis_type.name] = analysis_type
        for alias in analysis_type.aliases:
            reg.aliases[alias] = analysis_type.name

    config.action(("seqcore.analysis_type", analysis_type.name), register)
    for alias in analysis_type.aliases:  # an alias may not shadow another type or alias
        config.action(("seqcore.analysis_type", alias), None)
    # The links derived from the type (the submissions collection's filter rels) are added by
    # seqcore.resources.analyses once the types are registered: the registry stays below the
    # traversal contexts that read it.


def add_output_rel(config: Configurator, output: OutputRel) -> None:
    def register() -> None:
        analysis_registry(config.registry).outputs.setdefault(output.analysis_type, []).append(
            output)

    config.action(("seqcore.output_rel", output.analysis_type, output.rel), register,
                  order=1)  # after the types


def add_executor(config: Configurator, executor: Executor) -> None:
    def register() -> None:
        analysis_registry(config.registry).executors[executor.name] = executor

    config.action(("seqcore.executor", executor.name), register)
    # Each lookup builds a new executor: it keeps state about the jobs it started.
    config.register_service_factory(
        lambda context, request: executor.factory(config.registry.settings), IExecutor,
        name=executor.name)


def make_executor(registry: Registry, name: str | None = None) -> Any:
    """An executor instance by name (the ``seqcore.analysis.executor`` setting by default)."""
    settings: Mapping[str, Any] = registry.settings
    name = name or settings["seqcore.analysis.executor"]
    try:
        return registry_service(registry, IExecutor, name=name)
    except LookupError:
        installed = analysis_registry(registry).executors
        raise ConfigurationError(f"no executor named {name!r}; installed: "
                                 f"{', '.join(sorted(installed))}") from None


def verify_declarations(registry: Registry) -> None:
    """Check every cross-reference between declarations once all of them are registered.

    A misspelt name in a declaration would otherwise surface as a job failing on a worker,
    or an output that is never served; here it stops the start-up and names the culprit.
    """
    reg = analysis_registry(registry)
    kinds = {kind.name for kind in registry.get("seqcore.file_kinds", {}).values()}
    for analysis_type in reg.types.values():
        where = f"analysis type {analysis_type.name!r}"
        _verify_launch_declarations(analysis_type, where)
        unknown = [kind for kind in analysis_type.inputs if kind not in kinds]
        if unknown:
            raise ConfigurationError(
                f"{where}: input kind(s) {', '.join(map(repr, unknown))} are registered by "
                f"no loaded plugin (file kinds: {', '.join(sorted(kinds)) or 'none'})")
        if analysis_type.pipeline:
            try:
                load_pipeline(analysis_type.pipeline)
            except Exception as err:  # any import-time failure is a broken declaration
                raise ConfigurationError(f"{where}: pipeline {analysis_type.pipeline!r} does "
                                         f"not load: {type(err).__name__}: {err}") from err
    for type_name, rels in reg.outputs.items():
        if reg.type(type_name) is None:
            raise ConfigurationError(
                f"output rel {rels[0].rel!r} names analysis type {type_name!r}, which no "
                "loaded plugin registers")


def _verify_launch_declarations(analysis_type: AnalysisType, where: str) -> None:
    """The launch fields are names no generic field has, and the launch and job callables
    are callables: a slip here would otherwise show as a 500 on the first launch, or a job
    failing on a worker."""
    from seqcore.analysis.launching import GENERIC_FIELDS

    fields = analysis_type.launch_fields
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise ConfigurationError(f"{where}: launch_fields must be a tuple of field names, "
                                 f"not {fields!r}")
    clash = sorted(set(fields) & set(GENERIC_FIELDS))
    if clash:
        raise ConfigurationError(f"{where}: launch field(s) {', '.join(map(repr, clash))} "
                                 "are generic launch fields (every type takes them)")
    if len(set(fields)) != len(fields):
        raise ConfigurationError(f"{where}: launch_fields name a field twice: {fields!r}")
    for attribute in ("launch_check", "record_launch", "job_data", "write_back"):
        value = getattr(analysis_type, attribute)
        if value is not None and not callable(value):
            raise ConfigurationError(f"{where}: {attribute} must be a callable, not "
                                     f"{value!r}")


def includeme(config: Configurator) -> None:
    config.register_service(AnalysisRegistry(), IAnalysisRegistry)
    # After every declaration's own action (types 0, output rels 1).
    config.action(("seqcore.verify_declarations",),
                  lambda: verify_declarations(config.registry), order=100)
    config.add_directive("add_analysis_type", add_analysis_type)
    config.add_directive("add_output_rel", add_output_rel)
    config.add_directive("add_executor", add_executor)
