"""``seqcore init`` writes the minimal ini files a deployment starts from, the same ones the
checkout holds, and never overwrites a file; every other command still refuses a missing
ini file."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEQCORE = Path(sys.executable).parent / "seqcore"

pytestmark = pytest.mark.database_independent


def seqcore(cwd, *args):
    return subprocess.run([str(SEQCORE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_init_writes_a_development_ini_that_migrates_and_never_overwrites(tmp_path):
    done = seqcore(tmp_path, "init")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "development.ini"
    assert written.read_text() == (ROOT / "development.ini").read_text()
    migrated = seqcore(tmp_path, "db", "upgrade")  # -c development.ini by default
    assert migrated.returncode == 0, migrated.stderr
    assert (tmp_path / "var" / "seqcore.sqlite").stat().st_size > 0
    written.write_text("# edited\n" + written.read_text())
    again = seqcore(tmp_path, "init")
    assert again.returncode == 2 and "never overwrites" in again.stderr
    assert written.read_text().startswith("# edited\n")


def test_init_production_writes_the_production_ini_at_path(tmp_path):
    done = seqcore(tmp_path, "init", "--production", "site.ini")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site.ini").read_text() == (ROOT / "production.ini").read_text()
    assert "SEQCORE_SESSION_SECRET" in done.stdout
    assert not (tmp_path / "production.ini").exists()


def test_init_refuses_a_path_in_a_missing_directory(tmp_path):
    done = seqcore(tmp_path, "init", "nowhere/site.ini")
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_other_commands_still_refuse_a_missing_ini(tmp_path):
    done = seqcore(tmp_path, "db", "upgrade")
    assert done.returncode == 2 and "development.ini" in done.stderr
    assert list(tmp_path.iterdir()) == []
