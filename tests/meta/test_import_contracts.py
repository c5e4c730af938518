"""The layer contracts in pyproject.toml (``[tool.importlinter]``) hold.

``./dev test`` runs ``lint-imports`` before the suite; this test runs the same check inside
pytest, so a layer broken by a change fails wherever the tests run.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    here = Path.cwd()
    os.chdir(ROOT)
    # lint_imports configures logging with dictConfig, which disables every logger that
    # exists: the rest of the session would log nothing (and the test kit's log-secrets
    # check would see nothing). Put them back as they were.
    loggers = [logger for logger in logging.root.manager.loggerDict.values()
               if isinstance(logger, logging.Logger) and not logger.disabled]
    try:
        status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                              no_logo=True)
    finally:
        os.chdir(here)
        for logger in loggers:
            logger.disabled = False
    assert status == 0, "lint-imports found a broken layer contract (run it for details)"
