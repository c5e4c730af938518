"""Registers the default QC engine as the application's
:class:`~seqcore.services.IQCEngine`.

The rest of :mod:`seqcore.qc` knows nothing of Pyramid; this is the one place that puts an
engine behind the interface. Another engine (a plugin's, a test's slow one) replaces it by
registering itself for ``IQCEngine``.
"""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator

from seqcore.qc.engine import FastQCCompatibleEngine
from seqcore.qc.fastqc_rules import FASTQC_VERSION
from seqcore.services import IQCEngine

# The label every report of the default engine is recorded with.
ENGINE_LABEL = "seqcore QC engine (FastQC-compatible)"


def fastqc_version_of(engine: Any, record: Any) -> str | None:
    """The FastQC version whose numbers a stored QC record equals: the one its report names,
    else that of the engine that made it (the default engine's label, or the registered
    engine's when the labels agree and it declares ``fastqc_version``); ``None`` when the
    record came from an engine that claims no FastQC version."""
    named = (record.report or {}).get("fastqcVersion")
    if named:
        return str(named)
    if record.engine == ENGINE_LABEL:
        return FASTQC_VERSION
    if engine is not None and record.engine == getattr(engine, "label", None):
        return getattr(engine, "fastqc_version", None)
    return None


def includeme(config: Configurator) -> None:
    engine = FastQCCompatibleEngine()
    engine.label = ENGINE_LABEL  # type: ignore[attr-defined]
    config.register_service(engine, IQCEngine)
