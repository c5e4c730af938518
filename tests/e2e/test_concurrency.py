"""64 keep-alive clients at once against gunicorn with the production configuration
(``deploy/gunicorn.conf.py``): reads of projects, samples and metadata mixed with small
uploads through the uploader's REST path. No connection error, no 5xx."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seqcore.testing.load import mixed_steps, run_load
from seqcore.testing.server import live_server

# xdist_group("serial"): under pytest-xdist (--dist loadgroup) these run on one worker, one
# after the other, never beside another test of the group: 64 client threads and two
# gunicorn workers take every core for their time; two such loads at once would time each
# other out.
# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("serial"), pytest.mark.database_independent]

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = 64


@pytest.fixture
def server(tmp_path):
    srv = live_server(tmp_path / "server", **{"seqcore.worker.embedded": "false",
                                              "seqcore.session.secret": "concurrency-test"})
    srv.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    srv.secret = srv.create_client("client")
    ini = srv.ini.read_text().split("[server:main]")[0]
    srv.ini.write_text(ini)
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
         "--paste", str(srv.ini), "--bind", f"127.0.0.1:{srv.port}"],
        stdout=log, stderr=subprocess.STDOUT, env={"SEQCORE_WORKERS": "2", "PATH": "/usr/bin"})
    srv.process = process
    deadline = time.monotonic() + 60
    while True:
        try:
            srv.admin = srv.token("client", srv.secret, "admin", "Admin-pass1!")
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError((tmp_path / "gunicorn.log").read_text()) from None
            time.sleep(0.2)
    yield srv
    srv.stop()


def _world(server, projects: int = 4, samples: int = 5) -> tuple[list[int], list[int]]:
    project_ids, sample_ids = [], []
    for p in range(projects):
        status, body, _ = server.request("POST", "/api/projects", server.admin,
                                         {"name": f"Project {p}"})
        assert status == 201, body
        pid = json.loads(body)["resource"]["identifier"]
        project_ids.append(pid)
        for s in range(samples):
            _, body, _ = server.request("POST", f"/api/projects/{pid}/samples", server.admin,
                                        {"sampleName": f"p{p}-s{s}"})
            sid = json.loads(body)["resource"]["identifier"]
            sample_ids.append(sid)
            server.request("POST", f"/api/samples/{sid}/metadata", server.admin,
                           {"serovar": {"value": "Typhi", "type": "text"}})
    return project_ids, sample_ids


def test_64_keep_alive_clients_mixing_reads_and_uploads(server):
    projects, samples = _world(server)
    result = run_load(server.port, mixed_steps(server.admin, projects, samples), CLIENTS,
                      seconds=8)
    print(json.dumps(result.summary()))
    assert result.errors == []
    assert result.server_errors == 0, result.statuses
    assert set(result.statuses) <= {200, 201}, result.statuses
    assert result.statuses[201] > 0  # uploads happened
    assert result.requests > CLIENTS
