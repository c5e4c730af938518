"""``seqcore plugin new`` writes plugin projects that work as generated: for each kind, a
project written outside the checkout installs (``pip install -e``, no network) into a
throwaway virtualenv over the test's own, passes its own tests and its ruff configuration, and
a live server started from that virtualenv loads it from its entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from seqcore.testing.server import live_server

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("serial"), pytest.mark.database_independent]

KINDS = {"analysis": "mlst-lite", "filekind": "nanopore-summary", "executor": "slurm-lite"}


def run(*command, cwd, env=None, timeout=600):
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The projects, and a virtualenv that sees the test's packages and has them installed
    editable."""
    root = tmp_path_factory.mktemp("plugin-new")
    for kind, name in KINDS.items():
        out = run(sys.executable, "-m", "seqcore.cli", "plugin", "new", name, "--kind", kind,
                  "--directory", root / name, cwd=root)
        assert f"wrote {root / name}" in out
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    cwd=root).strip())
    # The test's own packages (seqcore, the first-party plugins, pytest) without copying:
    # added as a site directory, so the .pth files there run too (an editable install of
    # seqcore is one: a plain path line would not make it importable).
    outer = sysconfig.get_paths()["purelib"]
    (site / "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    for name in KINDS.values():
        install_editable(python, site, root / name)
    return root, python


def install_editable(python: Path, site: Path, project: Path) -> None:
    """``pip install -e`` without the network when the build backend's needs are here
    (setuptools and wheel); otherwise what such an install leaves, made by hand from the
    project's pyproject.toml: a ``.pth`` naming ``src`` and a ``dist-info`` with its entry
    points, which is all an editable install of it puts into site-packages."""
    import importlib.util
    import tomllib

    if importlib.util.find_spec("wheel") is not None:
        run(python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
            "-q", "-e", project, cwd=project)
        return
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    dist = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\n"
                                   f"Version: {meta['version']}\n")
    (dist / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
        for group, points in meta["entry-points"].items()))
    (dist / "INSTALLER").write_text("seqcore-tests\n")
    (site / f"__editable__.{meta['name']}.pth").write_text(f"{project / 'src'}\n")


@pytest.mark.parametrize("kind", KINDS)
def test_the_generated_project_passes_its_tests_and_lint(generated, kind):
    root, python = generated
    project = root / KINDS[kind]
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "COV_"))}
    out = run(python, "-m", "pytest", "-q", "-p", "no:randomly", "-W",
              "ignore::DeprecationWarning", "tests", cwd=project, env=env)
    summary = out.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, out
    ruff = Path(sys.executable).with_name("ruff")
    run(ruff, "check", "--no-cache", ".", cwd=project)
    bad = subprocess.run([str(ruff), "check", "--no-cache", "--stdin-filename",
                          str(project / "src" / "probe.py"), "-"], cwd=project,
                         input="from seqcore.db import Base\n\nprint(Base)\n",
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "TID251" in bad.stdout, bad.stdout


def test_a_live_server_from_the_virtualenv_loads_every_plugin(generated, tmp_path):
    _, python = generated
    server = live_server(tmp_path / "server")
    server.create_user("root", "Password1!", "ROLE_ADMIN")
    secret = server.create_client("probe")
    import seqcore.testing.server as servers

    # Served by the virtualenv's interpreter: the plugins come from their entry points.
    original = servers.SEQCORE
    servers.SEQCORE = [str(python), "-m", "seqcore.cli"]
    try:
        server.start()
        token = server.token("probe", secret, "root", "Password1!")
        listed = server.get_json("/api/plugins", token)["resource"]["resources"]
        names = {entry["name"]: entry["distribution"] for entry in listed}
        assert names["mlst-lite"] == "seqcore-mlst-lite", names
        assert names["nanopore-summary"] == "seqcore-nanopore-summary", names
        assert names["slurm-lite"] == "seqcore-slurm-lite", names
        types = server.get_json("/api/analysisTypes", token)["resource"]["resources"]
        assert "mlst-lite" in {entry["name"] for entry in types}
    finally:
        servers.SEQCORE = original
        server.stop()
