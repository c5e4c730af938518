"""Uploads of FASTQ reads: what is stored, how pairs are oriented, and every bad input."""

import hashlib
import json

import pytest

from seqcore.plugin import SequenceFile, SequencingObject, SystemRole
from seqcore.testing.contracts import stored_files
from seqcore.testing.uploads import fastq, file_size_limit, gz, multipart, parameters


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    return sample, factories.headers(owner)


def post(testapp, url, parts, headers, status=201, **extra):
    body, content_type = multipart(parts, **extra)
    return testapp.post(url, body, headers={**headers, "Content-Type": content_type},
                        status=status)


def nothing_left(db, app_config):
    assert db.query(SequencingObject).count() == 0
    assert db.query(SequenceFile).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


def test_single_end_upload(testapp, world):
    sample, headers = world
    reads = fastq(seed=5)
    res = post(testapp, f"/api/samples/{sample.id}/sequenceFiles", [
        ("file", "/home/lab/run/Data/isolate-1_S1_L001_R1_001.fastq", reads, None),
        parameters(optionalProperty="kept", miseqRunId=None)], headers)
    body = res.json["resource"]
    assert body["fileName"] == "isolate-1_S1_L001_R1_001.fastq"
    assert body["uploadSha256"] == hashlib.sha256(reads).hexdigest()
    assert body["fileSizeBytes"] == len(reads)
    assert body["optionalProperty"] == "kept"
    assert [link["rel"] for link in body["links"]] == [
        "sample/sequenceFiles", "self", "sample", "sequenceFile/sequencingObject"]
    assert res.headers["Location"] == body["links"][1]["href"]
    assert "/unpaired/" in res.headers["Location"]
    obj_url = body["links"][3]["href"]
    obj = testapp.get(obj_url, headers=headers).json["resource"]
    assert obj["processingState"] == "UNPROCESSED"
    assert obj["sequenceFile"]["fileName"] == body["fileName"]
    file_url = res.headers["Location"].replace("http://localhost", "")
    single = testapp.get(file_url, headers=headers).json["resource"]
    assert {link["rel"] for link in single["links"]} == {
        "self", "sample", "sample/sequenceFiles", "sequenceFile/sequencingObject",
        "sequencefile/qc"}
    # The spec's alias: a file by id under the sample.
    by_id = testapp.get(f"/api/samples/{sample.id}/sequenceFiles/{body['identifier']}",
                        headers={**headers, "Accept": "application/fastq"})
    assert by_id.body == reads


@pytest.mark.parametrize("order", ["forward_first", "reverse_first"])
def test_pair_orientation_comes_from_names(testapp, world, order):
    sample, headers = world
    r1, r2 = fastq(seed=1), fastq(seed=2)
    parts = [("file1", "C:\\run\\x_R1.fastq", r1, None), ("file2", "/run/x_R2.fastq", r2, None)]
    if order == "reverse_first":
        parts = [("file1", "/run/x_R2.fastq", r2, None), ("file2", "/run/x_R1.fastq", r1, None)]
    parts += [("parameters1", None, b"{}", "application/json"),
              ("parameters2", None, b"{}", "application/json")]
    res = post(testapp, f"/api/samples/{sample.id}/pairs", parts, headers)
    body = res.json["resource"]
    assert body["forwardSequenceFile"]["fileName"] == "x_R1.fastq"
    assert body["reverseSequenceFile"]["fileName"] == "x_R2.fastq"
    links = {link["rel"]: link["href"] for link in body["links"]}
    assert res.headers["Location"] == links["self"]
    assert links["pair/forward"] == body["forwardSequenceFile"]["links"][0]["href"]
    assert links["pair/reverse"] == body["reverseSequenceFile"]["links"][0]["href"]
    assert "sample/sequenceFiles" in links
    got = testapp.get(links["pair/forward"].replace("http://localhost", ""),
                      headers={**headers, "Accept": "application/fastq"})
    assert got.body == r1
    # The spec's aliases reach the same pair.
    alias = f"/api/samples/{sample.id}/sequenceFiles/pairs/{body['identifier']}"
    assert testapp.get(alias, headers=headers).json["resource"]["identifier"] == body[
        "identifier"]
    listed = testapp.get(f"/api/samples/{sample.id}/sequenceFiles/pairs", headers=headers)
    assert len(listed.json["resource"]["resources"]) == 1


PAIR_PARAMS = [("parameters1", None, b"{}", "application/json"),
               ("parameters2", None, b"{}", "application/json")]


@pytest.mark.parametrize(("names", "ok"), [
    (("s_1.fq", "s_2.fq"), True), (("s_F.fq", "s_R.fq"), True), (("a.fastq", "b.fastq"), False),
    (("same.fastq", "same.fastq"), False), (("x_R1.fastq", "x_R3.fastq"), False),
])
def test_pairs_whose_names_cannot_be_told_apart(testapp, world, db, app_config, names, ok):
    sample, headers = world
    parts = [("file1", names[0], fastq(seed=1), None), ("file2", names[1], fastq(seed=2), None),
             *PAIR_PARAMS]
    res = post(testapp, f"/api/samples/{sample.id}/pairs", parts, headers,
               status=201 if ok else 400)
    if not ok:
        assert "forward" in res.json["message"]
        nothing_left(db, app_config)


BAD = [
    ("missing file part", [parameters()], "Missing file part(s): file"),
    ("misnamed part", [("upload", "a.fastq", fastq(), None)], "Unexpected part(s) upload"),
    ("empty file", [("file", "a.fastq", b"", None)], "empty"),
    ("not fastq", [("file", "a.fastq", b"hello world\n", None)], "not FASTQ"),
    ("fasta instead", [("file", "a.fastq", b">c1\nACGT\n", None)], "not FASTQ"),
    ("unequal record", [("file", "a.fastq", b"@r\nACGT\n+\nII\n", None)], "lengths differ"),
    ("corrupt gzip", [("file", "a.fastq.gz", gz(fastq(reads=500))[:40] + b"\x00" * 400, None)],
     "gzip"),
    ("truncated gzip", [("file", "a.fastq.gz", gz(fastq(reads=500))[:-12], None)], "gzip"),
    ("dot-dot name", [("file", "..", fastq(), None)], "no usable name"),
    ("slash name", [("file", "/run/", fastq(), None)], "no usable name"),
    ("parameters not json", [("file", "a.fastq", fastq(), None),
                             ("parameters", None, b"{nope", "application/json")], "not valid JSON"),
    ("parameters with object", [("file", "a.fastq", fastq(), None),
                                ("parameters", None, b'{"x": {"y": 1}}', None)], "string or"),
    ("duplicate part", [("file", "a.fastq", fastq(), None), ("file", "b.fastq", fastq(), None)],
     "more than once"),
    ("bad run id", [("file", "a.fastq", fastq(), None), parameters(miseqRunId="abc")],
     "sequencing run id"),
    ("unknown run", [("file", "a.fastq", fastq(), None), parameters(miseqRunId="999")],
     "does not exist"),
]


@pytest.mark.parametrize(("case", "parts", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_uploads_leave_nothing(testapp, world, db, app_config, case, parts, message):
    sample, headers = world
    res = post(testapp, f"/api/samples/{sample.id}/unpaired", parts, headers, status=400)
    assert message in res.json["message"], res.json
    nothing_left(db, app_config)


# Past the first MiB, a gzip upload is inflated by a thread following the stored file
# (seqcore.files.contentchecks.INLINE): ten gzip members of 140 kB each cross it.
LARGE_GZ = gz(fastq(reads=2000, seed=5)) * 10


@pytest.mark.parametrize(("body", "message"), [
    (LARGE_GZ[:1_200_000] + b"\x00" * 400 + LARGE_GZ[1_200_400:], "gzip data is corrupt"),
    (LARGE_GZ[:-12], "truncated or corrupt"),
])
def test_bad_gzip_past_the_first_mebibyte(testapp, world, db, app_config, body, message):
    sample, headers = world
    res = post(testapp, f"/api/samples/{sample.id}/unpaired",
               [("file", "a.fastq.gz", body, None)], headers, status=400)
    assert message in res.json["message"], res.json
    nothing_left(db, app_config)


def test_large_gzip_upload_is_kept_whole(testapp, world, app_config):
    sample, headers = world
    res = post(testapp, f"/api/samples/{sample.id}/unpaired",
               [("file", "a.fastq.gz", LARGE_GZ, None)], headers)
    assert res.json["resource"]["fileSizeBytes"] == len(LARGE_GZ)


def test_truncated_multipart_body(testapp, world, db, app_config):
    sample, headers = world
    body, content_type = multipart([("file", "a.fastq", fastq(reads=200), None)])
    for cut in (len(body) // 2, len(body) - 5):
        res = testapp.post(f"/api/samples/{sample.id}/unpaired", body[:cut],
                           headers={**headers, "Content-Type": content_type}, status=400)
        assert "truncated" in res.json["message"] or "malformed" in res.json["message"]
    nothing_left(db, app_config)


def test_a_full_disk_is_507_and_leaves_nothing(testapp, world, db, app_config):
    sample, headers = world
    reads = fastq(reads=1000, length=150) * 40  # 12.7 MB
    body, content_type = multipart([("file", "big_R1.fastq", reads, None), parameters()])
    with file_size_limit(5 << 20):
        res = testapp.post(f"/api/samples/{sample.id}/unpaired", body, status=507,
                           headers={**headers, "Content-Type": content_type})
    assert "could not be stored" in res.json["message"]
    nothing_left(db, app_config)
    # Once there is room again, the same upload is stored whole.
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body, status=201,
                       headers={**headers, "Content-Type": content_type})
    assert res.json["resource"]["uploadSha256"] == hashlib.sha256(reads).hexdigest()


def test_not_multipart(testapp, world):
    sample, headers = world
    res = testapp.post_json(f"/api/samples/{sample.id}/unpaired", {"file": "x"},
                            headers=headers, status=415)
    assert "multipart" in res.json["message"]


def test_size_limit_while_streaming(build_app, factories, db, app_config):
    import seqcore_sequencefiles.plugin

    app = build_app([seqcore_sequencefiles.plugin], **{"seqcore.upload.max_bytes": 4096})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    headers = factories.headers(owner)
    body, content_type = multipart([("file", "a.fastq", fastq(reads=200), None)])
    res = app.post(f"/api/samples/{sample.id}/unpaired", body,
                   headers={**headers, "Content-Type": content_type}, status=413)
    assert "4096" in res.json["message"]
    # Without Content-Length the limit is enforced while reading.
    res = app.request(f"/api/samples/{sample.id}/unpaired", method="POST",
                      headers={**headers, "Content-Type": content_type,
                               "Transfer-Encoding": "chunked"},
                      body=body, expect_errors=True)
    assert res.status_int in (400, 413)
    nothing_left(db, app_config)


def test_members_cannot_upload(testapp, factories):
    from seqcore.plugin import ProjectRole

    member = factories.user()
    project = factories.project(owner=factories.user(), members=[(member, ProjectRole.USER)])
    sample = factories.sample(project)
    post(testapp, f"/api/samples/{sample.id}/unpaired", [("file", "a.fastq", fastq(), None)],
         factories.headers(member), status=403)


def test_sequencer_uploads_into_any_sample(testapp, factories):
    sample = factories.sample(factories.project(owner=factories.user()))
    sequencer = factories.headers(factories.user(role=SystemRole.SEQUENCER))
    post(testapp, f"/api/samples/{sample.id}/unpaired", [("file", "a.fastq", fastq(), None)],
         sequencer)


# -- runs ----------------------------------------------------------------------------------


def test_files_tied_to_a_run(testapp, factories, world, db):
    sample, _ = world
    # Files join a run only from the account that created it (or an administrator).
    sequencer = factories.user(role="ROLE_SEQUENCER")
    run = factories.run(user=sequencer)
    res = post(testapp, f"/api/samples/{sample.id}/pairs", [
        ("file1", "x_R1.fastq", fastq(seed=1), None), ("file2", "x_R2.fastq", fastq(seed=2), None),
        ("parameters1", None, json.dumps({"miseqRunId": str(run.id)}).encode(), None),
        ("parameters2", None, json.dumps({"miseqRunId": run.id}).encode(), None)],
        factories.headers(sequencer))
    obj = db.get(SequencingObject, int(res.json["resource"]["identifier"]))
    assert obj.run_id == run.id


def test_pair_from_two_runs_is_refused(testapp, factories, world, db, app_config):
    sample, headers = world
    first, second = factories.run(), factories.run()
    res = post(testapp, f"/api/samples/{sample.id}/pairs", [
        ("file1", "x_R1.fastq", fastq(), None), ("file2", "x_R2.fastq", fastq(), None),
        ("parameters1", None, json.dumps({"miseqRunId": first.id}).encode(), None),
        ("parameters2", None, json.dumps({"sequencingRunId": second.id}).encode(), None)],
        headers, status=400)
    assert res.json["message"] == "Cannot upload a pair of files from different sequencing runs."
    nothing_left(db, app_config)


@pytest.mark.parametrize("status", ["COMPLETE", "ERROR"])
def test_run_must_be_uploading(testapp, factories, world, db, app_config, status):
    # The account that created the run may know its state; to others a closed run is a
    # missing one (tests/functional/test_run_privacy.py).
    sample, _ = world
    sequencer = factories.user(role=SystemRole.SEQUENCER)
    headers = factories.headers(sequencer)
    run = factories.run(user=sequencer, upload_status=status)
    res = post(testapp, f"/api/samples/{sample.id}/unpaired", [
        ("file", "a.fastq", fastq(), None), parameters(miseqRunId=run.id)], headers, status=400)
    assert res.json["message"] == ("The sequencing run must be in the UPLOADING state to upload "
                                   "data.")
    nothing_left(db, app_config)


# -- deletion ------------------------------------------------------------------------------


def test_deleting_the_sample_deletes_its_files(testapp, factories, app_config, db):
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    headers = factories.headers(owner)
    post(testapp, f"/api/samples/{sample.id}/unpaired", [("file", "a.fastq", fastq(), None)],
         headers)
    root = app_config.get_settings()["seqcore.storage.path"]
    assert len(stored_files(root)) == 1
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    nothing_left(db, app_config)


def test_the_same_upload_twice_is_stored_once(testapp, world, db):
    sample, headers = world
    parts = [("file1", "x_R1.fastq", fastq(seed=1), None),
             ("file2", "x_R2.fastq", fastq(seed=2), None)]
    first = post(testapp, f"/api/samples/{sample.id}/pairs", parts, headers)
    again = post(testapp, f"/api/samples/{sample.id}/pairs", parts, headers)
    assert again.json["resource"]["identifier"] == first.json["resource"]["identifier"]
    assert db.query(SequencingObject).count() == 1 and db.query(SequenceFile).count() == 2
    changed = [parts[0], ("file2", "x_R2.fastq", fastq(seed=3), None)]
    post(testapp, f"/api/samples/{sample.id}/pairs", changed, headers)
    assert db.query(SequencingObject).count() == 2
