"""IRIDA Next's upload path: createDirectUpload, PUT to seqcore's storage endpoint, then
attachFilesToSample / attachFilesToProject; attached FASTQ files become sequencing objects."""

import json

import pytest
from sqlalchemy import func, select

from seqcore.models.attachment import Attachment, DirectUpload
from seqcore.models.sequencing import SequencingObject
from seqcore.testing.uploads import (
    CREATE_DIRECT_UPLOAD,
    direct_upload,
    fasta,
    fastq,
    md5_base64,
)
from tests.graphql.conftest import gid

ATTACH_TO_SAMPLE = """mutation($files: [String!]!, $sampleId: ID, $samplePuid: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId, samplePuid: $samplePuid}) {
    sample { id } status errors { path message } } }"""
ATTACH_TO_PROJECT = """mutation($files: [String!]!, $projectId: ID) {
  attachFilesToProject(input: {files: $files, projectId: $projectId}) {
    project { id } status errors { path message } } }"""
SAMPLE_ATTACHMENTS = """query($id: ID!) { node(id: $id) { ... on Sample {
  attachments { totalCount nodes { id puid filename byteSize metadata attachmentUrl
                                   createdAt updatedAt } } } } }"""


def announce(graphql, name, data, **override):
    variables = {"filename": name, "contentType": "application/octet-stream",
                 "checksum": md5_base64(data), "byteSize": len(data), **override}
    return graphql(CREATE_DIRECT_UPLOAD, variables)


def test_a_fastq_pair_attached_to_a_sample_is_a_sequencing_object(graphql, testapp,
                                                                   outbreak, db):
    owner, _project, samples = outbreak
    graphql.as_user(owner)
    forward = direct_upload(testapp, graphql, "x_S1_L001_R1_001.fastq", fastq(seed=1))
    reverse = direct_upload(testapp, graphql, "x_S1_L001_R2_001.fastq", fastq(seed=2))
    body = graphql(ATTACH_TO_SAMPLE, {"files": [forward, reverse],
                                      "sampleId": gid("Sample", samples[0].id)})
    assert body["data"]["attachFilesToSample"] == {
        "sample": {"id": gid("Sample", samples[0].id)},
        "status": {forward: "success", reverse: "success"}, "errors": []}
    nodes = graphql(SAMPLE_ATTACHMENTS, {"id": gid("Sample", samples[0].id)}
                    )["data"]["node"]["attachments"]
    assert nodes["totalCount"] == 2
    first, second = nodes["nodes"]
    assert first["filename"] == "x_S1_L001_R1_001.fastq"
    assert first["puid"].startswith("INXT_ATT_") and first["puid"] != second["puid"]
    assert first["byteSize"] == len(fastq(seed=1))
    assert first["metadata"]["format"] == "fastq"
    assert first["metadata"]["compression"] == "none"
    assert first["metadata"]["type"] == "illumina_pe"
    assert first["metadata"]["direction"] == "forward"
    assert second["metadata"]["direction"] == "reverse"
    # The download URL is seqcore's own, and works without other credentials.
    download = testapp.get(first["attachmentUrl"].replace("http://localhost", ""))
    assert download.body == fastq(seed=1)
    # QC and analyses see the pair as a REST upload.
    objects = list(db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == samples[0].id)))
    assert [o.kind for o in objects] == ["pairs"]
    assert [f.file_name for f in objects[0].files] == ["x_S1_L001_R1_001.fastq",
                                                       "x_S1_L001_R2_001.fastq"]


def test_a_single_fastq_by_puid_and_a_fasta(graphql, testapp, outbreak, db):
    owner, _project, samples = outbreak
    graphql.as_user(owner)
    reads = direct_upload(testapp, graphql, "single.fastq", fastq(seed=3))
    contigs = direct_upload(testapp, graphql, "contigs.fasta", fasta())
    body = graphql(ATTACH_TO_SAMPLE, {"files": [reads, contigs],
                                      "samplePuid": samples[1].puid})
    assert body["data"]["attachFilesToSample"]["errors"] == []
    kinds = list(db.scalars(select(SequencingObject.kind).where(
        SequencingObject.sample_id == samples[1].id)))
    assert kinds == ["unpaired"]
    metadata = [a.properties for a in db.scalars(
        select(Attachment).where(Attachment.sample_id == samples[1].id)
        .order_by(Attachment.id))]
    assert metadata == [{"format": "fastq", "compression": "none"},
                        {"format": "fasta", "type": "assembly", "compression": "none"}]


def test_attach_to_a_project(graphql, testapp, outbreak):
    owner, project, _ = outbreak
    graphql.as_user(owner)
    blob = direct_upload(testapp, graphql, "notes.txt", b"hello\n")
    body = graphql(ATTACH_TO_PROJECT, {"files": [blob], "projectId": gid("Project", project.id)})
    assert body["data"]["attachFilesToProject"]["status"] == {blob: "success"}
    listed = graphql("""query($p: ID!) { project(fullPath: $p) { attachments {
        nodes { filename metadata } } } }""", {"p": project.full_path})
    assert listed["data"]["project"]["attachments"]["nodes"] == [
        {"filename": "notes.txt", "metadata": {"format": "text", "compression": "none"}}]


def test_bad_blob_ids_and_duplicates_are_payload_errors(graphql, testapp, outbreak,
                                                        factories):
    owner, _project, samples = outbreak
    graphql.as_user(owner)
    blob = direct_upload(testapp, graphql, "a.fastq", fastq(seed=5))
    sample_id = gid("Sample", samples[0].id)
    assert graphql(ATTACH_TO_SAMPLE, {"files": [blob], "sampleId": sample_id}
                   )["data"]["attachFilesToSample"]["errors"] == []
    again = graphql(ATTACH_TO_SAMPLE, {"files": [blob, "1--nope"], "sampleId": sample_id})
    assert again["data"]["attachFilesToSample"] == {
        "sample": {"id": sample_id}, "status": {blob: "error", "1--nope": "error"},
        "errors": [{"path": ["attachment", blob], "message": "checksum matches existing file"},
                   {"path": ["blob_id", "1--nope"], "message": "Blob id could not be processed. "
                    "Blob id is invalid or file is missing."}]}
    # Another account cannot attach a blob it did not upload.
    other = factories.user()
    other_project = factories.project(owner=other)
    other_sample = factories.sample(other_project)
    theirs = graphql.as_user(other)(ATTACH_TO_SAMPLE, {
        "files": [blob], "sampleId": gid("Sample", other_sample.id)})
    assert theirs["data"]["attachFilesToSample"]["status"] == {blob: "error"}
    # A sample the caller cannot read is not found.
    hidden = graphql.as_user(other)(ATTACH_TO_SAMPLE, {"files": [blob], "sampleId": sample_id})
    assert hidden["data"]["attachFilesToSample"] == {
        "sample": None, "status": None,
        "errors": [{"path": ["sample"], "message": "not found by provided ID or PUID"}]}


@pytest.mark.parametrize(("override", "message"), [
    ({"byteSize": 0}, "byteSize must be greater than 0"),
    ({"byteSize": -5}, "byteSize must be greater than 0"),
    ({"checksum": "not base64!"}, "checksum must be the MD5 of the file"),
    ({"checksum": "g" * 32}, "checksum must be the MD5 of the file"),
    ({"checksum": "ab" * 15}, "checksum must be the MD5 of the file"),
    ({"filename": "../etc/passwd"}, "filename must be a file name"),
])
def test_bad_announcements_are_refused(graphql, outbreak, db, override, message):
    owner, _, _ = outbreak
    body = announce(graphql.as_user(owner), "a.fastq", b"x", **override)
    assert body["errors"][0]["message"].startswith(message)
    assert db.scalar(select(func.count()).select_from(DirectUpload)) == 0


def test_a_hexadecimal_md5_is_accepted_as_the_base64_one(graphql, testapp, outbreak):
    """``md5sum`` prints 32 hexadecimal digits; Active Storage sends base64. Both name the
    same digest, and the headers handed back for the PUT carry the base64 form (what
    ``Content-MD5`` holds), so a client that announced hex uploads as any other."""
    import hashlib

    owner, _, samples = outbreak
    data = fastq(seed=7)
    hexadecimal = hashlib.md5(data, usedforsecurity=False).hexdigest()
    body = announce(graphql.as_user(owner), "hex_R1.fastq", data, checksum=hexadecimal.upper())
    upload = body["data"]["createDirectUpload"]["directUpload"]
    headers = json.loads(upload["headers"])
    assert headers["Content-MD5"] == md5_base64(data)
    # A Content-MD5 header in either form is compared by digest.
    testapp.put(upload["url"], data, headers={**headers, "Content-MD5": hexadecimal},
                status=204)
    attached = graphql(ATTACH_TO_SAMPLE, {"files": [upload["signedBlobId"]],
                                          "sampleId": gid("Sample", samples[0].id)})
    assert attached["data"]["attachFilesToSample"]["errors"] == []
    # The wrong digest in hex is refused like the wrong digest in base64.
    other = announce(graphql, "hex2.fastq", data,
                     checksum=hashlib.md5(b"other", usedforsecurity=False).hexdigest())
    url = other["data"]["createDirectUpload"]["directUpload"]["url"]
    refused = testapp.put(url, data, headers={"Content-Type": "application/octet-stream"},
                          status=400).json
    assert "MD5 differs" in json.dumps(refused)


def test_announcements_beyond_the_upload_limit_are_refused(graphql, outbreak, app_config):
    owner, _, _ = outbreak
    limit = int(app_config.get_settings()["seqcore.upload.max_bytes"])
    body = announce(graphql.as_user(owner), "a.fastq", b"x", byteSize=limit + 1)
    assert "upload limit" in body["errors"][0]["message"]


def test_read_api_tokens_cannot_announce(graphql, outbreak):
    owner, _, _ = outbreak
    body = announce(graphql.as_user(owner, scopes=("read_api",)), "a.fastq", b"x")
    assert body["errors"][0]["message"] == "You are not authorized to perform this action"


def test_big_sizes_are_bigint(graphql, outbreak):
    owner, _, _ = outbreak
    body = announce(graphql.as_user(owner), "a.fastq", b"x", byteSize=2_233_006_136,
                    checksum=md5_base64(b"x"))
    upload = body.get("data", {}) and body["data"]["createDirectUpload"]
    if body.get("errors"):  # below the default limit in this deployment: it says so
        assert "upload limit" in body["errors"][0]["message"]
    else:
        assert json.loads(upload["directUpload"]["headers"])["Content-MD5"] == md5_base64(b"x")


def _put_url(graphql, filename, data, **override):
    body = announce(graphql, filename, data, **override)
    upload = body["data"]["createDirectUpload"]["directUpload"]
    return upload["url"].replace("http://localhost", ""), json.loads(upload["headers"])


def stored_files(app_config):
    from pathlib import Path

    root = Path(app_config.get_settings()["seqcore.storage.path"])
    return sorted(p for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize(("sent", "status", "message"), [
    (b"@r\nACGT\n+\nIIII\n" + b"X", 400, "bytes"),  # longer than announced
    (b"@r\nACGA\n+\nIIII\n", 400, "MD5"),  # same size, other bytes
    (b"not a fastq at all", 400, "bytes"),
])
def test_a_put_that_differs_from_the_announcement_keeps_nothing(
        graphql, testapp, outbreak, app_config, db, sent, status, message):
    owner, _, _ = outbreak
    data = b"@r\nACGT\n+\nIIII\n"
    url, headers = _put_url(graphql.as_user(owner), "r.fastq", data)
    before = stored_files(app_config)
    res = testapp.put(url, sent, headers=headers, status=status)
    assert message in res.json["message"]
    assert stored_files(app_config) == before
    assert db.scalar(select(DirectUpload.file_id)) is None


def test_a_put_of_bad_content_keeps_nothing(graphql, testapp, outbreak, app_config):
    owner, _, _ = outbreak
    data = b"this is not FASTQ\n"
    url, headers = _put_url(graphql.as_user(owner), "r.fastq", data)
    before = stored_files(app_config)
    res = testapp.put(url, data, headers=headers, status=400)
    assert "not FASTQ" in res.json["message"]
    assert stored_files(app_config) == before


def test_a_put_goes_once_and_only_to_a_known_url(graphql, testapp, outbreak):
    owner, _, _ = outbreak
    data = b"@r\nACGT\n+\nIIII\n"
    url, headers = _put_url(graphql.as_user(owner), "r.fastq", data)
    testapp.put(url, data, headers=headers, status=204)
    testapp.put(url, data, headers=headers, status=409)
    testapp.put("/api/directUploads/unknown", data, headers=headers, status=404)
    wrong = {**headers, "Content-MD5": md5_base64(b"other")}
    url2, _ = _put_url(graphql, "s.fastq", data)
    testapp.put(url2, data, headers=wrong, status=400)


def test_downloads_need_the_key(graphql, testapp, outbreak):
    owner, _project, samples = outbreak
    graphql.as_user(owner)
    blob = direct_upload(testapp, graphql, "notes.txt", b"hello\n")
    graphql(ATTACH_TO_SAMPLE, {"files": [blob], "sampleId": gid("Sample", samples[0].id)})
    url = graphql(SAMPLE_ATTACHMENTS, {"id": gid("Sample", samples[0].id)}
                  )["data"]["node"]["attachments"]["nodes"][0]["attachmentUrl"]
    path = url.replace("http://localhost", "")
    testapp.get(path.split("?")[0] + "?key=wrong", status=404)
    assert testapp.get(path).body == b"hello\n"


def test_attachments_go_with_their_sample_and_project(graphql, testapp, outbreak, factories,
                                                      app_config, db):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    before = stored_files(app_config)
    on_sample = [direct_upload(testapp, graphql, "notes.txt", b"sample notes\n"),
                 direct_upload(testapp, graphql, "r.fastq", fastq(seed=9))]
    graphql(ATTACH_TO_SAMPLE, {"files": on_sample, "sampleId": gid("Sample", samples[0].id)})
    on_project = direct_upload(testapp, graphql, "plan.txt", b"project plan\n")
    graphql(ATTACH_TO_PROJECT, {"files": [on_project], "projectId": gid("Project", project.id)})
    assert len(stored_files(app_config)) == len(before) + 3
    headers = factories.headers(owner)
    testapp.delete(f"/api/projects/{project.id}/samples/{samples[0].id}", headers=headers)
    assert len(stored_files(app_config)) == len(before) + 1
    testapp.delete(f"/api/projects/{project.id}", headers=headers)
    assert stored_files(app_config) == before
    assert db.scalar(select(func.count()).select_from(Attachment)) == 0


def test_abandoned_uploads_are_swept(graphql, testapp, outbreak, app_config, db):
    from datetime import timedelta

    import transaction

    from seqcore.db import session_for, utcnow
    from seqcore.files.attachments import expire_blobs
    from seqcore.services import ISessionFactory, IStorage, registry_service

    owner, _, samples = outbreak
    graphql.as_user(owner)
    before = stored_files(app_config)
    kept = direct_upload(testapp, graphql, "kept.txt", b"kept\n")
    graphql(ATTACH_TO_SAMPLE, {"files": [kept], "sampleId": gid("Sample", samples[0].id)})
    direct_upload(testapp, graphql, "abandoned.txt", b"abandoned\n")
    announce(graphql, "never-sent.txt", b"x")
    assert len(stored_files(app_config)) == len(before) + 2
    registry = app_config.registry
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        session = session_for(registry_service(registry, ISessionFactory), manager)
        gone = expire_blobs(session, registry_service(registry, IStorage), manager,
                            utcnow() + timedelta(seconds=1))
    assert gone == 3
    assert [p.name for p in stored_files(app_config) if p not in before] == ["kept.txt"]
    assert db.scalar(select(func.count()).select_from(DirectUpload)) == 0
    assert db.scalar(select(func.count()).select_from(Attachment)) == 1


def test_one_of_sample_id_or_puid(graphql, testapp, outbreak):
    owner, _, samples = outbreak
    graphql.as_user(owner)
    blob = direct_upload(testapp, graphql, "a.txt", b"a\n")
    both = graphql(ATTACH_TO_SAMPLE, {"files": [blob], "sampleId": gid("Sample", samples[0].id),
                                      "samplePuid": samples[0].puid})
    assert both["errors"][0]["message"] == "Give exactly one of sampleId and samplePuid."
    neither = graphql(ATTACH_TO_SAMPLE, {"files": [blob]})
    assert neither["errors"][0]["message"] == "Give exactly one of sampleId and samplePuid."
    unknown = graphql(ATTACH_TO_SAMPLE, {"files": [blob], "samplePuid": "INXT_SAM_AAAAAAAAAA"})
    assert unknown["data"]["attachFilesToSample"]["errors"] == [
        {"path": ["sample"], "message": "not found by provided ID or PUID"}]
    malformed = graphql(ATTACH_TO_SAMPLE, {"files": [blob], "sampleId": "gid://irida/Sample/1"})
    assert malformed["errors"][0]["message"] == "gid://irida/Sample/1 is not a valid seqcore ID."


def test_unattached_announcements_per_account_are_bounded(graphql, testapp, outbreak, db,
                                                          app_config, monkeypatch, factories):
    """An account holds at most ``seqcore.upload.max_pending_direct_uploads`` blobs that no
    attachment holds; attaching one makes room, and other accounts have their own bound."""
    owner, _, samples = outbreak
    monkeypatch.setitem(app_config.registry.settings,
                        "seqcore.upload.max_pending_direct_uploads", 3)
    graphql.as_user(owner)
    sent = direct_upload(testapp, graphql, "sent.txt", b"sent\n")
    for name in ("a.txt", "b.txt"):
        assert "errors" not in announce(graphql, name, b"x")
    body = announce(graphql, "c.txt", b"x")
    assert body["errors"][0]["message"].startswith("You have 3 direct uploads not yet attached")
    assert body["errors"][0]["extensions"]["code"] == "invalid"
    assert db.scalar(select(func.count()).select_from(DirectUpload)) == 3
    other = factories.user()
    assert "errors" not in announce(graphql.as_user(other), "d.txt", b"x")
    graphql.as_user(owner)
    attached = graphql(ATTACH_TO_SAMPLE, {"files": [sent],
                                          "sampleId": gid("Sample", samples[0].id)})
    assert attached["data"]["attachFilesToSample"]["errors"] == []
    assert "errors" not in announce(graphql, "c.txt", b"x")
    assert "errors" in announce(graphql, "e.txt", b"x")
