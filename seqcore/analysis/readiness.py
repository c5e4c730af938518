"""Whether the external tools an analysis type needs are installed.

Every look searches ``PATH`` again, so a tool installed while the server runs makes its types
ready at once; only a found program's version is remembered (see ``_versions``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass

from seqcore.framework.contrib import AnalysisType, Tool


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


# A version number: dotted digits, with the build tag some tools make part of it (BWA's
# and minimap2's ``-r1188``); not glued to a word (``x86_64``, ``htslib-1.16``, ``GPLv3``).
VERSION = re.compile(r"(?<![\w.-])v?(\d+(?:\.\d+)+(?:-r\d+)?)(?![\w])")
# PhyML prints ``3.3.3:3.3.20220408``, its build and its release: the release is the last.
PAIRED = re.compile(r"(\d+(?:\.\d+)+):(\d+(?:\.\d+)+)")
# Debian's PhyML wrapper starts the MPI build under ``mpirun`` on several cores, and OpenMPI
# refuses to run as root: the probe asks for the plain build and lets MPI run as root.
PROBE_ENV = {"PHYMLMPI": "no", "OMPI_ALLOW_RUN_AS_ROOT": "1",
             "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def clean_version(text: str) -> str | None:
    """The version number in what a tool prints for its version, or ``None``.

    Tools print it every way (``Version: 0.7.17-r1188`` after a usage banner, ``NUCmer
    (NUCleotide MUMmer) version 3.1``, ``This is PhyML version 3.3.3:3.3.20220408-3.``,
    ``blastn: 2.12.0+``, ``v7.505 (2022/Apr/10)``, ``FLASH v1.2.11`` above a licence
    naming GPL version 3): the dotted number after ``version`` on a line that says it,
    else the first dotted number of the output; an output that is only a number is that
    number. A tool that prints none (MUMmer's ``show-coords``) has no version."""
    lines = [line for line in text.splitlines() if line.strip()]
    saying = [line[line.lower().index("version") + 7:] for line in lines
              if "version" in line.lower()]
    for rest in [*saying, *lines]:
        paired = PAIRED.search(rest)
        if paired:
            return paired.group(2)
        found = VERSION.search(rest)
        if found:
            return found.group(1)
    whole = text.strip()
    return whole if re.fullmatch(r"\d+", whole) else None


# Versions already read, by the program's path and its modification time: a tool installed,
# upgraded or removed after start-up is seen at the next look (no restart), while a program
# that stays put is run for its version once. Only answers are kept: a program that was
# missing, timed out or could not be run is looked for again next time.
_versions: dict[tuple[str, int, tuple[str, ...]], str | None] = {}
_versions_lock = threading.Lock()


def _probe(command: str, version_args: tuple[str, ...]) -> tuple[str | None, str | None]:
    """Where ``command`` is on ``PATH`` now, and its version (``None`` when it prints none)."""
    path = shutil.which(command)
    if path is None:
        return None, None
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:  # removed between the two looks
        return None, None
    key = (path, stamp, version_args)
    with _versions_lock:
        if key in _versions:
            return path, _versions[key]
    try:
        # Some tools print bytes that are not UTF-8 with their version (samtools does).
        done = subprocess.run([path, *version_args], capture_output=True, text=True,
                              errors="replace", timeout=20, check=False,
                              env={**os.environ, **PROBE_ENV}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return path, None
    # Some print it on stdout, some on stderr, some after a usage text (bwa).
    version = clean_version(f"{done.stdout}\n{done.stderr}")
    with _versions_lock:
        _versions[key] = version
    return path, version


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
    """Forget every version read (tests that swap programs under one path and time)."""
    with _versions_lock:
        _versions.clear()
