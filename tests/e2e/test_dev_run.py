"""``./dev run`` in a checkout that ``./dev`` has set up starts within 15 seconds, with every
first-party analysis type ready: nothing is installed again, nothing needs a restart.

The test runs the real script with the virtualenv running the tests (``VENV``), on a
development configuration of its own (a free port, a fresh SQLite database and storage), and
reads the credentials the first start prints, as a newcomer does. It needs a virtualenv that
``./dev`` installed (``.seqcore-installed`` in it); elsewhere it says so and skips.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from seqcore.testing.server import free_port

# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.xdist_group("serial"), pytest.mark.database_independent]

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)
FIRST_PARTY_TYPES = {"assembly", "phylogenomics", "serotyper"}
STARTS_WITHIN = 15.0


#: The share of CPU time idle, just before the start, below which the machine is too busy to
#: hold ``./dev run`` to its promise.
IDLE_ENOUGH = 0.6


def idle_share(seconds: float = 1.0) -> float:
    """The share of all cores' time spent idle over the next ``seconds`` (``/proc/stat``):
    what the machine has free now, where the load average still remembers the last minute."""
    def sample() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total

    try:
        idle_before, total_before = sample()
        time.sleep(seconds)
        idle_after, total_after = sample()
    except OSError:  # not Linux: take the machine as idle
        return 1.0
    return (idle_after - idle_before) / max(1, total_after - total_before)


def development_ini(tmp_path: Path, port: int) -> Path:
    """development.ini with its own port, database and storage (everything else as is)."""
    text = (ROOT / "development.ini").read_text()
    text = re.sub(r"(?m)^port = \d+$", f"port = {port}", text)
    text = re.sub(r"(?m)^sqlalchemy\.url = .*$",
                  f"sqlalchemy.url = sqlite:///{tmp_path / 'seqcore.sqlite'}", text)
    text = re.sub(r"(?m)^seqcore\.storage\.path = .*$",
                  f"seqcore.storage.path = {tmp_path / 'storage'}", text)
    ini = tmp_path / "development.ini"
    ini.write_text(text)
    return ini


def test_a_second_dev_run_answers_within_15_seconds_with_the_analyses_ready(tmp_path):
    if not (VENV / ".seqcore-installed").is_file():
        pytest.skip(f"{VENV} was not set up by ./dev (no .seqcore-installed in it)")
    idle = idle_share()
    port = free_port()
    out = tmp_path / "dev-run.log"
    env = {**os.environ, "VENV": str(VENV), "SEQCORE_CONFIG": str(development_ini(tmp_path,
                                                                                  port))}
    started = time.monotonic()
    with open(out, "w") as log:
        process = subprocess.Popen(["./dev", "run"], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        answered = None
        while time.monotonic() - started < 120 and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/health", timeout=1):
                    answered = time.monotonic() - started
                    break
            except OSError:
                time.sleep(0.1)
        printed = out.read_text()
        assert answered is not None, printed
        # The 15 seconds are a promise about an idle machine. `./dev test` runs this test on
        # its own, after the core suite, so there it is held to them; where other work keeps
        # the cores busy (the test run by hand beside a suite), the time is printed and the
        # steps below are still checked.
        print(f"./dev run answered after {answered:.1f} s ({idle:.0%} of the CPU idle before)")
        if idle >= IDLE_ENOUGH:
            assert answered < STARTS_WITHIN, f"answered after {answered:.1f} s:\n{printed}"
        # Each step said what it did, and none of them installed anything.
        assert "unchanged since the last install: pip skipped" in printed
        assert "every tool the first-party analyses need is installed" in printed
        credentials = dict(re.findall(r"(?m)^  (\w+): (\S+)$", printed))
        form = urllib.parse.urlencode({
            "grant_type": "password", "client_id": credentials["client_id"],
            "client_secret": credentials["client_secret"], "username": credentials["username"],
            "password": credentials["password"]}).encode()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/oauth/token", form) as res:
            token = json.loads(res.read())["access_token"]
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/analysisTypes",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request) as res:
            types = {t["name"]: t for t in json.loads(res.read())["resource"]["resources"]}
        assert set(types) >= FIRST_PARTY_TYPES, sorted(types)
        not_ready = {name: [tool for tool in types[name]["tools"] if not tool["ready"]]
                     for name in FIRST_PARTY_TYPES if not types[name]["ready"]}
        assert not_ready == {}
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
