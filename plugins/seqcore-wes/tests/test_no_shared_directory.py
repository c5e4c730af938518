"""seqcore scaled out with no shared directory: two web processes, two workers and a WES
server, each in a directory of its own, sharing only the database and an object store (an
S3 bucket on moto, an Azure container on Azurite).

A client uploads a pair as IRIDA Next's does (``createDirectUpload``, ``PUT`` to the store's
signed URL, attach at once) through one web process; a worker runs its QC; an analysis
launched through the other web process runs on the WES server, which reads its samplesheet
and reads from signed URLs of the store and answers its outputs over HTTP (its front,
:class:`wes_server.OutputFront`, serves them as WES servers on other machines do); an export
of the sample and the analysis is built and downloaded from the store. No process reads a
file another one wrote: each one's own directories hold no stored file afterwards.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest
from conftest import READCOUNT
from wes_server import OutputFront, WesServer, cache_dir, wes_venv

from seqcore.testing import database
from seqcore.testing.server import SEQCORE, live_server
from seqcore.testing.uploads import CREATE_DIRECT_UPLOAD, fastq, gz

pytestmark = pytest.mark.slow

PASSWORD = "No-shared-dir-1!"
TYPE = "seqcore-readcount-1.0.0"
ATTACH = """mutation($files: [String!]!, $sampleId: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId}) {
    status errors { path message } } }"""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # the 303 itself is what is checked
        return None


NO_REDIRECT = urllib.request.build_opener(_NoRedirect)


def call(srv, method, path, token, body=None, accept="application/json"):
    status, data, headers = srv.request(method, path, token, body, accept)
    return status, (json.loads(data) if data and accept == "application/json"
                    and data[:1] in b"{[" else data), headers


def from_store(srv, path, token, accept):
    """A download through seqcore: a 303 to the store's signed URL, fetched without
    seqcore's credentials."""
    req = urllib.request.Request(srv.url + path, headers={"Authorization": f"Bearer {token}",
                                                          "Accept": accept})
    try:
        NO_REDIRECT.open(req)
    except urllib.error.HTTPError as err:
        assert err.code == 303, (path, err.code, err.read()[:300])
        location = err.headers["Location"]
    else:
        raise AssertionError(f"{path} was not redirected to the store")
    assert not location.startswith(srv.url)
    with urllib.request.urlopen(location) as res:
        return res.read()


def graphql(srv, auth, query, variables):
    req = urllib.request.Request(srv.url + "/api/graphql", method="POST", data=json.dumps(
        {"query": query, "variables": variables}).encode(), headers={
        "Authorization": f"Basic {auth}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        body = json.loads(res.read())
    assert "errors" not in body, body
    return body["data"]


def put(url, data, headers):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.request("PUT", f"{parts.path}?{parts.query}", body=data, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def until(what, check, timeout=300.0):
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.5)


def stored_files(root: Path) -> list[str]:
    """Files under a process's own storage directory (its scratch space): none may stay."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture
def wes_front(tmp_path):
    server = WesServer(wes_venv(cache_dir()), tmp_path / "wes-server")
    server.workdir.mkdir()
    server.start()
    front = OutputFront(server)
    yield front
    front.stop()
    server.stop()


@pytest.mark.parametrize("kind", ["s3", "azure"])
def test_web_workers_and_wes_share_no_directory(request, tmp_path, wes_front, monkeypatch,
                                                 kind):
    store = request.getfixturevalue(f"{kind}_server")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
    # PostgreSQL when the tests have one (SQLite otherwise: a file in a directory of its
    # own, standing in for the database server).
    (tmp_path / "database").mkdir()
    url = database.test_database_url(tmp_path / "database", "noshare")
    common = {"sqlalchemy.url": url, "seqcore.session.secret": "no-shared-directory",
              "seqcore.plugins.enabled": "sequencefiles,wes",
              "seqcore.pipelines.dir": str(READCOUNT), "seqcore.wes.url": wes_front.url,
              "seqcore.wes.timeout_seconds": "60", "seqcore.worker.embedded": "false",
              **store.settings()}
    webs = [live_server(tmp_path / f"web-{n}", **common) for n in (1, 2)]
    hosts = [live_server(tmp_path / f"worker-{n}", **common) for n in (1, 2)]
    workers = []
    try:
        for web in webs:
            web.start()
        # Both workers run every round: an analysis is followed by the worker that prepared
        # it, whose own directory holds its job.
        for host in hosts:
            log = open(host.root / "worker.log", "w")  # noqa: SIM115
            workers.append(subprocess.Popen(
                [*SEQCORE, "-c", str(host.ini), "worker", "--interval", "0.2"],
                stdout=log, stderr=subprocess.STDOUT))
        first, second = webs
        first.create_user("scaler", PASSWORD, "ROLE_ADMIN")
        secret = first.create_client("client")
        token = second.token("client", secret, "scaler", PASSWORD)
        personal = first.cli("tokens", "create", "scaler", "--scope", "api").strip()
        auth = base64.b64encode(f"scaler@example.org:{personal}".encode()).decode()

        _, body, _ = call(first, "POST", "/api/projects", token, {"name": "Scaled out"})
        project = int(body["resource"]["identifier"])
        _, body, _ = call(second, "POST", f"/api/projects/{project}/samples", token,
                          {"sampleName": "isolate-1"})
        sample = int(body["resource"]["identifier"])

        # IRIDA Next's direct upload: announce, PUT to the store, attach at once.
        reads = {"isolate-1_R1.fastq.gz": gz(fastq(reads=40, length=60, seed=1)),
                 "isolate-1_R2.fastq.gz": gz(fastq(reads=40, length=50, seed=2))}
        blobs = []
        for name, data in reads.items():
            upload = graphql(first, auth, CREATE_DIRECT_UPLOAD, {
                "filename": name, "contentType": "application/gzip",
                "checksum": base64.b64encode(hashlib.md5(data).digest()).decode(),
                "byteSize": len(data)})["createDirectUpload"]["directUpload"]
            assert not upload["url"].startswith(first.url)  # the store's own URL
            assert put(upload["url"], data, json.loads(upload["headers"])) in (200, 201)
            blobs.append(upload["signedBlobId"])
        attached = graphql(second, auth, ATTACH, {
            "files": blobs, "sampleId": f"gid://seqcore/Sample/{sample}"})
        assert attached["attachFilesToSample"]["status"] == dict.fromkeys(blobs, "success"), \
            attached

        # QC, by whichever worker takes it.
        def processed():
            _, found, _ = call(second, "GET", f"/api/samples/{sample}/pairs", token)
            pairs = found["resource"]["resources"]
            return pairs if pairs and pairs[0]["processingState"] in ("FINISHED",
                                                                      "ERROR") else None
        [pair] = until("QC of the pair", processed)
        assert pair["processingState"] == "FINISHED", pair
        pair_id = int(pair["identifier"])

        # An analysis on the WES server.
        status, body, _ = call(first, "POST", f"/api/analysisSubmissions/analysisType/{TYPE}",
                               token, {"name": "counts", "sequencingObjects": [pair_id],
                                       "writeResultsToSamples": True})
        assert status == 201, body
        submission = int(body["resource"]["identifier"])

        def ended():
            _, found, _ = call(second, "GET", f"/api/analysisSubmissions/{submission}", token)
            resource = found["resource"]
            return resource if resource["analysisState"] in ("COMPLETED", "ERROR") else None
        finished = until("the analysis", ended, timeout=600)
        assert finished["analysisState"] == "COMPLETED", finished.get("analysisError")
        _, analysis, _ = call(first, "GET", f"/api/analysisSubmissions/{submission}/analysis",
                              token)
        outputs = {link["rel"]: urllib.parse.urlsplit(link["href"]).path
                   for link in analysis["resource"]["links"]
                   if link["rel"].startswith("outputFile/")}
        summary = from_store(second, outputs["outputFile/global-summary.txt"], token,
                             "text/plain")
        assert summary.decode().split()[-2:] == ["80", str(40 * 60 + 40 * 50)]
        sheet = from_store(first, outputs["outputFile/samplesheet"], token, "text/plain")
        row = sheet.decode().splitlines()[1].split(",")
        assert all(cell.startswith(store.endpoint) for cell in row[2:4]), row
        # The WES server got URLs, not paths, and answered its outputs over HTTP.
        run = json.loads(urllib.request.urlopen(
            f"{wes_front.url}/runs/{finished['remoteWorkflowId']}").read())
        params = run["request"]["workflow_params"]
        params = json.loads(params) if isinstance(params, str) else params
        assert params["input"]["location"].startswith(store.endpoint)
        assert any(path.endswith("iridanext.output.json.gz") for path in wes_front.served)

        # An export of the sample and the analysis, built by a worker, from the store.
        status, body, _ = call(second, "POST", f"/api/projects/{project}/exports", token,
                               {"name": "scaled", "samples": [sample],
                                "analyses": [submission]})
        assert status in (201, 202), body
        export = int(body["resource"]["identifier"])

        def ready():
            _, found, _ = call(first, "GET", f"/api/exports/{export}", token)
            return found["resource"] if found["resource"]["state"] in ("READY",
                                                                       "ERROR") else None
        built = until("the export", ready)
        assert built["state"] == "READY", built
        bundle = zipfile.ZipFile(io.BytesIO(from_store(
            second, f"/api/exports/{export}/download", token, "application/zip")))
        contents = {Path(name).name: bundle.read(name) for name in bundle.namelist()}
        for name, data in reads.items():
            assert contents[name] == data
        assert contents["summary.txt"] == summary

        # Every object the database refers to is in the store, whole; nothing else is.
        assert "stored files present and intact" in hosts[1].cli("check")
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(timeout=60)
        for web in webs:
            web.stop()
    # No process kept a stored file in its own directories; only the worker that prepared
    # the analysis has its job directory (one attempt), and the WES server's runs are in
    # its own.
    for process in [*webs, *hosts]:
        assert stored_files(process.root / "storage") == [], process.root
    assert not any((webs[0].root / "work").glob("*"))
    jobs = [job for host in hosts for job in (host.root / "work").glob("*")]
    assert len(jobs) == 1, jobs
