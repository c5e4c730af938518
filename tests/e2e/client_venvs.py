"""Real IRIDA client programs, each in a virtualenv of its own under ``var/test-venvs``: their
dependency pins differ from seqcore's (and from each other's), and they run as their users
run them, as programs. A virtualenv is made once and reused while its requirements stay the
same."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENVS = ROOT / "var" / "test-venvs"


def client_program(requirement: str, program: str, *pins: str) -> Path:
    """The ``program`` installed by ``requirement`` (``name==version``), with ``pins`` (other
    requirements the release needs to run today) in ``var/test-venvs/<name>-<version>``."""
    venv = VENVS / requirement.replace("==", "-")
    binary = venv / "bin" / program
    wanted = "\n".join((requirement, *pins)) + "\n"
    marker = venv / "seqcore-requirements.txt"
    if binary.exists() and (marker.read_text() == wanted if marker.exists() else not pins):
        return binary
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", requirement, *pins],
                   check=True)
    marker.write_text(wanted)
    return binary
