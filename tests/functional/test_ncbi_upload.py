"""NCBI submissions end to end against a real FTP server on loopback (pyftpdlib) standing in
for NCBI's account: the upload with ``submit.ready``, ``submission.xml`` checked against the
documented element tree, NCBI's ``report.xml`` answers read back (states, accessions written
to the samples' metadata with provenance), refusals before any upload, and a connection cut
in the middle of a transfer resumed without sending anything twice."""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET

import pytest
from sqlalchemy import func, select
from webtest import TestApp

from seqcore.config import configure
from seqcore.models.ncbi import NcbiSubmission, NcbiUploadFile
from seqcore.models.sample import MetadataEntry
from seqcore.ncbi.schema import check_submission
from seqcore.ncbi.worker import NcbiWorker
from seqcore.testing.logsecrets import SecretRecorder, remember
from seqcore.testing.uploads import fastq
from tests.functional.ncbi_server import PASSWORD, NcbiFtpServer, report_xml

LIBRARY = {"libraryStrategy": "WGS", "librarySource": "GENOMIC",
           "librarySelection": "RANDOM", "instrumentModel": "Illumina MiSeq"}


@pytest.fixture
def ncbi(tmp_path):
    remember(PASSWORD, "NCBI FTP password")
    server = NcbiFtpServer(tmp_path / "ftp").start()
    yield server
    server.stop()


@pytest.fixture
def deployment(ncbi, seqcore_settings, seqcore_plugins, database_url, engine):
    """The application configured with the FTP account, and its worker."""
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine, **ncbi.settings()}, plugins=seqcore_plugins)
    app = TestApp(SecretRecorder(config.make_wsgi_app()),
                  extra_environ={"HTTP_HOST": "localhost"})
    return app, NcbiWorker(config.registry, "test-worker")


@pytest.fixture
def owner(factories):
    return factories.user(username="owner", email="owner@phl.example", first_name="Olive",
                          last_name="Owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner, name="Salmonella surveillance")


def isolate(factories, project, name, kind="pairs", files=None, **metadata):
    sample = factories.sample(
        project, name=name, organism="Salmonella enterica", strain=f"{name}-strain",
        collected_by="Public Health Lab", geographic_location_name="Canada: Manitoba",
        isolation_source="stool", latitude="49.9", longitude="-97.1",
        metadata={"host": "Homo sapiens", "disease": "salmonellosis",
                  "collected": "2026-03-01", **metadata})
    obj = factories.sequencing_object(sample, kind=kind, files=files)
    return sample, obj


def body(samples, **extra):
    return {"bioProject": "PRJNA123456", "organization": "Public Health Lab",
            "namespace": "PHL", "bioSamplePackage": "Pathogen.cl.1.0",
            "attributes": {"host": "host", "host_disease": "disease",
                           "collection_date": "collected"},
            **LIBRARY, "samples": samples, **extra}


def url(project):
    return f"/api/projects/{project.id}/ncbiSubmissions"


def actions(resource, status, accessions=False):
    """NCBI's answer for every action of a submission as the API shows it."""
    found = []
    for number, sample in enumerate(resource["samples"], start=1):
        if sample["bioSample"] is None:
            found.append({"spuid": sample["spuid"], "db": "BioSample", "status": status,
                          "accession": f"SAMN0{number}" if accessions else None})
        for index, run in enumerate(sample["runs"], start=1):
            found.append({"spuid": run["spuid"], "db": "SRA", "status": status,
                          "accession": f"SRR{number}{index}" if accessions else None})
    return found


def test_three_samples_go_through_every_state_to_processed_ok(deployment, ncbi, factories,
                                                              project, owner, db):
    app, worker = deployment
    headers = factories.headers(owner)
    first, first_pair = isolate(factories, project, "SAL-001")
    second, second_pair = isolate(factories, project, "SAL-002")
    third, third_single = isolate(factories, project, "SAL-003", kind="unpaired")
    created = app.post_json(url(project), body([
        {"sampleId": first.id}, {"sampleId": str(second.id), "libraryName": "lib-2"},
        {"sampleId": third.id, "sequencingObjects": [third_single.id],
         "instrumentModel": "NextSeq 2000"}]), headers=headers, status=201)
    resource = created.json["resource"]
    assert resource["state"] == "NEW"
    location = created.headers["Location"]
    assert location == f"http://localhost{url(project)}/{resource['identifier']}"

    assert worker.run_once() == 1
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "UPLOADED"
    assert [s["status"] for s in resource["samples"]] == ["UPLOADED"] * 3
    directory = ncbi.directory(db.scalar(select(NcbiSubmission.directory)))
    sent = sorted(p.name for p in directory.iterdir())
    files = [f for obj in (first_pair, second_pair, third_single) for f in obj.files]
    assert sent == sorted([*(f"{f.id}.fastq" for f in files), "submission.xml",
                           "submit.ready"])
    assert ncbi.record.stors[-1] == ("submit.ready", 0)  # last, once everything is there
    assert (directory / "submit.ready").read_bytes() == b""
    for stored in files:
        assert (directory / f"{stored.id}.fastq").read_bytes() == \
            (factories_storage(factories) / stored.path).read_bytes()

    root = ET.fromstring((directory / "submission.xml").read_bytes())
    assert check_submission(root) == []
    assert root.find("Description/Organization/Name").text == "Public Health Lab"
    assert root.find("Description/Organization/Contact").get("email") == "owner@phl.example"
    biosamples = root.findall("Action/AddData/Data/XmlContent/BioSample")
    assert [b.find("SampleId/SPUID").text for b in biosamples] == [
        s["spuid"] for s in resource["samples"]]
    attributes = {a.get("attribute_name"): a.text
                  for a in biosamples[0].findall("Attributes/Attribute")}
    assert attributes["host_disease"] == "salmonellosis"
    assert attributes["collection_date"] == "2026-03-01"
    assert attributes["lat_lon"] == "49.9 N 97.1 W"
    assert attributes["sample_name"] == "SAL-001"
    assert biosamples[0].find("Package").text == "Pathogen.cl.1.0"
    assert biosamples[0].find("BioProject/PrimaryId").text == "PRJNA123456"
    runs = root.findall("Action/AddFiles")
    assert [len(r.findall("File")) for r in runs] == [2, 2, 1]
    layout = [{a.get("name"): a.text for a in r.findall("Attribute")} for r in runs]
    assert [lay["library_layout"] for lay in layout] == ["PAIRED", "PAIRED", "SINGLE"]
    assert [lay["library_name"] for lay in layout] == ["SAL-001", "lib-2", "SAL-003"]
    assert layout[2]["instrument_model"] == "NextSeq 2000"
    assert runs[0].find("AttributeRefId[@name='BioSample']/RefId/SPUID").text == \
        resource["samples"][0]["spuid"]
    assert "SAL-00" not in " ".join(f.get("file_path") for f in root.iter("File"))

    name = directory.name
    ncbi.answer(name, report_xml("SUB900001", "submitted", actions(resource, "submitted")))
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "SUBMITTED"
    assert resource["ncbiSubmissionId"] == "SUB900001"
    assert [s["status"] for s in resource["samples"]] == ["SUBMITTED"] * 3

    ncbi.answer(name, report_xml("SUB900001", "processing", actions(resource, "processing")))
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "PROCESSING"

    ncbi.answer(name, report_xml("SUB900001", "processed-ok",
                                 actions(resource, "processed-ok", accessions=True)))
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "PROCESSED_OK"
    assert [h["state"] for h in resource["stateHistory"]] == [
        "NEW", "UPLOADING", "UPLOADED", "SUBMITTED", "PROCESSING", "PROCESSED_OK"]
    assert [(s["status"], s["accession"]) for s in resource["samples"]] == [
        ("PROCESSED_OK", "SAMN01"), ("PROCESSED_OK", "SAMN02"), ("PROCESSED_OK", "SAMN03")]
    assert [r["accession"] for s in resource["samples"] for r in s["runs"]] == [
        "SRR11", "SRR21", "SRR31"]
    for number, sample in enumerate((first, second, third), start=1):
        metadata = app.get(f"/api/samples/{sample.id}/metadata",
                           headers=headers).json["resource"]["metadata"]
        assert metadata["NCBI BioSample Accession"] == {"value": f"SAMN0{number}",
                                                        "type": "text"}
        assert metadata["NCBI SRA Accession"] == {"value": f"SRR{number}1", "type": "text"}
        assert metadata["host"] == {"value": "Homo sapiens", "type": "text"}
    provenance = set(db.scalars(select(MetadataEntry.ncbi_submission_id).where(
        MetadataEntry.field.like("NCBI %"))))
    assert provenance == {int(resource["identifier"])}
    # Done: the report is not read again, nothing changes.
    worker.run_once()
    assert app.get(location, headers=headers).json["resource"] == resource


def factories_storage(factories):
    from pathlib import Path

    return Path(factories.settings["seqcore.storage.path"])


def test_processed_error_keeps_ncbis_message_and_writes_only_what_was_assigned(
        deployment, ncbi, factories, project, owner, db):
    app, worker = deployment
    headers = factories.headers(owner)
    good, _ = isolate(factories, project, "SAL-010")
    bad, _ = isolate(factories, project, "SAL-011")
    location = app.post_json(url(project), body([{"sampleId": good.id}, {"sampleId": bad.id}]),
                             headers=headers, status=201).headers["Location"]
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    answer = actions(resource, "processed-ok", accessions=True)
    for action in answer[2:]:
        action.update(status="processed-error", accession=None,
                      message="Invalid geo_loc_name value")
    ncbi.answer(resource_directory(db), report_xml("SUB5", "processed-error", answer),
                numbered=3)
    ncbi.answer(resource_directory(db), report_xml("SUB5", "processing", []), numbered=2)
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "PROCESSED_ERROR"
    assert [s["status"] for s in resource["samples"]] == ["PROCESSED_OK", "PROCESSED_ERROR"]
    assert resource["samples"][1]["message"] == "Invalid geo_loc_name value"
    metadata = app.get(f"/api/samples/{bad.id}/metadata", headers=headers).json
    assert "NCBI BioSample Accession" not in metadata["resource"]["metadata"]
    metadata = app.get(f"/api/samples/{good.id}/metadata", headers=headers).json
    assert metadata["resource"]["metadata"]["NCBI SRA Accession"]["value"] == "SRR11"


def resource_directory(db):
    db.expire_all()
    return db.scalar(select(NcbiSubmission.directory))


def test_a_sample_missing_a_required_attribute_is_refused_before_any_upload(
        deployment, ncbi, factories, project, owner, db):
    app, worker = deployment
    headers = factories.headers(owner)
    complete, _ = isolate(factories, project, "SAL-020")
    incomplete, _ = isolate(factories, project, "SAL-021", disease="")
    res = app.post_json(url(project), body([{"sampleId": complete.id},
                                            {"sampleId": incomplete.id}]),
                        headers=headers, status=400)
    assert res.json == {"samples.1.attributes": [
        f"Sample 'SAL-021' ({incomplete.id}): BioSample attribute 'host_disease', mandatory "
        "in Pathogen.cl.1.0, has no value (metadata field 'disease')."]}
    assert db.scalar(select(func.count()).select_from(NcbiSubmission)) == 0
    assert worker.run_once() == 0
    assert ncbi.record.stors == []
    assert list((ncbi.home / "submit/Test").iterdir()) == []


def test_a_connection_cut_mid_upload_resumes_without_sending_anything_twice(
        deployment, ncbi, factories, project, owner, db):
    app, worker = deployment
    headers = factories.headers(owner)
    big = [("big_R1.fastq", fastq(reads=6000, seed=5)),
           ("big_R2.fastq", fastq(reads=6000, seed=6))]
    sample, obj = isolate(factories, project, "SAL-030", files=big)
    other, other_obj = isolate(factories, project, "SAL-031")
    forward = next(f for f in obj.files if f.file_name == "big_R1.fastq")
    cut_name = f"{forward.id}.fastq"
    ncbi.record.cut_after[cut_name] = forward.size // 3
    location = app.post_json(url(project), body([{"sampleId": sample.id},
                                                 {"sampleId": other.id}]),
                             headers=headers, status=201).headers["Location"]
    worker.run_once()
    assert ncbi.record.drops == [cut_name]
    assert app.get(location, headers=headers).json["resource"]["state"] == "UPLOADED"
    directory = ncbi.directory(resource_directory(db).rsplit("/", 1)[-1])
    stored = {f.id: f for f in (*obj.files, *other_obj.files)}
    for file_id, record in stored.items():
        name = f"{file_id}.fastq"
        expected = (factories_storage(factories) / record.path).read_bytes()
        assert hashlib.sha256((directory / name).read_bytes()).hexdigest() == \
            hashlib.sha256(expected).hexdigest()
        # Every byte crossed the wire once, whatever the cut.
        assert ncbi.record.received[name] == record.size
    attempts = [rest for name, rest in ncbi.record.stors if name == cut_name]
    assert attempts[0] == 0 and len(attempts) == 2 and 0 < attempts[1] < forward.size
    names = [name for name, _ in ncbi.record.stors]
    assert len(names) == len(set(names)) + 1  # only the cut file was stored twice
    assert names[-1] == "submit.ready"


def test_an_upload_cut_in_every_connection_of_a_round_resumes_in_the_next_round(
        ncbi, factories, project, owner, db, seqcore_settings, seqcore_plugins, database_url,
        engine):
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine, **ncbi.settings(),
                        "seqcore.ncbi.ftp_retries": 1}, plugins=seqcore_plugins)
    app = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
    worker = NcbiWorker(config.registry, "round-worker")
    headers = factories.headers(owner)
    first, first_obj = isolate(factories, project, "SAL-040")
    second, second_obj = isolate(factories, project, "SAL-041",
                                 files=[("s_R1.fastq", fastq(reads=4000, seed=8)),
                                        ("s_R2.fastq", fastq(reads=4000, seed=9))])
    cut = sorted(second_obj.files, key=lambda f: f.id)[0]
    ncbi.record.cut_after[f"{cut.id}.fastq"] = cut.size // 2
    location = app.post_json(url(project), body([{"sampleId": first.id},
                                                 {"sampleId": second.id}]),
                             headers=headers, status=201).headers["Location"]
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "UPLOADING"  # given back for a later round
    db.expire_all()
    uploaded = set(db.scalars(select(NcbiUploadFile.remote_name).where(
        NcbiUploadFile.uploaded.is_not(None))))
    assert uploaded == {f"{f.id}.fastq" for f in first_obj.files}
    worker.run_once()
    assert app.get(location, headers=headers).json["resource"]["state"] == "UPLOADED"
    names = [name for name, _ in ncbi.record.stors]
    assert names.count(f"{cut.id}.fastq") == 2
    for other in (*first_obj.files, *[f for f in second_obj.files if f.id != cut.id]):
        assert names.count(f"{other.id}.fastq") == 1
        assert ncbi.record.received[f"{other.id}.fastq"] == other.size
    assert ncbi.record.received[f"{cut.id}.fastq"] == cut.size


def test_a_refused_log_in_is_upload_error_and_never_logs_the_password(
        ncbi, factories, project, owner, seqcore_settings, seqcore_plugins, database_url,
        engine, caplog):
    wrong = "Not-the-right-password-42"
    remember(wrong, "NCBI FTP password")
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine, **ncbi.settings(),
                        "seqcore.ncbi.ftp_password": wrong}, plugins=seqcore_plugins)
    app = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
    sample, _ = isolate(factories, project, "SAL-050")
    location = app.post_json(url(project), body([{"sampleId": sample.id}]),
                             headers=factories.headers(owner), status=201).headers["Location"]
    with caplog.at_level("DEBUG"):
        NcbiWorker(config.registry, "w").run_once()
    resource = app.get(location, headers=factories.headers(owner)).json["resource"]
    assert resource["state"] == "UPLOAD_ERROR"
    assert "refused the log-in" in resource["error"]
    assert wrong not in caplog.text and wrong not in resource["error"]
    assert ncbi.record.stors == []


def test_submissions_wait_in_new_while_no_ftp_host_is_configured(testapp, app_config,
                                                                  factories, project, owner):
    sample, _ = isolate(factories, project, "SAL-060")
    headers = factories.headers(owner)
    location = testapp.post_json(url(project), body([{"sampleId": sample.id}]),
                                 headers=headers, status=201).headers["Location"]
    assert NcbiWorker(app_config.registry, "idle").run_once() == 0
    assert testapp.get(location, headers=headers).json["resource"]["state"] == "NEW"


def test_a_status_seqcore_does_not_know_keeps_the_report_read(deployment, ncbi, factories,
                                                              project, owner, db):
    app, worker = deployment
    headers = factories.headers(owner)
    sample, _ = isolate(factories, project, "SAL-070")
    location = app.post_json(url(project), body([{"sampleId": sample.id}]),
                             headers=headers, status=201).headers["Location"]
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    name = resource_directory(db)
    ncbi.answer(name, report_xml("SUB7", "pondering", actions(resource, "pondering")))
    worker.run_once()
    assert app.get(location, headers=headers).json["resource"]["state"] == "UNKNOWN"
    ncbi.answer(name, report_xml("SUB7", "processed-ok",
                                 actions(resource, "processed-ok", accessions=True)))
    worker.run_once()
    assert app.get(location, headers=headers).json["resource"]["state"] == "PROCESSED_OK"


def test_reads_deleted_before_the_upload_end_it_in_upload_error(deployment, ncbi, factories,
                                                                project, owner):
    app, worker = deployment
    headers = factories.headers(owner)
    sample, obj = isolate(factories, project, "SAL-080")
    location = app.post_json(url(project), body([{"sampleId": sample.id}]),
                             headers=headers, status=201).headers["Location"]
    app.delete(f"/api/samples/{sample.id}/pairs/{obj.id}", headers=headers, status=200)
    worker.run_once()
    resource = app.get(location, headers=headers).json["resource"]
    assert resource["state"] == "UPLOAD_ERROR"
    assert "were deleted" in resource["error"]
    assert resource["samples"][0]["runs"][0]["sequencingObjectId"] is None
    assert ncbi.record.stors == []


def test_two_workers_never_take_one_submission_and_an_expired_lease_is_taken_over(
        deployment, ncbi, factories, project, owner):
    from datetime import timedelta

    from seqcore.db import utcnow
    from seqcore.ncbi import progress

    app, worker = deployment
    sample, _ = isolate(factories, project, "SAL-090")
    created = app.post_json(url(project), body([{"sampleId": sample.id}]),
                            headers=factories.headers(owner), status=201).json["resource"]
    submission_id = int(created["identifier"])
    lease = timedelta(minutes=5)
    with worker.session() as db:
        assert progress.waiting_for_upload(db, utcnow()) == [submission_id]
        assert progress.take_for_upload(db, submission_id, "first", lease)
    with worker.session() as db:
        assert progress.waiting_for_upload(db, utcnow()) == []
        assert not progress.take_for_upload(db, submission_id, "second", lease)
    with worker.session() as db:  # the first worker died: its lease runs out
        db.get(NcbiSubmission, submission_id).lease_until = utcnow() - timedelta(seconds=1)
    with worker.session() as db:
        assert progress.take_for_upload(db, submission_id, "second", lease)
        taken = db.get(NcbiSubmission, submission_id)
        assert (taken.state, taken.worker) == ("UPLOADING", "second")
    assert [h["state"] for h in app.get(
        f"{url(project)}/{submission_id}", headers=factories.headers(owner)).json[
        "resource"]["stateHistory"]] == ["NEW", "UPLOADING"]
