"""The type checker passes, as ``./dev test`` runs it, and refuses a plugin that misuses the API.

``./dev test`` runs ``mypy`` (configured in pyproject.toml ``[tool.mypy]``: seqcore at mypy's
default level, the public API, the test helpers and the domain packages strict, the plugins'
sources against ``seqcore.plugin``'s types) before the suite; this test runs the same command,
so a type error fails wherever the tests run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]


def mypy(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run mypy from the project root with its pyproject.toml configuration."""
    return subprocess.run([sys.executable, "-m", "mypy", *arguments], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


def test_the_code_type_checks():
    result = mypy()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_a_plugin_that_misuses_the_public_api_is_refused(tmp_path):
    # The plugins are checked against seqcore.plugin's own annotations: a wrong argument type
    # to a public function is an error, not an Any that passes.
    plugin = tmp_path / "misusing_plugin.py"
    plugin.write_text("from seqcore.plugin import process_settings\n\n"
                      "process_settings(42, [])\n")
    result = mypy(str(plugin))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "misusing_plugin.py:3: error:" in result.stdout
