"""The kit keeps ``database_independent`` honest in every suite that uses it, not only the
core's: a plugin's module carrying the mark on a test that takes the kit's database fixtures
stops the session at collection (``.ci/run`` would otherwise never run that test on
PostgreSQL), while a module that reaches no database runs."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.database_independent

MARKED = "import pytest\n\npytestmark = pytest.mark.database_independent\n\n"


def run_suite(tmp_path, source):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_marked.py").write_text(MARKED + source)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", str(suite)], cwd=suite, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_a_marked_test_taking_the_database_is_refused_at_collection(tmp_path):
    done = run_suite(tmp_path, "def test_reads(engine):\n    assert engine\n")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "marked database_independent but reaching a database" in done.stderr
    assert "test_marked.py::test_reads" in done.stderr


def test_a_marked_test_reaching_no_database_runs(tmp_path):
    done = run_suite(tmp_path, "def test_adds():\n    assert 1 + 1 == 2\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
