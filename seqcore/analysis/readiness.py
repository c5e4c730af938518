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
    optional: bool = False
    problem: str | None = None

    @property
    def ready(self) -> bool:
        return self.problem is None and (not self.command or self.path is not None)


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
    path, version = _probe(tool.command, tool.version_args) if tool.command else (None, None)
    problem = None
    if tool.check is not None and (path is not None or not tool.command):
        try:
            problem = tool.check()
        except Exception as err:  # a broken check is a reason, not a 500
            problem = f"the check failed: {type(err).__name__}: {err}"
    return ToolState(tool.name, tool.command, path, version, tool.install, tool.optional,
                     problem)


def readiness(analysis_type: AnalysisType) -> tuple[bool, list[ToolState]]:
    """Whether every tool the type needs (optional ones aside) is there, and each's state."""
    states = [tool_state(tool) for tool in analysis_type.tools]
    return all(s.ready for s in states if not s.optional), states


def not_ready_message(analysis_type: AnalysisType, states: list[ToolState]) -> str:
    missing = [s for s in states if not s.ready and not s.optional]
    parts = [f"{s.name}{f' ({s.command})' if s.command else ''}: "
             + "; ".join(filter(None, [s.problem, s.install
                                       or "install it on the worker machines"]))
             for s in missing]
    return (f"The analysis type '{analysis_type.name}' is not ready: missing "
            + "; ".join(parts) + ".")


def clear_cache() -> None:
    _probe.cache_clear()
