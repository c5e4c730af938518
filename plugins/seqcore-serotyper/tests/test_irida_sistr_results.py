"""IRIDA's own SISTR results client (PyPI ``irida-sistr-results`` 0.6.0) against a real
seqcore server: reads uploaded over HTTP, a ``sistr`` submission typed by the server's
embedded worker, then the client's export (it follows the pair's ``analysis/sistr`` link,
needs a known ``workflowId``, reads ``outputFile/sistr-predictions`` as a JSON array with
``Accept: text/plain``, and lists ``/api/projects/{id}/analyses/sistr``).

The server is started without a ``sqlalchemy.url``: it makes its own SQLite database whatever
the suite runs on, so the module is database-independent and ``.ci/run`` runs its assembly and
SISTR typing once, in the SQLite pass."""

import csv
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_serotyper import salmonella_reads

from seqcore.testing.server import live_server
from seqcore.testing.uploads import multipart

pytestmark = pytest.mark.database_independent

PASSWORD = "Sistr-pass1!"
CLIENT = Path(sys.executable).parent / "irida-sistr-results"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Every installed plugin, as a deployment loads them (entry points).
    srv = live_server(tmp_path_factory.mktemp("server"), **{"seqcore.analysis.threads": "2"})
    srv.create_user("typist", PASSWORD)
    srv.secret = srv.create_client("sistr-results")
    srv.start()
    srv.user = srv.token("sistr-results", srv.secret, "typist", PASSWORD)
    yield srv
    srv.stop()


def post_json(server, path, body):
    status, raw, _ = server.request("POST", path, server.user, body)
    assert status == 201, raw
    return json.loads(raw)["resource"]


def upload_pair(server, sample_id, reads):
    body, content_type = multipart([("file1", "/data/run/s1_R1.fastq", reads[1], None),
                                    ("file2", "/data/run/s1_R2.fastq", reads[2], None)])
    request = urllib.request.Request(
        f"{server.url}/api/samples/{sample_id}/pairs", data=body, method="POST",
        headers={"Authorization": f"Bearer {server.user}", "Content-Type": content_type,
                 "Accept": "application/json"})
    with urllib.request.urlopen(request) as res:
        assert res.status == 201
        return json.loads(res.read())["resource"]


def test_irida_sistr_results_exports_the_typing(server, reads_dir, tmp_path):
    assert CLIENT.is_file(), "pip install -e 'plugins/seqcore-serotyper[test]' (./dev test does)"
    reads = salmonella_reads(reads_dir)
    project = post_json(server, "/api/projects", {"name": "Salmonella surveillance"})
    sample = post_json(server, f"/api/projects/{project['identifier']}/samples",
                       {"sampleName": "SAL-001"})
    pair = upload_pair(server, sample["identifier"], reads)
    submission = post_json(server, "/api/analysisSubmissions/analysisType/sistr", {
        "name": "SISTR SAL-001", "sequencingObjects": [int(pair["identifier"])],
        "projects": [int(project["identifier"])], "writeResultsToSamples": True,
        "parameters": {"assembler": "megahit", "use_full_cgmlst_db": False}})
    deadline = time.monotonic() + 600
    state = None
    while time.monotonic() < deadline:
        body = server.get_json(f"/api/analysisSubmissions/{submission['identifier']}",
                               server.user)["resource"]
        state = body["analysisState"]
        if state in ("COMPLETED", "ERROR"):
            break
        time.sleep(1)
    assert state == "COMPLETED", body.get("analysisError") or (
        server.root / "server.log").read_text()[-3000:]

    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "sistr.tsv"
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config")}
    done = subprocess.run(
        [str(CLIENT), "--irida-url", server.url, "--client-id", "sistr-results",
         "--client-secret", server.secret, "-u", "typist", "--password", PASSWORD,
         "-p", str(project["identifier"]), "--output-tab", str(out), "-v"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    with out.open() as handle:  # '#' lines first: when, who, the command
        rows = list(csv.DictReader((line for line in handle if not line.startswith("#")),
                                   delimiter="\t"))
    (row,) = rows
    assert row["Sample Name"] == "SAL-001" and row["Project ID"] == project["identifier"]
    assert row["QC Status"] == "WARNING"  # a 400 kb genome: far below Salmonella's size
    assert row["Serovar (overall)"] == "Typhimurium"
    assert row["Serovar (cgMLST)"] == "Typhimurium"
    assert (row["Serogroup"], row["H1"], row["H2"]) == ("B", "i", "1,2")
    assert row["O-antigen"] == "1,4,[5],12"
    assert row["cgMLST Matching Genome"] == "2014-LET-0134"
    assert row["IRIDA Workflow Version"] == "0.3"
    assert row["IRIDA Workflow ID"] == "92ecf046-ee09-4271-b849-7a82625d6b60"
    assert row["IRIDA Submission Identifier"] == submission["identifier"]
    assert row["IRIDA File Pair Identifier"] == pair["identifier"]
    assert row["IRIDA Sample Identifier"] == sample["identifier"]
