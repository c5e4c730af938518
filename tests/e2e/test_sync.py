"""Synchronized projects between two live servers on loopback: one plays the IRIDA install
(seqcore's REST dialect), the other mirrors a project of it with the worker's ``sync`` round
(``seqcore worker --only sync``). Run on SQLite, and on PostgreSQL with
``SEQCORE_TEST_DATABASE_URL``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from sqlalchemy import create_engine, text

from seqcore.testing import database
from seqcore.testing.server import SEQCORE, live_server
from seqcore.testing.uploads import fasta, fastq
from tests.e2e.test_import import by_name, files_of, seed, target_url, upload

pytestmark = pytest.mark.slow

PASSWORD = "Sync-pass1!"
SETTINGS = {"seqcore.session.secret": "sync-test-secret"}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("sync_source")
    srv = live_server(root / "server", **{
        "sqlalchemy.url": database.test_database_url(root, "sync_source"), **SETTINGS})
    srv.create_user("admin", PASSWORD, "ROLE_ADMIN")
    srv.create_user("alice", PASSWORD)
    srv.create_user("bob", PASSWORD)
    srv.secret = srv.create_client("client")
    srv.start()
    srv.admin = srv.token("client", srv.secret, "admin", PASSWORD)
    yield srv
    srv.stop()


def mirror_server(tmp_path, source, name):
    """The install that mirrors: no embedded worker (the test runs the ``sync`` round), a
    short lease (a killed worker's sync is taken over soon), ``owner`` connected to the
    source as its admin (a token of the password grant, as a connection holds one)."""
    srv = live_server(tmp_path / name, **{
        "sqlalchemy.url": database.test_database_url(tmp_path, name), **SETTINGS,
        "seqcore.worker.embedded": "false", "seqcore.processing.lease_seconds": "3"})
    srv.create_user("owner", PASSWORD)
    srv.create_user("carol", PASSWORD)
    engine = create_engine(target_url(srv))
    with engine.begin() as conn:
        owner = conn.execute(text("SELECT id FROM \"user\" WHERE username = 'owner'")).scalar()
        conn.execute(text(
            "INSERT INTO remote_api (name, base_url, kind, client_id, client_secret, created) "
            "VALUES ('Source', :url, 'irida', 'client', :secret, CURRENT_TIMESTAMP)"),
            {"url": source.url, "secret": source.secret})
        api = conn.execute(text("SELECT id FROM remote_api")).scalar()
        conn.execute(text(
            "INSERT INTO remote_connection (remote_api_id, user_id, access_token, created) "
            "VALUES (:api, :user, :token, CURRENT_TIMESTAMP)"),
            {"api": api, "user": owner, "token": source.admin})
    engine.dispose()
    srv.api_id = api
    srv.start()
    srv.secret = srv.create_client("client")
    srv.owner = srv.token("client", srv.secret, "owner", PASSWORD)
    return srv


def sync_round(target):
    """One ``sync`` round of a worker (``seqcore worker --once --only sync``)."""
    done = subprocess.run([*SEQCORE, "-c", str(target.ini), "worker", "--once", "--only",
                           "sync"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def sync_now(target, local):
    status, body, _ = target.request("POST", f"/api/projects/{local}/sync", target.owner)
    assert status == 202, body
    sync_round(target)
    state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
    assert state["status"] == "synchronized" and not state["running"], state
    return state


def synchronize(target, source, pid):
    status, body, _ = target.request("POST", "/api/projects/synchronized", target.owner, {
        "remoteApi": target.api_id, "projectUrl": f"{source.url}/api/projects/{pid}",
        "syncFrequency": "NEVER"})
    assert status == 201, body
    local = json.loads(body)["resource"]["identifier"]
    state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
    assert state["status"] == "scheduled" and state["lastSync"] is None
    sync_round(target)
    state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
    assert state["status"] == "synchronized", state
    assert state["lastSync"] and state["nextSync"] is None  # NEVER: only when asked
    return local


def same_content(source, target, pid, local):
    theirs = by_name(source, source.admin, pid)
    ours = by_name(target, target.owner, local)
    assert sorted(ours) == sorted(theirs)
    for name, remote in theirs.items():
        here = ours[name]
        meta = [srv.get_json(f"/api/samples/{s['identifier']}/metadata", t)["resource"]
                ["metadata"] for srv, s, t in ((source, remote, source.admin),
                                               (target, here, target.owner))]
        assert meta[0] == meta[1], name
        for kind in ("pairs", "unpaired"):
            assert (files_of(target, target.owner, here["identifier"], kind)
                    == files_of(source, source.admin, remote["identifier"], kind)), name
    return ours


def file_ids(srv, token, samples):
    found = {}
    for name, sample in samples.items():
        for kind in ("pairs", "unpaired"):
            listed = srv.get_json(f"/api/samples/{sample['identifier']}/{kind}",
                                  token)["resource"]["resources"]
            found[name, kind] = sorted(o["identifier"] for o in listed)
    return found


def test_a_synchronized_project_follows_its_remote(source, tmp_path):
    pid = seed(source, source.admin, name="Sync source", samples=4, analysis=False,
               prefix="sync")
    first = by_name(source, source.admin, pid)
    upload(source, source.admin, f"/api/samples/{first['sync-000']['identifier']}/assemblies",
           [("file", "sync-000.fasta", fasta(seed=5), None)])
    target = mirror_server(tmp_path, source, "sync_target")
    try:
        local = synchronize(target, source, pid)
        ours = same_content(source, target, pid, local)
        assemblies = target.get_json(f"/api/samples/{ours['sync-000']['identifier']}"
                                     "/assemblies", target.owner)["resource"]["resources"]
        assert [a["fileName"] for a in assemblies] == ["sync-000.fasta"]
        project = target.get_json(f"/api/projects/{local}", target.owner)["resource"]
        assert project["name"] == "Sync source"
        assert project["remoteURL"] == f"{source.url}/api/projects/{pid}"

        # Read-only here: samples, metadata and files refuse users' writes, changing nothing.
        sid = ours["sync-001"]["identifier"]
        status, body, _ = target.request("PUT", f"/api/samples/{sid}/metadata", target.owner,
                                         {"serotype": {"value": "local"}})
        assert status == 403 and b"synchronized" in body, body
        status, body, _ = target.request("POST", f"/api/projects/{local}/samples",
                                         target.owner, {"sampleName": "local-one"})
        assert status == 403, body
        status, body, _ = target.request("PATCH", f"/api/samples/{sid}", target.owner,
                                         {"description": "changed here"})
        assert status == 403, body
        assert same_content(source, target, pid, local) == ours

        # Nothing changed there: the hash says so and nothing is read again.
        before = file_ids(target, target.owner, ours)
        state = sync_now(target, local)
        copied = state["lastCopied"]
        assert copied["sample"] == 4 and copied["sequencing_object"] == 5

        # A metadata change and a new file there arrive, and nothing else is copied again.
        theirs = by_name(source, source.admin, pid)
        status, _, _ = source.request(
            "PUT", f"/api/samples/{theirs['sync-001']['identifier']}/metadata", source.admin,
            {"serotype": {"value": "4b"}})
        assert status == 200
        upload(source, source.admin,
               f"/api/samples/{theirs['sync-002']['identifier']}/unpaired",
               [("file", "sync-002-extra.fastq", fastq(seed=77), None)])
        state = sync_now(target, local)
        copied = {k: v for k, v in state["lastCopied"].items() if k != "bytes"}
        assert copied == {"metadata": 1, "sequencing_object": 1, "file": 1}, copied
        ours = same_content(source, target, pid, local)
        after = file_ids(target, target.owner, ours)
        assert {k: v for k, v in after.items() if k != ("sync-002", "unpaired")} == {
            k: v for k, v in before.items() if k != ("sync-002", "unpaired")}
        assert set(before["sync-002", "unpaired"]) < set(after["sync-002", "unpaired"])

        # Deletions there are mirrored: a sample, and a pair of another sample.
        status, _, _ = source.request(
            "DELETE", f"/api/projects/{pid}/samples/{theirs['sync-003']['identifier']}",
            source.admin)
        assert status == 200
        pairs = source.get_json(f"/api/samples/{theirs['sync-000']['identifier']}/pairs",
                                source.admin)["resource"]["resources"]
        status, _, _ = source.request(
            "DELETE", f"/api/samples/{theirs['sync-000']['identifier']}/pairs/"
            f"{pairs[0]['identifier']}", source.admin)
        assert status == 200
        # seqcore's REST API deletes no assembly (IRIDA's pages do): delete it there directly.
        engine = create_engine(target_url(source))
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM assemblies_assembly WHERE sample_id = :s"),
                         {"s": int(theirs["sync-000"]["identifier"])})
        engine.dispose()
        state = sync_now(target, local)
        assert state["lastCopied"].get("removed assembly") == 1, state
        ours = same_content(source, target, pid, local)
        assert "sync-003" not in ours
        assert files_of(target, target.owner, ours["sync-000"]["identifier"], "pairs") == []
        assert target.get_json(f"/api/samples/{ours['sync-000']['identifier']}/assemblies",
                               target.owner)["resource"]["resources"] == []
    finally:
        target.stop()


def test_a_sync_killed_mid_file_resumes_with_no_partial_file(source, tmp_path):
    pid = seed(source, source.admin, name="Sync resume", samples=4, big=60_000,
               analysis=False, prefix="resume")
    target = mirror_server(tmp_path, source, "resume_target")
    try:
        status, body, _ = target.request("POST", "/api/projects/synchronized", target.owner, {
            "remoteApi": target.api_id, "projectUrl": pid, "syncFrequency": "DAILY"})
        assert status == 201, body
        local = json.loads(body)["resource"]["identifier"]
        worker = subprocess.Popen([*SEQCORE, "-c", str(target.ini), "worker", "--only",
                                   "sync", "--interval", "0.2"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tmp = tmp_path / "resume_target" / "storage" / "tmp"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and worker.poll() is None:
            if tmp.exists() and any(p.stat().st_size > 0 for p in tmp.glob("upload-*")):
                break
            time.sleep(0.005)
        assert worker.poll() is None, "the worker ended before a file was half copied"
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
        assert state["status"] == "updating" and state["running"], state
        assert not by_name(target, target.owner, local)  # nothing of the first batch stands
        time.sleep(3.5)  # the lease of the killed worker runs out
        sync_round(target)
        state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
        assert state["status"] == "synchronized" and not state["running"], state
        assert state["nextSync"] > state["lastSync"]  # DAILY
        same_content(source, target, pid, local)
    finally:
        target.stop()
    storage = tmp_path / "resume_target" / "storage"
    stored = {str(p.relative_to(storage)) for p in storage.rglob("*")
              if p.is_file() and p.parent.name != "tmp"}
    engine = create_engine(target_url(target))
    with engine.connect() as conn:
        recorded = set(conn.execute(text("SELECT path FROM sequence_file")).scalars())
    engine.dispose()
    assert stored == recorded


def test_a_sync_that_cannot_reach_the_remote_says_why_and_catches_up(source, tmp_path):
    pid = seed(source, source.admin, name="Sync outage", samples=2, analysis=False,
               prefix="outage")
    target = mirror_server(tmp_path, source, "outage_target")
    try:
        local = synchronize(target, source, pid)
        theirs = by_name(source, source.admin, pid)
        status, _, _ = source.request(
            "PUT", f"/api/samples/{theirs['outage-000']['identifier']}/metadata",
            source.admin, {"serotype": {"value": "4b"}})
        assert status == 200
        source.stop()
        try:
            target.request("POST", f"/api/projects/{local}/sync", target.owner)
            sync_round(target)
            state = target.get_json(f"/api/projects/{local}/sync", target.owner)["resource"]
            assert state["status"] == "error" and "Connection refused" in state["error"], state
            assert not state["running"]
        finally:
            source.start()
        sync_now(target, local)
        same_content(source, target, pid, local)
    finally:
        target.stop()
