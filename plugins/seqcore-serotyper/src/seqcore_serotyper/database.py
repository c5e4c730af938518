"""SISTR's bundled database: is it there, and what is it.

``sistr_cmd`` downloads its database from Zenodo (pycurl, certificate checks off) whenever
its ``dbstatus.txt`` marker is missing, at the start of every run. The 1.1.3 wheel ships the
data and the marker, so a complete install never does; an incomplete one (marker or files
deleted, a source install without data) would reach for the network from inside a job.
This module tells which files are missing without importing ``sistr`` (its import is slow
and pulls pandas), so readiness can refuse the type at start-up with the reason, and the
job wrapper (:mod:`seqcore_serotyper.sistr_runner`) refuses to start SISTR at all.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# Relative to the sistr package directory: what a typing run with --qc reads, with either
# cgMLST database (centroid by default, full with --use-full-cgmlst-db).
REQUIRED = (
    "dbstatus.txt",
    "data/cgmlst/cgmlst-profiles.hdf",
    "data/cgmlst/cgmlst-centroid.fasta",
    "data/cgmlst/cgmlst-full.fasta",
    "data/antigens/wzx.fasta",
    "data/antigens/wzy.fasta",
    "data/antigens/fliC.fasta",
    "data/antigens/fljB.fasta",
    "data/Salmonella-serotype_serogroup_antigen_table-WHO_2007.csv",
    "data/genomes-to-serovar.txt",
    "data/sistr.msh",  # the Mash sketch of the reference genomes (--run-mash)
)
INSTALL = ("seqcore tools install --force sistr_cmd-1.1.3 (a virtualenv of its own; "
           "sistr_cmd 1.1.3's wheel ships the database)")


def sistr_dir() -> Path | None:
    """Where the installed ``sistr`` package lives, found without importing it."""
    spec = importlib.util.find_spec("sistr")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def database_problem(root: Path | None = None) -> str | None:
    """Why SISTR cannot type offline, or ``None`` when its database is complete."""
    root = root if root is not None else sistr_dir()
    if root is None:
        return f"sistr_cmd is not installed: {INSTALL}"
    missing = [name for name in REQUIRED
               if not (root / name).is_file() or (root / name).stat().st_size == 0]
    if not missing:
        return None
    return (f"SISTR's database is incomplete in {root} (missing {', '.join(missing)}); "
            "sistr_cmd would try to download it, which seqcore does not allow: reinstall "
            "with " + INSTALL)


def describe(root: Path | None = None) -> str:
    """One line for readiness and logs: the sistr_cmd version and the database's marker."""
    root = root if root is not None else sistr_dir()
    if root is None:
        return "sistr_cmd not installed"
    version = "unknown"
    version_file = root / "version.py"
    if version_file.is_file():
        for line in version_file.read_text().splitlines():
            if line.startswith("__version__"):
                version = line.split("=", 1)[1].strip().strip("'\"")
    marker = root / "dbstatus.txt"
    status = marker.read_text().strip().splitlines()[0] if marker.is_file() else "no database"
    return f"sistr_cmd {version}; {status}"


if __name__ == "__main__":  # readiness runs this to report the version (seqcore_serotyper.plugin)
    problem = database_problem()
    print(describe() if problem is None else problem)
    sys.exit(0 if problem is None else 1)
