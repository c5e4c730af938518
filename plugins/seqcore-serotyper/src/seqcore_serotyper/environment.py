"""SISTR's virtualenv: sistr_cmd 1.1.3 and the old libraries it pins, apart from the server.

sistr_cmd 1.1.3 requires numpy<2 and pandas<3 and imports ``pkg_resources`` (gone from
setuptools 81). Installed beside seqcore it would hold the whole server back, so it lives in
a tool environment (``seqcore tools install``, or created by the first job that needs it).
Its wheel ships the database, so the environment is complete offline once installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seqcore.plugin import ToolEnvironment, tool_environment_python

SISTR_ENVIRONMENT = ToolEnvironment(
    "sistr_cmd-1.1.3", ("sistr_cmd==1.1.3", "setuptools<81"),
    "SISTR (the serotyper's typing step) with its bundled database")

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "sistr_runner.py"
"""Run by path with the environment's interpreter (seqcore is not installed there)."""
DATABASE = HERE / "database.py"


def sistr_root(settings: Mapping[str, Any] | None = None) -> Path | None:
    """The ``sistr`` package inside the environment, or ``None`` when not installed."""
    python = tool_environment_python(SISTR_ENVIRONMENT, settings)
    found = sorted(python.parent.parent.glob("lib/python3*/site-packages/sistr"))
    return found[0] if found else None
