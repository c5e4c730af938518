"""The upload areas of the sample and project pages through WebTest, as a browser without
JavaScript sends them (one multipart form), and as the ``upload`` controller sends them
(``Accept: application/json``; large files announced, PUT, then attached).

REST's upload operation and rights: a pair is one object of the ``pairs`` kind, forward
first; a lone file is single-end; the project's area names samples after the files and
makes or appends them; a refusal is shown in the domain's words and nothing stays (no
sample row, no object, no stored file); a reader sees no area and gets 403, an outsider
404; the form needs its CSRF token."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from seqcore.files.fastqnames import group_files, read_name
from seqcore.models.project import ProjectRole
from seqcore.models.sample import ProjectSample, Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.testing.uploads import fastq
from tests.web.test_workbench import sign_in


@pytest.fixture
def lab(factories, db):
    """An owner's project with sample EX-1; a member who reads it; an outsider."""
    owner = factories.user(username="uploader")
    member = factories.user(username="reader")
    outsider = factories.user(username="stranger")
    project = factories.project(owner=owner, name="Uploads",
                                members=[(member, ProjectRole.USER, "LEVEL_1")])
    sample = factories.sample(project, name="EX-1")
    return {"owner": owner, "member": member, "outsider": outsider, "project": project,
            "sample": sample}


def csrf(page):
    return page.html.find("input", {"name": "csrf_token"})["value"]


def post_files(testapp, url, files, page_url, status, token=None, headers=None):
    token = csrf(testapp.get(page_url)) if token is None else token
    return testapp.post(url, {"csrf_token": token} if token else {},
                        upload_files=[("files", name, data) for name, data in files],
                        status=status, headers=headers or {})


def objects(db, sample_id):
    db.expire_all()
    return list(db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == sample_id).order_by(SequencingObject.id)))


def stored_files(app_config) -> list[Path]:
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    return [p for p in root.rglob("*") if p.is_file() and "tmp" not in p.relative_to(root).parts]


def counts(db):
    db.expire_all()
    return (db.scalar(select(func.count()).select_from(Sample)),
            db.scalar(select(func.count()).select_from(SequencingObject)),
            db.scalar(select(func.count()).select_from(SequenceFile)))


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "sample", "read"), [
    ("S1_R1_001.fastq.gz", "S1", 1),
    ("ecoli_S3_L001_R2_001.fastq.gz", "ecoli", 2),
    ("SAL-7_1.fq", "SAL-7", 1),
    ("SAL-7_2.fq.gz", "SAL-7", 2),
    ("reads.fastq", "reads", None),
    ("run_R3.fastq", "run_R3", None),
])
def test_a_file_name_gives_its_sample_and_read(name, sample, read):
    named = read_name(name)
    assert (named.sample_name, named.read) == (sample, read)


def test_files_are_paired_by_their_read_numbers():
    groups = group_files(["a_R2.fastq", "b.fastq", "a_R1.fastq", "c_1.fq", "c_2.fq.gz",
                          "d_R1_001.fastq.gz", "d_R1_002.fastq.gz"])
    assert [(g.sample_name, g.file_names) for g in groups] == [
        ("a", ("a_R1.fastq", "a_R2.fastq")), ("b", ("b.fastq",)),
        # Different extensions, or two first reads: not mates.
        ("c", ("c_1.fq",)), ("c", ("c_2.fq.gz",)),
        ("d", ("d_R1_001.fastq.gz",)), ("d", ("d_R1_002.fastq.gz",))]


# -- the sample's area ------------------------------------------------------------------------


def test_a_pair_uploaded_without_javascript_is_one_pair_of_the_sample(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    sample = lab["sample"]
    url = f"/-/samples/{sample.id}"
    page = testapp.get(url)
    area = page.html.select_one(".upload-area form")
    assert area["action"] == f"/-/samples/{sample.id}/files"
    assert area["enctype"] == "multipart/form-data"
    assert page.html.select_one("label[for=upload-files]") is not None
    done = post_files(testapp, f"{url}/files", [("x_R2.fastq", fastq(seed=2)),
                                                ("x_R1.fastq", fastq(seed=1))], url, 303)
    assert done.location.endswith(url)
    shown = done.follow()
    assert "2 file(s) uploaded" in shown.text
    [obj] = objects(db, sample.id)
    assert obj.kind == "pairs"
    assert [f.file_name for f in obj.files] == ["x_R1.fastq", "x_R2.fastq"]
    # QC has not run: the files' part of the page says it is pending, and refreshes.
    assert shown.html.select_one("#sample-files [data-pending]") is not None
    assert "No QC yet" in shown.html.select_one("#sample-files").text


def test_a_lone_file_is_single_end(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    post_files(testapp, f"{url}/files", [("reads.fastq.gz", gzip.compress(fastq(seed=4)))],
               url, 303)
    [obj] = objects(db, lab["sample"].id)
    assert (obj.kind, [f.file_name for f in obj.files]) == ("unpaired", ["reads.fastq.gz"])


def test_a_refusal_is_shown_in_words_and_nothing_stays(testapp, lab, db, app_config):
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    before, files_before = counts(db), stored_files(app_config)
    good = gzip.compress(fastq(seed=5))
    page = post_files(testapp, f"{url}/files", [
        ("ok.fastq", fastq(seed=1)), ("notes_R1.fastq", b"these are not reads\n"),
        ("notes_R2.fastq", fastq(seed=2)), ("cut.fastq.gz", good[:len(good) // 2])],
        url, 400)
    refusals = page.html.select_one("#upload-refusals")
    assert refusals["role"] == "alert"
    text = refusals.text
    assert "Nothing was kept" in text
    assert "notes_R1.fastq:" in text and "cut.fastq.gz:" in text
    # The good file was not kept either: all or nothing.
    assert "ok.fastq" in text and "Not kept" in text
    assert counts(db) == before
    assert stored_files(app_config) == files_before


def test_a_pair_that_cannot_be_oriented_is_refused_in_the_kinds_words(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    # Mates by name, and the kind's own check (forward or reverse) passes: kept.
    post_files(testapp, f"{url}/files", [("y_1.fq", fastq(seed=1)),
                                         ("y_2.fq", fastq(seed=2))], url, 303)
    assert [o.kind for o in objects(db, lab["sample"].id)] == ["pairs"]


def test_readers_see_no_area_and_are_refused_as_rest_refuses(testapp, lab, db):
    sample = lab["sample"]
    sign_in(testapp, lab["member"])
    page = testapp.get(f"/-/samples/{sample.id}")
    assert page.html.select_one(".upload-area") is None
    assert testapp.get(f"/-/projects/{lab['project'].id}").html.select_one(
        ".upload-area") is None
    token = csrf(page)
    post_files(testapp, f"/-/samples/{sample.id}/files", [("r.fastq", fastq())], None, 403,
               token=token)
    post_files(testapp, f"/-/projects/{lab['project'].id}/files", [("r.fastq", fastq())],
               None, 403, token=token)
    sign_in(testapp, lab["outsider"])
    token = csrf(testapp.get("/-/profile"))
    post_files(testapp, f"/-/samples/{sample.id}/files", [("r.fastq", fastq())], None, 404,
               token=token)
    post_files(testapp, f"/-/projects/{lab['project'].id}/files", [("r.fastq", fastq())],
               None, 404, token=token)
    assert objects(db, sample.id) == []


def test_the_form_needs_its_csrf_token(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    post_files(testapp, f"{url}/files", [("r.fastq", fastq())], url, 400, token="")
    post_files(testapp, f"{url}/files", [("r.fastq", fastq())], url, 400, token="forged")
    assert objects(db, lab["sample"].id) == []


def test_no_file_is_a_400_in_words(testapp, lab):
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    page = testapp.post(f"{url}/files", {"csrf_token": csrf(testapp.get(url))}, status=400)
    assert "Choose one or more FASTQ files" in page.text


# -- the project's area -----------------------------------------------------------------------


def test_the_project_area_makes_and_appends_samples_named_after_the_files(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    project = lab["project"]
    url = f"/-/projects/{project.id}"
    assert testapp.get(url).html.select_one(".upload-area form")["action"] == f"{url}/files"
    post_files(testapp, f"{url}/files", [
        ("ecoli_S3_L001_R1_001.fastq.gz", gzip.compress(fastq(seed=1))),
        ("ecoli_S3_L001_R2_001.fastq.gz", gzip.compress(fastq(seed=2))),
        ("listeria_2.fq", fastq(seed=3)),
        ("EX-1_R1.fastq", fastq(seed=4)), ("EX-1_R2.fastq", fastq(seed=5))], url, 303)
    db.expire_all()
    samples = dict(db.execute(select(ProjectSample.sample_name, ProjectSample.sample_id).where(
        ProjectSample.project_id == project.id)).all())
    assert sorted(samples) == ["EX-1", "ecoli", "listeria"]
    assert samples["EX-1"] == lab["sample"].id
    assert [(o.kind, [f.file_name for f in o.files]) for o in objects(db, samples["ecoli"])] == [
        ("pairs", ["ecoli_S3_L001_R1_001.fastq.gz", "ecoli_S3_L001_R2_001.fastq.gz"])]
    assert [o.kind for o in objects(db, samples["listeria"])] == ["unpaired"]
    assert [o.kind for o in objects(db, samples["EX-1"])] == ["pairs"]


def test_a_sample_name_rest_refuses_is_refused_and_nothing_is_made(testapp, lab, db,
                                                                   app_config):
    sign_in(testapp, lab["owner"])
    url = f"/-/projects/{lab['project'].id}"
    before, files_before = counts(db), stored_files(app_config)
    page = post_files(testapp, f"{url}/files", [
        ("S1_R1_001.fastq", fastq(seed=1)), ("S1_R2_001.fastq", fastq(seed=2)),
        ("good_R1.fastq", fastq(seed=3))], url, 400)
    text = page.html.select_one("#upload-refusals").text
    assert "Sample name must be at least 3 characters long." in text
    assert counts(db) == before
    assert stored_files(app_config) == files_before


# -- what the browser's controller sends ------------------------------------------------------


def test_the_controller_gets_each_groups_outcome_in_json(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    url = f"/-/projects/{lab['project'].id}"
    token = csrf(testapp.get(url))
    json_headers = {"Accept": "application/json", "X-CSRF-Token": token}
    done = testapp.post(f"{url}/files", upload_files=[
        ("files", "salm_R1.fastq", fastq(seed=1)), ("files", "salm_R2.fastq", fastq(seed=2))],
        headers=json_headers, status=201)
    [outcome] = done.json["outcomes"]
    assert outcome["files"] == ["salm_R1.fastq", "salm_R2.fastq"]
    assert outcome["sample"] == "salm" and outcome["problem"] is None
    assert outcome["sampleUrl"].startswith("/-/samples/")
    refused = testapp.post(f"{url}/files", upload_files=[("files", "bad.fastq", b"nope\n")],
                           headers=json_headers, status=400)
    [outcome] = refused.json["outcomes"]
    assert outcome["problem"].startswith("bad.fastq:")
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Sample).where(Sample.name == "bad")) == 0


def test_large_files_take_the_direct_upload_path(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    sample = lab["sample"]
    page = testapp.get(f"/-/samples/{sample.id}")
    area = page.html.select_one(".upload-area")
    assert int(area["data-upload-direct-bytes-value"]) > 0
    announce = area["data-upload-announce-value"]
    token = csrf(page)
    headers = {"Accept": "application/json", "X-CSRF-Token": token}
    blobs = []
    for name, data in (("big_R1.fastq", fastq(seed=1)), ("big_R2.fastq", fastq(seed=2))):
        checksum = base64.b64encode(hashlib.md5(data).digest()).decode()
        answer = testapp.post(announce, {"filename": name, "byte_size": str(len(data)),
                                         "checksum": checksum, "content_type": "text/plain"},
                              headers=headers, status=201).json
        testapp.put(answer["url"], data, headers=answer["headers"], status=204)
        blobs.append(answer["signedBlobId"])
    done = testapp.post(f"/-/samples/{sample.id}/files", [("blob", b) for b in blobs],
                        headers=headers, status=201)
    assert done.json["outcomes"][0]["files"] == ["big_R1.fastq", "big_R2.fastq"]
    [obj] = objects(db, sample.id)
    assert (obj.kind, [f.file_name for f in obj.files]) == ("pairs", ["big_R1.fastq",
                                                                      "big_R2.fastq"])
    # An announcement the domain refuses is answered in its words.
    bad = testapp.post(announce, {"filename": "x.fastq", "byte_size": "0", "checksum": "?"},
                       headers=headers, status=400).json
    assert "byteSize must be greater than 0" in bad["problem"]


def test_a_form_larger_than_the_page_takes_is_refused_in_words(build_app, lab, db):
    """The areas take forms as large as seqcore.max_body_bytes (larger files go through the
    direct-upload path): beyond it, 413 before the body is read, and nothing is stored."""
    small = build_app(None, **{"seqcore.max_body_bytes": 200_000})
    sign_in(small, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    page = small.get(url)
    assert int(page.html.select_one(".upload-area")["data-upload-direct-bytes-value"]) < 200_000
    refused = post_files(small, f"{url}/files", [("big.fastq", fastq(reads=2000))], url, 413)
    assert "larger than 200000 bytes" in refused.text
    assert objects(db, lab["sample"].id) == []


def test_the_area_speaks_french(testapp, lab, db):
    from seqcore.models.user import User

    db.get(User, lab["owner"].id).locale = "fr"
    db.commit()
    sign_in(testapp, lab["owner"])
    url = f"/-/samples/{lab['sample'].id}"
    area = testapp.get(url).html.select_one(".upload-area")
    assert area.h3.text == "Ajouter des fichiers à cet échantillon"
    assert json.loads(area["data-upload-messages-value"])["refused"] == "Refusé"
    page = post_files(testapp, f"{url}/files", [("bad.fastq", b"nope\n")], url, 400)
    assert "Rien n'a été conservé" in page.html.select_one("#upload-refusals").text


def test_announcing_a_direct_upload_needs_the_csrf_token_and_a_session(testapp, lab):
    form = {"filename": "x.fastq", "byte_size": "10", "checksum": "0" * 32}
    testapp.post("/-/uploads/direct", form, status=400)  # no session: no CSRF token either
    sign_in(testapp, lab["owner"])
    testapp.post("/-/uploads/direct", {**form, "csrf_token": "forged"}, status=400)
    token = csrf(testapp.get("/-/profile"))
    answer = testapp.post("/-/uploads/direct", {**form, "csrf_token": token}, status=201).json
    assert answer["url"].startswith("/api/directUploads/")
