"""The layer contracts in pyproject.toml (``[tool.importlinter]``) hold.

``./dev test`` runs ``lint-imports`` before the suite; this test runs the same check inside
pytest, so a layer broken by a change fails wherever the tests run.
"""

from __future__ import annotations

import os
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                              no_logo=True)
    finally:
        os.chdir(here)
    assert status == 0, "lint-imports found a broken layer contract (run it for details)"
