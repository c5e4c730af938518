"""The pipeline entry point of descriptor types: they run on a WES server, never locally."""

from __future__ import annotations

from typing import Any

from seqcore.plugin import PipelineContext, PipelineError


def run(ctx: PipelineContext) -> dict[str, Any]:
    """Reached only when another executor was forced on a descriptor type."""
    raise PipelineError("This pipeline runs on a WES server: the wes executor (seqcore-wes) "
                        "must run it, not a local or Celery worker.")
