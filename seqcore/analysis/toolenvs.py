"""Tool environments: virtualenvs of their own for tools whose Python libraries the server
cannot share.

Some analysis tools pin old libraries (sistr_cmd 1.1.3 needs numpy<2, pandas<3 and a
setuptools that still has ``pkg_resources``). Installed into the server's environment they
would hold every other part of seqcore back; so a plugin declares a
:class:`ToolEnvironment` (``register_tool_environments``), and seqcore keeps one virtualenv
per declaration under ``seqcore.tools.path``. ``seqcore tools install`` creates them at
deployment; a job that finds its environment missing creates it at first use. Either way
pip runs from the new environment with the deployment's own pip configuration
(``pip.conf``, ``PIP_INDEX_URL``...), so the packages come from the index the deployment
uses, never from anywhere else. The tool then runs as ``<environment>/bin/python ...``.

An environment is complete when its marker file holds exactly its requirements; a changed
declaration (a new version) or an interrupted install is rebuilt from scratch. A lock file
keeps two workers from building the same environment at once.
"""

from __future__ import annotations

import collections
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from seqcore.framework.settings import resolve_settings

MARKER = "seqcore-requirements.txt"
SETTING = "seqcore.tools.path"


@dataclass(frozen=True)
class ToolEnvironment:
    """A virtualenv a plugin's tool runs in.

    ``name`` is its directory under ``seqcore.tools.path`` (include the tool's version, so
    an upgrade makes a new one); ``requirements`` are pip requirement specifiers, pinned as
    tightly as the tool needs; ``description`` says what runs there (``seqcore tools list``).
    """

    #: Its directory under `seqcore.tools.path` (include the tool's version).
    name: str
    #: pip requirement specifiers, pinned as tightly as the tool needs.
    requirements: tuple[str, ...]
    #: What runs there, shown by `seqcore tools list`.
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name or self.name.startswith("."):
            raise ValueError(f"a tool environment's name is one directory name, not "
                             f"{self.name!r}")
        if not self.requirements:
            raise ValueError(f"the tool environment {self.name!r} has no requirements")


class ToolEnvironmentError(RuntimeError):
    """The environment could not be created (pip's last lines say why)."""


class InstallProgress(Protocol):
    """Who watches an install (``seqcore tools install`` on a terminal): ``phase`` for each
    step (creating the environment, installing the requirements, pip installing what it
    collected), ``status`` for what pip does meanwhile (the package it collects, downloads,
    builds), each replacing the one before."""

    def phase(self, text: str) -> None: ...

    def status(self, text: str) -> None: ...


# pip's lines that say what it is doing (without --quiet), and how a status line names them.
_PIP_STEPS = {"Collecting ": "collecting ", "Processing ": "processing ",
              "Downloading ": "downloading ", "Using cached ": "using cached ",
              "Building wheel for ": "building ", "Preparing metadata": "preparing metadata"}
_PIP_INSTALLING = "Installing collected packages: "


def environments_root(settings: Mapping[str, Any] | None = None) -> Path:
    """``seqcore.tools.path``: from ``settings`` when given, else as the environment
    (``SEQCORE_TOOLS_PATH``) or the default resolves it; relative paths are taken from the
    current directory, like ``seqcore.storage.path``."""
    if settings is None or SETTING not in settings:
        settings = resolve_settings({}, origin="the environment")
    return Path(str(settings[SETTING])).absolute()


def environment_dir(environment: ToolEnvironment,
                    settings: Mapping[str, Any] | None = None) -> Path:
    return environments_root(settings) / environment.name


def environment_python(environment: ToolEnvironment,
                       settings: Mapping[str, Any] | None = None) -> Path:
    """The interpreter of the environment (whether or not it exists yet)."""
    return environment_dir(environment, settings) / "bin" / "python"


def _wanted(environment: ToolEnvironment) -> str:
    return "\n".join(environment.requirements) + "\n"


def is_installed(environment: ToolEnvironment,
                 settings: Mapping[str, Any] | None = None) -> bool:
    directory = environment_dir(environment, settings)
    marker = directory / MARKER
    return (directory / "bin" / "python").exists() and marker.is_file() \
        and marker.read_text() == _wanted(environment)


def install(environment: ToolEnvironment, settings: Mapping[str, Any] | None = None, *,
            force: bool = False, log: Callable[[str], None] | None = None,
            progress: InstallProgress | None = None) -> Path:
    """Create (or, with ``force`` or when incomplete, recreate) the environment; returns
    its interpreter. Raises :class:`ToolEnvironmentError` with pip's reason.

    With ``progress``, pip's output is read line by line as it runs and each step is
    reported to it; without, pip runs quietly and only its failure is read."""
    root = environments_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    directory = root / environment.name
    with (root / f".{environment.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits, then finds it done
        if not force and is_installed(environment, settings):
            return directory / "bin" / "python"
        if log:
            log(f"creating the tool environment {directory} "
                f"({', '.join(environment.requirements)})")
        shutil.rmtree(directory, ignore_errors=True)
        if progress:
            progress.phase(f"creating the environment {directory}")
        _run([sys.executable, "-m", "venv", str(directory)], environment)
        python = directory / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
        if progress:
            count = len(environment.requirements)
            progress.phase(f"installing {count} requirement{'s' if count != 1 else ''}: "
                           f"{', '.join(environment.requirements)}")
            _run([*pip, "--progress-bar", "off", *environment.requirements], environment,
                 progress)
        else:
            _run([*pip, "--quiet", *environment.requirements], environment)
        (directory / MARKER).write_text(_wanted(environment))
        return python


def ensure(environment: ToolEnvironment, settings: Mapping[str, Any] | None = None,
           log: Callable[[str], None] | None = None) -> Path:
    """The environment's interpreter, creating the environment first if it is missing
    (first use)."""
    if is_installed(environment, settings):
        return environment_python(environment, settings)
    return install(environment, settings, log=log)


def _run(argv: list[str], environment: ToolEnvironment,
         progress: InstallProgress | None = None) -> None:
    # Not the server's virtualenv: pip must install into the new one.
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    if progress is None:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        returncode, said = done.returncode, (done.stderr or done.stdout).strip().splitlines()
    else:
        # pip's lines as it writes them (unbuffered), its errors among them in order.
        env["PYTHONUNBUFFERED"] = "1"
        last: collections.deque[str] = collections.deque(maxlen=5)
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=env) as process:
            assert process.stdout is not None
            for line in process.stdout:
                line = line.strip()
                if line:
                    last.append(line)
                    _report(line, progress)
        returncode, said = process.returncode, list(last)
    if returncode != 0:
        raise ToolEnvironmentError(
            f"could not create the tool environment {environment.name!r} "
            f"({' '.join(argv[:4])}...): " + " | ".join(said[-5:]))


def _report(line: str, progress: InstallProgress) -> None:
    """One of pip's lines as a step: its installing, a phase; what it collects, downloads or
    builds, a status (without pip's "(from ...)" and sizes, which only lengthen it)."""
    if line.startswith(_PIP_INSTALLING):
        progress.phase("pip is installing " + line[len(_PIP_INSTALLING):])
        return
    for prefix, said in _PIP_STEPS.items():
        if line.startswith(prefix):
            what = line[len(prefix):].split(" (", 1)[0].strip()
            progress.status(said + what.rsplit("/", 1)[-1] if what else said.rstrip())
            return


def registered_environments(pm: Any) -> list[ToolEnvironment]:
    """Every plugin's declarations, once each by name (the same name twice must be the
    same declaration)."""
    found: dict[str, ToolEnvironment] = {}
    for declared in pm.hook.register_tool_environments():
        for environment in declared or ():
            known = found.setdefault(environment.name, environment)
            if known != environment:
                raise ValueError(f"two plugins declare the tool environment "
                                 f"{environment.name!r} differently")
    return list(found.values())


def by_names(environments: Iterable[ToolEnvironment],
             names: Iterable[str]) -> list[ToolEnvironment]:
    """The environments named (all when none is); an unknown name raises ``KeyError``."""
    table = {environment.name: environment for environment in environments}
    wanted = list(names)
    return [table[name] for name in wanted] if wanted else list(table.values())
