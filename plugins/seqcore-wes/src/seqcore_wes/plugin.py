"""The ``wes`` plugin: its settings, its executor, an analysis type for every pipeline
descriptor (``seqcore.pipelines.dir`` and ``register_pipeline_descriptors``), and the
analysis page's view of their ``iridanext.output.json.gz``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seqcore.plugin import AnalysisType, Executor, Setting, hookimpl, pipeline_descriptors
from seqcore_wes import types, views
from seqcore_wes.client import TIMEOUT, TOKEN, URL
from seqcore_wes.executor import UNREACHABLE, WesExecutor


@hookimpl
def register_settings() -> list[Setting]:
    return [
        Setting(URL, "", "The WES server's API root (http://host:8080/ga4gh/wes/v1) that "
                         "runs pipeline descriptors; empty: descriptor types are not ready."),
        Setting(TOKEN, "", "Bearer token sent to the WES server; empty: none."),
        Setting(TIMEOUT, 10.0, "Seconds to wait for one answer of the WES server.", float),
        Setting(types.SERVICE_INFO_SECONDS, 10.0,
                "Seconds the WES server's service-info answer (readiness: does it run the "
                "pipeline's engine) is reused; 0: ask on every launch.", float),
        Setting(UNREACHABLE, 600.0, "Seconds a submission keeps waiting for a WES server "
                                    "that stopped answering (before its run is submitted "
                                    "or while it runs) before it fails.", float),
    ]


@hookimpl
def register_views() -> list[Any]:
    return views.register()


@hookimpl
def register_executors() -> list[Executor]:
    return [Executor("wes", WesExecutor)]


@hookimpl
def select_executor(analysis_type: AnalysisType, settings: Mapping[str, Any]) -> str | None:
    return "wes" if analysis_type.pipeline == types.PIPELINE else None


@hookimpl
def configure_app(config: Any) -> None:
    """One analysis type, with its outputs, per descriptor version."""
    settings = config.registry.settings
    for descriptor in pipeline_descriptors(config.registry).values():
        sub = config.with_package(config.package)
        sub.info = f"pipeline descriptor {descriptor.source} ({descriptor.pipeline_id} " \
                   f"{descriptor.version})"
        sub.add_analysis_type(types.analysis_type(descriptor, settings))
        for rel in types.output_rels(descriptor):
            sub.add_output_rel(rel)
