"""``DELETE /api/analysisSubmissions/{id}``: the submitter and administrators delete a
submission with its links, outputs (rows and stored files, after commit) and work
directories; readers get 403, others 404; a submission a worker holds is a 409; nothing
else changes (a submission's content is never edited)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry
from seqcore.models.sequencing import SequencingObject
from seqcore.models.user import SystemRole
from seqcore.testing.consistency import check_consistency
from seqcore.testing.contracts import stored_files


@pytest.fixture
def world(factories, app_config):
    submitter = factories.user(username="submitter")
    reader = factories.user(username="reader")
    project = factories.project(owner=submitter, members=[(reader, ProjectRole.USER)])
    sample = factories.sample(project, name="isolate-1")
    obj = factories.sequencing_object(sample, kind="pairs")
    submission = factories.submission(
        submitter, [obj], state="COMPLETED", projects=[project],
        outputs={"counts": ("counts.txt", b"reads\t4\n"), "log": ("run.log", b"ok\n")})
    work = Path(app_config.get_settings()["seqcore.analysis.work_path"])
    dirs = [work / f"{submission.id}-{attempt}" for attempt in (0, 1)]
    for directory in dirs:  # this attempt's and an earlier one's
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "job.json").write_text("{}")
    yield {"submitter": submitter, "reader": reader, "project": project, "sample": sample,
           "obj": obj, "submission": submission, "work": work}
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)


def url(world):
    return f"/api/analysisSubmissions/{world['submission'].id}"


def storage(app_config):
    return app_config.get_settings()["seqcore.storage.path"]


def state(db, app_config, world):
    """What a refused delete must leave exactly as it was."""
    db.expire_all()
    rows = {table: db.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
            for table in ("analysis_submission", "analysis_submission_input",
                          "analysis_submission_project", "analysis_output", "sequence_file",
                          "metadata_entry")}
    dirs = sorted(p.name for p in world["work"].glob(f"{world['submission'].id}-*"))
    return rows, dirs, sorted(stored_files(storage(app_config)))


def test_the_submitter_deletes_it_with_outputs_and_work_directories(testapp, factories, world,
                                                                      db, engine, app_config):
    headers = factories.headers(world["submitter"])
    assert len(stored_files(storage(app_config))) == 4  # two reads, two outputs
    res = testapp.delete(url(world), headers=headers)
    assert res.json == {"resource": {"links": [
        {"rel": "collection", "href": "http://localhost/api/analysisSubmissions"}]}}
    testapp.get(url(world), headers=headers, status=404)
    rows, dirs, files = state(db, app_config, world)
    assert rows == {"analysis_submission": 0, "analysis_submission_input": 0,
                    "analysis_submission_project": 0, "analysis_output": 0,
                    "sequence_file": 2, "metadata_entry": 0}
    assert dirs == []
    assert len(files) == 2  # the inputs' reads stay
    assert db.get(SequencingObject, world["obj"].id) is not None
    report = check_consistency(engine, storage(app_config))
    assert not report, report.problems
    listed = testapp.get(f"/api/projects/{world['project'].id}/analyses",
                         headers=headers).json["resource"]["resources"]
    assert listed == []


def test_administrators_delete_any(testapp, factories, world, db, app_config):
    admin = factories.user(SystemRole.ADMIN)
    testapp.delete(url(world), headers=factories.headers(admin))
    db.expire_all()
    assert db.get(AnalysisSubmission, world["submission"].id) is None


def test_readers_get_403_and_others_404_and_nothing_changes(testapp, factories, world, db,
                                                           app_config):
    before = state(db, app_config, world)
    res = testapp.delete(url(world), headers=factories.headers(world["reader"]), status=403)
    assert set(res.json) == {"message"}
    stranger = factories.user(username="stranger")
    testapp.delete(url(world), headers=factories.headers(stranger), status=404)
    testapp.delete("/api/analysisSubmissions/999999",
                   headers=factories.headers(world["submitter"]), status=404)
    read_only = factories.headers(world["submitter"], scopes=("read",))
    testapp.delete(url(world), headers=read_only, status=403)
    assert state(db, app_config, world) == before


@pytest.mark.parametrize("running", ["PREPARING", "RUNNING", "COMPLETING", "POST_PROCESSING"])
def test_a_submission_a_worker_holds_is_a_conflict(testapp, factories, world, db, app_config,
                                                   running):
    db.execute(text("UPDATE analysis_submission SET state = :s"), {"s": running})
    db.commit()
    before = state(db, app_config, world)
    res = testapp.delete(url(world), headers=factories.headers(world["submitter"]),
                         status=409)
    assert running in res.json["message"] and "COMPLETED or ERROR" in res.json["message"]
    assert state(db, app_config, world) == before


def test_a_submission_whose_work_directory_is_being_cleaned_waits(testapp, factories, world,
                                                                  db, app_config):
    db.execute(text("UPDATE analysis_submission SET cleaned_state = 'CLEANING'"))
    db.commit()
    before = state(db, app_config, world)
    res = testapp.delete(url(world), headers=factories.headers(world["submitter"]),
                         status=409)
    assert "being cleaned" in res.json["message"]
    assert state(db, app_config, world) == before


@pytest.mark.parametrize("deletable", ["NEW", "ERROR"])
def test_new_and_failed_submissions_can_go(testapp, factories, world, db, app_config,
                                           deletable):
    db.execute(text("UPDATE analysis_submission SET state = :s"), {"s": deletable})
    db.commit()
    testapp.delete(url(world), headers=factories.headers(world["submitter"]))
    db.expire_all()
    assert db.get(AnalysisSubmission, world["submission"].id) is None


def test_metadata_it_wrote_stays_without_its_provenance(testapp, factories, world, db):
    db.add(MetadataEntry(sample_id=world["sample"].id, field="reads", value="4",
                         submission_id=world["submission"].id))
    db.commit()
    testapp.delete(url(world), headers=factories.headers(world["submitter"]))
    db.expire_all()
    (entry,) = db.query(MetadataEntry).all()
    assert (entry.value, entry.submission_id) == ("4", None)


def test_the_content_stays_immutable(testapp, factories, world, db, app_config):
    before = state(db, app_config, world)
    headers = factories.headers(world["submitter"])
    for method in ("patch_json", "put_json", "post_json"):
        getattr(testapp, method)(url(world), {"name": "renamed"}, headers=headers, status=405)
    assert state(db, app_config, world) == before
    assert testapp.get(url(world), headers=headers).json["resource"]["name"] == (
        world["submission"].name)
