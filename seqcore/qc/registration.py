"""Registers the default QC engine as the application's :class:`~seqcore.services.IQCEngine`.

The rest of :mod:`seqcore.qc` knows nothing of Pyramid; this is the one place that puts an
engine behind the interface. Another engine (a plugin's, a test's slow one) replaces it by
registering itself for ``IQCEngine``.
"""

from __future__ import annotations

from pyramid.config import Configurator

from seqcore.qc.engine import FastQCCompatibleEngine
from seqcore.services import IQCEngine


def includeme(config: Configurator) -> None:
    engine = FastQCCompatibleEngine()
    engine.label = "seqcore QC engine (FastQC-compatible)"  # type: ignore[attr-defined]
    config.register_service(engine, IQCEngine)
