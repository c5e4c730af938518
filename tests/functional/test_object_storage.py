"""seqcore on an object store (an S3 bucket on moto, an Azure container on Azurite): REST
uploads stream into the store, downloads answer 303 to a signed URL of the store (streamed
with ?stream=1), deleting removes the objects, and IRIDA Next's direct upload PUTs to the
store itself, the worker checking the bytes before they can be attached (a refused upload
leaves no object)."""

from __future__ import annotations

import http.client
import json
import urllib.parse
import urllib.request

import pytest

from seqcore.files.directuploads import DirectUploadChecker
from seqcore.services import IStorage, registry_service
from seqcore.testing.uploads import CREATE_DIRECT_UPLOAD, fastq, gz, md5_base64, multipart

ATTACH = """mutation($files: [String!]!, $sampleId: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId}) {
    status errors { path message } } }"""


@pytest.fixture(params=["s3", "azure"])
def store_app(request, build_app):
    server = request.getfixturevalue(f"{request.param}_server")
    app = build_app(**server.settings())
    storage = registry_service(app.app.app.registry, IStorage)
    return app, storage


def _objects(storage):
    return sorted(storage.backend.stored_keys())


def _browser(app, user):
    """A browser session of ``user`` on the same application (the pages' sign-in)."""
    from webtest import TestApp

    browser = TestApp(app.app, extra_environ=app.extra_environ)
    page = browser.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)
    return browser


def _fetch(url):
    with urllib.request.urlopen(url) as response:
        return response.read()


def test_rest_upload_download_and_delete(store_app, factories):
    app, storage = store_app
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    headers = factories.headers(owner)
    reads = gz(fastq(reads=2000, seed=3))
    body, content_type = multipart([("file", "isolate-1_R1.fastq.gz", reads, None)])
    res = app.post(f"/api/samples/{sample.id}/sequenceFiles", body,
                   headers={**headers, "Content-Type": content_type}, status=201)
    resource = res.json["resource"]
    assert resource["file"].startswith(("s3://", "az://"))
    [key] = _objects(storage)
    assert resource["file"].endswith(key)
    url = res.headers["Location"]
    redirect = app.get(url, headers={**headers, "Accept": "application/fastq"}, status=303)
    assert redirect.headers["Cache-Control"] == "no-store"
    assert _fetch(redirect.headers["Location"]) == reads
    streamed = app.get(url + "?stream=1", headers={**headers, "Accept": "application/fastq"},
                       status=200)
    assert streamed.body == reads
    assert "isolate-1_R1.fastq.gz" in streamed.headers["Content-Disposition"]
    app.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    assert _objects(storage) == []


def test_a_refused_rest_upload_leaves_no_object(store_app, factories):
    app, storage = store_app
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.headers(owner)
    truncated = gz(fastq(reads=3000, seed=5))[:-100]
    body, content_type = multipart([("file1", "s_R1.fastq.gz", gz(fastq(seed=1)), None),
                                    ("file2", "s_R2.fastq.gz", truncated, None)])
    app.post(f"/api/samples/{sample.id}/pairs", body,
             headers={**headers, "Content-Type": content_type}, status=400)
    assert _objects(storage) == []


def _put(upload, data):
    url = urllib.parse.urlsplit(upload["url"])
    conn = http.client.HTTPConnection(url.hostname, url.port)
    conn.request("PUT", f"{url.path}?{url.query}", body=data,
                 headers=json.loads(upload["headers"]))
    response = conn.getresponse()
    response.read()
    return response.status


def test_direct_upload_goes_to_the_store_and_is_checked_before_attaching(
        store_app, factories):
    app, storage = store_app
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.graphql_headers(owner, ("read_api", "api"))
    checker = DirectUploadChecker(app.app.app.registry)

    def announce(name, data):
        res = app.post_json("/api/graphql", {"query": CREATE_DIRECT_UPLOAD, "variables": {
            "filename": name, "contentType": "application/octet-stream",
            "checksum": md5_base64(data), "byteSize": len(data)}}, headers=headers)
        return res.json["data"]["createDirectUpload"]["directUpload"]

    def attach(blob):
        res = app.post_json("/api/graphql", {"query": ATTACH, "variables": {
            "files": [blob], "sampleId": f"gid://seqcore/Sample/{sample.id}"}},
            headers=headers)
        assert "errors" not in res.json, res.json
        return res.json["data"]["attachFilesToSample"]

    good = fastq(seed=4)
    upload = announce("reads.fastq", good)
    assert upload["url"].startswith(storage.backend.location.split(" at ")[-1]
                                    if storage.backend.kind == "azure" else "http://127.0.0.1")
    assert "/api/directUploads/" not in upload["url"]
    # Attached before its PUT: still awaited, and nothing changes.
    waiting = attach(upload["signedBlobId"])
    assert "not arrived" in waiting["errors"][0]["message"]
    assert waiting["status"] == {upload["signedBlobId"]: "error"}
    assert _put(upload, good) in (200, 201)
    # IRIDA Next's client attaches right after its PUT: the check runs inline.
    assert attach(upload["signedBlobId"])["status"] == {upload["signedBlobId"]: "success"}
    assert checker.run_once() == 0  # nothing left for the worker's round

    # Refused inline: the reason is the answer and the object is gone at once.
    bad = b"this is not FASTQ at all\n"
    refused = announce("bad.fastq", bad)
    assert _put(refused, bad) in (200, 201)
    keys_before = _objects(storage)
    answer = attach(refused["signedBlobId"])
    assert answer["status"] == {refused["signedBlobId"]: "error"}
    assert "refused" in answer["errors"][0]["message"]
    assert len(_objects(storage)) == len(keys_before) - 1
    assert attach(refused["signedBlobId"])["status"] == {refused["signedBlobId"]: "error"}

    # Refused by the worker's round (the client never attached): the same, then.
    also_bad = b">not a fastq\nACGT\n"
    late = announce("late.fastq", also_bad)
    assert _put(late, also_bad) in (200, 201)
    keys_before = _objects(storage)
    checker._next = 0.0
    assert checker.run_once() == 1
    assert len(_objects(storage)) == len(keys_before) - 1
    assert attach(late["signedBlobId"])["status"] == {late["signedBlobId"]: "error"}


def test_processing_reads_from_the_store_and_writes_the_new_revision_back(
        request, build_app, factories, db):
    from seqcore.models.sequencing import QCRecord, SequenceFile
    from seqcore.testing.workers import Worker

    server = request.getfixturevalue("s3_server")
    app = build_app(**server.settings(), **{"seqcore.processing.decompress": True})
    storage = registry_service(app.app.app.registry, IStorage)
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.headers(owner)
    reads = fastq(reads=200, seed=6)
    body, content_type = multipart([("file", "isolate-1.fastq.gz", gz(reads), None)])
    res = app.post(f"/api/samples/{sample.id}/sequenceFiles", body,
                   headers={**headers, "Content-Type": content_type}, status=201)
    Worker(app.app.app.registry).run_until_idle()
    record = db.query(SequenceFile).one()
    assert record.revision == 2 and record.file_name == "isolate-1.fastq"
    assert sorted(_objects(storage)) == sorted([record.path, record.original_path])
    with storage.open(record.path) as fh:
        assert fh.read() == reads
    assert db.query(QCRecord).filter_by(file_id=record.id).one().report["totalSequences"] == 200
    streamed = app.get(res.headers["Location"] + "?stream=1",
                       headers={**headers, "Accept": "application/fastq"})
    assert streamed.body == reads


def test_an_analysis_stages_its_inputs_and_writes_its_outputs_back(request, build_app,
                                                                   factories, db, tmp_path):
    from seqcore.analysis.worker import AnalysisWorker

    server = request.getfixturevalue("s3_server")
    app = build_app(**server.settings())
    storage = registry_service(app.app.app.registry, IStorage)
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.headers(owner)
    body, content_type = multipart([
        ("file1", "s_R1.fastq", fastq(reads=30, length=50, seed=1), None),
        ("file2", "s_R2.fastq", fastq(reads=30, length=70, seed=2), None)])
    res = app.post(f"/api/samples/{sample.id}/pairs", body,
                   headers={**headers, "Content-Type": content_type}, status=201)
    pair_id = int(res.headers["Location"].rsplit("/", 1)[-1])
    launched = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                             {"name": "counts", "sequencingObjects": [pair_id],
                              "writeResultsToSamples": True},
                             headers=headers, status=201)
    url = launched.headers["Location"].replace("http://localhost", "")
    AnalysisWorker(app.app.app.registry).run_until_idle(timeout=120)
    submission = app.get(url, headers=headers).json["resource"]
    assert submission["analysisState"] == "COMPLETED", submission
    analysis = app.get(url + "/analysis", headers=headers).json["resource"]
    counts = next(link["href"] for link in analysis["links"]
                  if link["rel"] == "outputFile/counts")
    redirect = app.get(counts, headers={**headers, "Accept": "text/plain"}, status=303)
    assert _fetch(redirect.headers["Location"]).decode().splitlines()[-1] == \
        "isolate-1\ts_R2.fastq\t30\t2100"
    assert len(_objects(storage)) > 2  # the inputs and the outputs
    # The page's download of the same output: the store's signed URL too.
    browser = _browser(app, owner)
    page_url = f"/-/analyses/{url.rsplit('/', 1)[-1]}/outputs/{counts.rsplit('/', 1)[-1]}"
    from_page = browser.get(page_url, status=303)
    assert from_page.headers["Cache-Control"] == "no-store"
    assert _fetch(from_page.headers["Location"]).decode().splitlines()[-1] == \
        "isolate-1\ts_R2.fastq\t30\t2100"
    assert "counts" in browser.get(f"/-/analyses/{url.rsplit('/', 1)[-1]}").text
    metadata = app.get(f"/api/samples/{sample.id}/metadata",
                       headers=headers).json["resource"]["metadata"]
    assert metadata["read count"] == {"value": "60", "type": "text"}  # written back
    # An executor that reads URLs (WES) gets signed URLs of the inputs and no copies.
    from seqcore.models.analysis import AnalysisSubmission

    worker = AnalysisWorker(app.app.app.registry)
    sub = db.query(AnalysisSubmission).one()
    job = worker._job(db, sub, worker.analyses.type(sub.analysis_type), tmp_path / "job",
                      reads_urls=True)
    [item] = job["inputs"]
    assert item["files"] == [] and not (tmp_path / "job").exists()
    assert _fetch(item["urls"][1]) == fastq(reads=30, length=70, seed=2)


def test_an_export_reads_the_store_and_its_bundle_is_downloaded_from_it(request, build_app,
                                                                         factories):
    import io
    import zipfile

    from seqcore.exports.worker import ExportWorker
    from seqcore.testing.workers import Worker

    server = request.getfixturevalue("s3_server")
    app = build_app(**server.settings())
    storage = registry_service(app.app.app.registry, IStorage)
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    headers = factories.headers(owner)
    reads = fastq(reads=40, seed=8)
    body, content_type = multipart([("file", "isolate-1.fastq", reads, None)])
    app.post(f"/api/samples/{sample.id}/sequenceFiles", body,
             headers={**headers, "Content-Type": content_type}, status=201)
    Worker(app.app.app.registry).run_until_idle()
    created = app.post_json(f"/api/projects/{project.id}/exports",
                            {"samples": [sample.id], "fileKinds": ["unpaired"]},
                            headers=headers, status=201).json["resource"]
    ExportWorker(app.app.app.registry, "w").run_once()
    self_link = next(link["href"] for link in created["links"] if link["rel"] == "self")
    assert app.get(self_link, headers=headers).json["resource"]["state"] == "READY"
    assert any(key.startswith("exports/") for key in _objects(storage))
    redirect = app.get(self_link + "/download", headers=headers, status=303)
    bundle = zipfile.ZipFile(io.BytesIO(_fetch(redirect.headers["Location"])))
    assert reads in [bundle.read(name) for name in bundle.namelist()]
    # The data exports page's download: the same redirect, never cached.
    export_id = self_link.rstrip("/").rsplit("/", 1)[-1]
    from_page = _browser(app, owner).get(f"/-/exports/{export_id}/download", status=303)
    assert from_page.headers["Cache-Control"] == "no-store"
    bundle = zipfile.ZipFile(io.BytesIO(_fetch(from_page.headers["Location"])))
    assert reads in [bundle.read(name) for name in bundle.namelist()]


AWKWARD_KEYS = ["ab/0123456789/my reads.fastq", "cd/0123456789/é accent+plus%25 (1).fastq",
                "ef/0123456789/a#b?c&d=e;f.fastq"]


@pytest.mark.parametrize("key", AWKWARD_KEYS)
def test_keys_that_need_escaping_work_everywhere(store_app, tmp_path, key):
    """Keys kept from a directory by ``seqcore storage migrate`` may hold spaces, accents
    and URL delimiters: each is stored, read, staged, signed for reading and writing, and
    deleted like any other."""
    _, storage = store_app
    data = b"@r1\nACGT\n+\nIIII\n"
    source = tmp_path / "source"
    source.write_bytes(data)
    storage.backend.put_file(key, source)
    assert storage.size(key) == len(data) and key in _objects(storage)
    with storage.open(key) as fh:
        assert fh.read() == data
    with storage.local_copy(key) as copy:
        assert copy.read_bytes() == data
    assert storage.stage(key, tmp_path / "job").read_bytes() == data
    assert _fetch(storage.signed_url(key, "GET")) == data
    # A signed PUT (a direct upload's) writes under the same key.
    replaced = b"@r2\nTTTT\n+\nIIII\n"
    url = urllib.parse.urlsplit(storage.signed_url(key, "PUT"))
    conn = http.client.HTTPConnection(url.hostname, url.port)
    conn.request("PUT", f"{url.path}?{url.query}", body=replaced,
                 headers={"x-ms-blob-type": "BlockBlob"} if storage.backend.kind == "azure"
                 else {})
    response = conn.getresponse()
    assert response.status in (200, 201), response.read()
    assert _fetch(storage.signed_url(key, "GET")) == replaced
    storage.remove_now([key])
    assert storage.size(key) is None and _objects(storage) == []
