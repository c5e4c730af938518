"""Every benchmark in bench/ runs, at its ``--tiny`` size, as a script in a process of its own.

A benchmark nobody runs breaks quietly (a service looked up before the configuration was
committed, a test-only package it never declared, a size that no longer fits a page); the
figures in docs/ then cannot be made again. Each script of bench/ (a module with a
``__main__`` block; ``deployed.py`` and ``noop_pipeline.py`` are modules the others import) is
run here with ``--tiny``, which every benchmark accepts: sizes that check it runs, not figures.
A new benchmark joins by being a script in bench/ that accepts ``--tiny``.

What is checked besides the exit status: a benchmark that builds seqcore's application says
which plugins it loaded (the first-party ones, from their entry points, as ``seqcore serve``
loads them), and when it names the access log it wrote, requests are in it, as a deployed
server's log would hold them.

The benchmarks use databases of their own (temporary SQLite files), the same whatever the
suite's database is, so the module runs once, in CI's SQLite pass; each script is a test of
its own, so pytest-xdist spreads them over the workers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
# Scripts, and the runs each gets (arguments besides --tiny): bench/api.py measures a mixed
# load on gunicorn with --mix as well.
EXTRA_RUNS = {"api.py": [[], ["--mix", "4"]]}
# Benchmarks timing a part of seqcore alone (the GraphQL loader, the QC engine, plugin
# sources): no application, no plugins loaded.
WITHOUT_APPLICATION = {"dataloader.py", "qc.py", "plugin_imports.py"}
FIRST_PARTY = {"sequencefiles", "assemblies", "assembly", "phylogenomics", "serotyper", "wes",
               "celery", "fast5"}
# What a benchmark needs outside Python; without it the run is skipped, saying so.
TOOLS = {"assembly.py": ["megahit", "flash"],
         "phylogenomics.py": ["minimap2", "smalt", "freebayes", "nucmer", "phyml", "samtools",
                              "bcftools"],
         "serotyper.py": ["megahit", "flash", "blastn"],
         "export.py": ["zip"]}


def scripts() -> list[str]:
    return sorted(path.name for path in BENCH.glob("*.py")
                  if '__name__ == "__main__"' in path.read_text())


def runs() -> list[tuple[str, list[str]]]:
    return [(name, ["--tiny", *extra]) for name in scripts()
            for extra in EXTRA_RUNS.get(name, [[]])]


def test_every_benchmark_is_run_and_accepts_tiny():
    names = scripts()
    assert {"api.py", "graphql.py", "samples.py", "plugin_cost.py"} <= set(names)
    assert "deployed.py" not in names
    for name in names:
        assert '"--tiny"' in (BENCH / name).read_text(), f"bench/{name} has no --tiny"


def sistr_installed(env: dict[str, str]) -> bool:
    """Whether SISTR's tool environment exists (``seqcore tools install``; ./dev test makes
    it) where the serotyper looks for it."""
    tools = Path(env.get("SEQCORE_TOOLS_PATH", "var/tools"))
    tools = tools if tools.is_absolute() else ROOT / tools
    return any(tools.glob("sistr_cmd-*/bin/python"))


@pytest.mark.slow
@pytest.mark.parametrize("name, arguments", runs(),
                         ids=[" ".join([name, *arguments[1:]]) for name, arguments in runs()])
def test_benchmark_runs_at_its_tiny_size(name, arguments, tmp_path):
    # The developer's overrides of the suite's own settings do not reach the benchmarks; their
    # temporary files (databases, logs, data) go under the test's directory.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("SEQCORE_TEST")}
    env.update(TMPDIR=str(tmp_path), PYTHONUNBUFFERED="1")
    missing = [tool for tool in TOOLS.get(name, []) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"bench/{name} needs {', '.join(missing)} (./dev test installs them)")
    if name == "serotyper.py" and not sistr_installed(env):
        pytest.skip("bench/serotyper.py needs SISTR's environment: seqcore tools install")
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(BENCH / name), *arguments], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    seconds = time.monotonic() - began
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"bench/{name} {arguments}: {output[-3000:]}"
    assert done.stdout.strip(), f"bench/{name} printed no figures"
    if name not in WITHOUT_APPLICATION:
        loaded = re.findall(r"^plugins loaded: ([^;\n]*)", output, re.M)
        assert loaded, f"bench/{name} does not say which plugins it loaded"
        complete = [set(line.split(", ")) >= FIRST_PARTY for line in loaded]
        # bench/plugin_cost.py builds one application without them on purpose.
        assert any(complete) if name == "plugin_cost.py" else all(complete), loaded
    # Each server process names its log (gunicorn's workers one each: a worker may have
    # been sent nothing); requests are in them.
    logs = [Path(log).read_text() for log in re.findall(r"access log: (/\S+)", output)]
    assert not logs or any(re.search(r" (GET|POST|PUT|DELETE) /\S* \d{3} ", text)
                           for text in logs), f"bench/{name}: no request in its access log"
    print(f"bench/{name} {' '.join(arguments)}: {seconds:.1f} s")
