"""Every benchmark in ``bench/`` runs, at a tiny size, as its documentation says to run it.

A benchmark nobody runs between releases breaks silently (a service looked up before the
configuration is committed, a helper moved out of a test module). Each one here runs in a
child process from the project root, as ``python bench/NAME.py ...`` with the installed
plugins loading from their entry points, and must end with status 0 and print its figures.
The figures themselves are not judged: at these sizes they mean nothing.

The benchmarks make their own databases (temporary SQLite files), so these tests reach none
of the suite's: they run once, in CI's SQLite pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

# The tiny arguments of each benchmark, and the external programs it needs (a benchmark of a
# pipeline is skipped where its tools are not installed, as the plugin's own tests are).
RUNS: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "analysis": (["--count", "2", "--running", "1", "--skip-celery"], ()),
    "api": (["--projects", "5", "--seconds", "0.5", "--rounds", "1", "--threads", "1"], ()),
    "api --mix": (["--projects", "3", "--seconds", "1", "--mix", "2"], ()),
    "assembly": (["--genome-mb", "0.05", "--coverage", "5", "--engines", "megahit"],
                 ("megahit",)),
    "backup": (["--files", "2", "--size", "1"], ()),
    "export": (["--gb", "0.002", "--files", "2", "--rounds", "1"], ()),
    "graphql": (["--samples", "100", "--fields", "1", "--repeat", "1"], ()),
    "linelist": (["--samples", "10", "--fields", "2"], ()),
    "phylogenomics": (["--length", "20000", "--isolates", "3", "--coverage", "5"],
                      ("snippy", "iqtree2")),
    "plugin_cost": (["--requests", "40"], ()),
    "plugin_imports": ([], ()),
    "qc": (["--size-mb", "1", "--repeat", "1", "--no-fastqc"], ()),
    "samples": (["--sizes", "100", "--fields", "2"], ()),
    "serotyper": (["--genome-mb", "0.05", "--coverage", "5", "--quick"], ("megahit",)),
    "upload": (["--gb", "0.005", "--small-mb", "1", "--rounds", "1"], ()),
    "wes": (["--repeat", "1"], ()),
}

# Modules of bench/ that are not benchmarks: what the benchmarks share, and a plugin one
# of them loads.
HELPERS = {"deployed", "noop_pipeline"}


def test_every_benchmark_is_run_here():
    scripts = {path.stem for path in BENCH.glob("*.py")} - HELPERS
    assert scripts == {name.split()[0] for name in RUNS}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_benchmark_runs_at_a_tiny_size(name, tmp_path):
    args, tools = RUNS[name]
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    if name == "qc":
        args = [*args, "--dir", str(tmp_path)]
    script = BENCH / f"{name.split()[0]}.py"
    done = subprocess.run([sys.executable, str(script), *args], cwd=ROOT,
                          env={**os.environ, "TMPDIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip(), done.stderr[-3000:]
    if name not in ("plugin_imports", "plugin_cost", "qc"):
        # The application was built as deployed: the installed plugins loaded.
        assert "plugins loaded: " in done.stderr and "sequencefiles" in done.stderr, \
            done.stderr[-3000:]
