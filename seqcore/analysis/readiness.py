"""Whether the external tools an analysis type needs are installed."""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass

from seqcore.contrib import AnalysisType, Tool


@dataclass(frozen=True)
class ToolState:
    name: str
    command: str
    path: str | None
    version: str | None
    install: str

    @property
    def ready(self) -> bool:
        return self.path is not None


@functools.lru_cache(maxsize=256)
def _probe(command: str, version_args: tuple[str, ...]) -> tuple[str | None, str | None]:
    path = shutil.which(command)
    if path is None:
        return None, None
    try:
        # Some tools print bytes that are not UTF-8 with their version (samtools does).
        done = subprocess.run([path, *version_args], capture_output=True, text=True,
                              errors="replace", timeout=20, check=False)
        text = (done.stdout or done.stderr).strip().splitlines()
        return path, text[0].strip() if text else None
    except (OSError, subprocess.TimeoutExpired):
        return path, None


def tool_state(tool: Tool) -> ToolState:
    path, version = _probe(tool.command, tool.version_args)
    return ToolState(tool.name, tool.command, path, version, tool.install)


def readiness(analysis_type: AnalysisType) -> tuple[bool, list[ToolState]]:
    states = [tool_state(tool) for tool in analysis_type.tools]
    return all(s.ready for s in states), states


def not_ready_message(analysis_type: AnalysisType, states: list[ToolState]) -> str:
    missing = [s for s in states if not s.ready]
    parts = [f"{s.name} ({s.command}): {s.install or 'install it on the worker machines'}"
             for s in missing]
    return (f"The analysis type '{analysis_type.name}' is not ready: missing "
            + "; ".join(parts) + ".")


def clear_cache() -> None:
    _probe.cache_clear()
