"""Real IRIDA client programs, each in a virtualenv of its own under ``var/test-venvs``: their
dependency pins differ from seqcore's (and from each other's), and they run as their users
run them, as programs. A virtualenv is made once and reused while its requirements stay the
same; a lock file next to it makes a second pytest-xdist worker (or a second session) wait for
the first one's build and then use it, instead of building over it."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
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
    VENVS.mkdir(parents=True, exist_ok=True)
    with open(VENVS / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if binary.exists() and (marker.read_text() == wanted if marker.exists() else not pins):
            return binary
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", requirement, *pins],
                       check=True)
        marker.write_text(wanted)
    return binary


def run_iridauploader(binary: Path, run_dir: Path, settings: Mapping[str, object],
                      *args: str) -> subprocess.CompletedProcess:
    """``irida-uploader -c CONFIG -d RUN_DIR ARGS``, as a user runs it: a mode-600 config
    file with ``settings`` under ``[Settings]``, and config and cache directories of the
    run's own (the uploader writes there)."""
    config = run_dir.parent / f"{run_dir.name}.conf"
    config.write_text("[Settings]\n" + "".join(f"{key} = {value}\n"
                                                 for key, value in settings.items()))
    config.chmod(0o600)
    env = {**os.environ, "XDG_CONFIG_HOME": str(run_dir.parent / "xdg-config"),
           "XDG_CACHE_HOME": str(run_dir.parent / "xdg-cache")}
    return subprocess.run([str(binary), "-c", str(config), "-d", str(run_dir), *args],
                          capture_output=True, text=True, env=env, timeout=300)
