"""The legacy IRIDA uploader (``iridauploader==0.7.1``, the last release that finds every URL
by following links from ``GET /api/``), unchanged, as a program against a real seqcore server
on loopback, on the suite's database (SQLite, or PostgreSQL with
``SEQCORE_TEST_DATABASE_URL``): a paired-end run with the directory parser, read back over
REST and compared byte for byte.

0.7.1 starts at the root with a trailing slash, finds the project in ``projects`` by its
string ``identifier``, the samples by listing ``project/samples``, posts pairs to the
``sample/sequenceFiles/pairs`` link of ``sample/sequenceFiles``, creates the run by POSTing
to the ``sequencingRuns`` link plus ``/directory`` and PATCHes the run entry's ``self``.

It uploads with an administrator account: to find the run's ``self`` it lists
``GET /api/sequencingrun``, which DECISIONS ("Run access") keeps for administrators (IRIDA
also let sequencer accounts list runs), so a ``ROLE_SEQUENCER`` account stops there with a
403 (:func:`test_a_sequencer_account_cannot_list_runs_for_the_legacy_uploader`)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from seqcore.db import get_engine
from seqcore.models.sequencing import SequencingObject
from seqcore.testing import database
from seqcore.testing.server import live_server
from tests.e2e.client_venvs import client_program, run_iridauploader
from tests.e2e.test_irida_uploader import (
    check_ok,
    directory_run,
    download,
    reads,
    runs,
    sample_by_name,
)

PASSWORD = "Legacy-pass1!"
ADMIN_PASSWORD = "Admin-pass1!"

# xdist_group: the module's server (accounts and client made by seqcore commands) starts
# once, on one worker, rather than once on each worker the module's tests are spread over.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("irida_uploader_071")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("uploader071")
    url = database.test_database_url(root, "uploader071")
    srv = live_server(root / "server", **{"sqlalchemy.url": url,
                                          "seqcore.session.secret": "uploader-071-test"})
    srv.create_user("admin", ADMIN_PASSWORD, "ROLE_ADMIN")
    srv.create_user("uploads", PASSWORD, "ROLE_ADMIN")
    srv.create_user("sequencer", PASSWORD, "ROLE_SEQUENCER")
    srv.secret = srv.create_client("legacy-uploader", "--lenient")
    srv.start()
    srv.engine = get_engine(url)
    srv.admin = srv.token("legacy-uploader", srv.secret, "admin", ADMIN_PASSWORD)
    yield srv
    srv.stop()
    srv.engine.dispose()


def run_legacy_uploader(server, run_dir: Path, username: str = "uploads"
                        ) -> subprocess.CompletedProcess:
    """``irida-uploader -c CONFIG -d RUN_DIR`` with 0.7.1's keys (no retry settings yet)."""
    binary = client_program("iridauploader==0.7.1", "irida-uploader")
    return run_iridauploader(binary, run_dir, {
        "client_id": "legacy-uploader", "client_secret": server.secret, "username": username,
        "password": PASSWORD, "base_url": f"{server.url}/api/", "parser": "directory",
        "readonly": False, "delay": 0, "timeout": 10, "minimum_file_size": 0})


def test_legacy_uploader_directory_paired_end(server, tmp_path):
    status, body, _ = server.request("POST", "/api/projects", server.admin,
                                     {"name": "Legacy uploads"})
    assert status == 201
    project = json.loads(body)["resource"]["identifier"]
    files = {"kappa_R1.fastq": reads(21), "kappa_R2.fastq": reads(22),
             "lambda_1.fastq": reads(23, count=25), "lambda_2.fastq": reads(24, count=25)}
    samples = (("kappa-11", "kappa_R1.fastq", "kappa_R2.fastq"),
               ("lambda-12", "lambda_1.fastq", "lambda_2.fastq"))
    run = directory_run(tmp_path, project, list(samples), files)
    before = len(runs(server))

    started = time.monotonic()
    check_ok(run_legacy_uploader(server, run))
    took = time.monotonic() - started

    # What the uploader wrote down, and the run it made.
    status_file = json.loads((run / "irida_uploader_status.info").read_text())
    assert status_file["Upload Status"].upper() == "COMPLETE"
    new_runs = runs(server)[before:]
    assert [(r["sequencerType"], r["uploadStatus"], r["layoutType"]) for r in new_runs] == [
        ("directory", "COMPLETE", "PAIRED_END")]
    run_id = new_runs[0]["identifier"]
    assert str(status_file["Run ID"]) == run_id

    # The samples, their pairs, the files' names, bytes and checksums.
    listed = server.get_json(f"/api/projects/{project}/samples", server.admin)
    assert sorted(s["sampleName"] for s in listed["resource"]["resources"]) == [
        "kappa-11", "lambda-12"]
    for name, forward, reverse in samples:
        sample = sample_by_name(server, project, name)
        pairs = server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)
        (pair,) = pairs["resource"]["resources"]
        assert pair["forwardSequenceFile"]["fileName"] == forward
        assert pair["reverseSequenceFile"]["fileName"] == reverse
        links = {link["rel"]: link["href"] for link in pair["links"]}
        for rel, file_name, record in (("pair/forward", forward, "forwardSequenceFile"),
                                       ("pair/reverse", reverse, "reverseSequenceFile")):
            assert download(server, links[rel], "application/fastq") == files[file_name]
            assert pair[record]["uploadSha256"] == hashlib.sha256(
                files[file_name]).hexdigest()
            assert pair[record]["fileSizeBytes"] == len(files[file_name])
        # The pair belongs to the run the uploader made (REST shows no run on a pair).
        with server.engine.connect() as conn:
            assert conn.scalar(select(SequencingObject.run_id).where(
                SequencingObject.id == int(pair["identifier"]))) == int(run_id)
    print(f"\nirida-uploader 0.7.1: 2 samples, 4 files uploaded in {took:.1f} s")


def test_a_sequencer_account_cannot_list_runs_for_the_legacy_uploader(server, tmp_path):
    """The gap, pinned: with a ``ROLE_SEQUENCER`` account 0.7.1 creates the samples and the
    run, then stops at ``GET /api/sequencingrun`` (403) and uploads nothing."""
    status, body, _ = server.request("POST", "/api/projects", server.admin,
                                     {"name": "Legacy uploads by a sequencer"})
    assert status == 201
    project = json.loads(body)["resource"]["identifier"]
    run = directory_run(tmp_path, project, [("mu-13", "mu_R1.fastq", "mu_R2.fastq")],
                        {"mu_R1.fastq": reads(31), "mu_R2.fastq": reads(32)})
    done = run_legacy_uploader(server, run, username="sequencer")
    assert done.returncode != 0
    assert "/api/sequencingrun' responded with: 403" in done.stdout + done.stderr
    sample = sample_by_name(server, project, "mu-13")
    assert server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)[
        "resource"]["resources"] == []
