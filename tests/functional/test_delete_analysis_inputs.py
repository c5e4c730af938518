"""Sequence data an analysis used keeps the analysis's record of its inputs: deleting it,
directly or with its sample or project, is a 409 naming the submissions, and nothing goes."""

from __future__ import annotations

import pytest

from seqcore.models.analysis import SubmissionInput
from seqcore.models.sample import ProjectSample, Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.testing.contracts import stored_files


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    obj = factories.sequencing_object(sample, kind="pairs")
    submission = factories.submission(owner, [obj], state="COMPLETED", projects=[project],
                                      name="read counts of isolate-1")
    return owner, project, sample, obj, submission, factories.headers(owner)


def kept(db, app_config, obj, submission):
    db.expire_all()
    assert db.get(SequencingObject, obj.id) is not None
    assert db.query(SequenceFile).count() == 2
    assert db.query(SubmissionInput).filter_by(submission_id=submission.id).count() == 1
    assert len(stored_files(app_config.get_settings()["seqcore.storage.path"])) == 2


def test_deleting_an_input_object_is_refused_naming_the_submission(testapp, world, db,
                                                                   app_config):
    _, _, sample, obj, submission, headers = world
    res = testapp.delete(f"/api/samples/{sample.id}/pairs/{obj.id}", headers=headers,
                         status=409)
    message = res.json["message"]
    assert f"sequencing object {obj.id}" in message
    assert f"{submission.id} ('read counts of isolate-1')" in message
    kept(db, app_config, obj, submission)
    # The submission still lists its input.
    inputs = testapp.get(f"/api/analysisSubmissions/{submission.id}/sequenceFiles/pairs",
                         headers=headers).json["resource"]["resources"]
    assert [i["identifier"] for i in inputs] == [str(obj.id)]


def test_deleting_the_sample_or_project_holding_inputs_is_refused(testapp, world, db,
                                                                  app_config):
    _, project, sample, obj, submission, headers = world
    res = testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers,
                         status=409)
    assert f"{submission.id} ('read counts of isolate-1')" in res.json["message"]
    res = testapp.delete(f"/api/projects/{project.id}", headers=headers, status=409)
    assert f"{submission.id}" in res.json["message"]
    kept(db, app_config, obj, submission)
    assert db.get(Sample, sample.id) is not None
    testapp.get(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)


def test_a_sample_another_project_still_holds_can_leave_this_one(testapp, factories, world,
                                                                 db, app_config):
    owner, project, sample, obj, submission, headers = world
    other = factories.project(owner=owner, name="other project")
    db.add(ProjectSample(project_id=other.id, sample_id=sample.id, sample_name=sample.name,
                         owner=False))
    db.commit()
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    kept(db, app_config, obj, submission)


def test_submissions_the_caller_cannot_read_are_counted_not_named(testapp, factories, world,
                                                                  db, app_config):
    _, _, sample, obj, submission, headers = world
    stranger = factories.user(username="stranger")
    private = factories.submission(stranger, [obj], state="RUNNING", name="secret study")
    res = testapp.delete(f"/api/samples/{sample.id}/pairs/{obj.id}", headers=headers,
                         status=409)
    message = res.json["message"]
    assert "secret study" not in message and f"{private.id} (" not in message
    assert "1 you cannot read" in message
    kept(db, app_config, obj, submission)


def test_data_no_analysis_used_is_deleted_as_before(testapp, factories, world, db,
                                                    app_config):
    _, _, sample, _, _, headers = world
    unused = factories.sequencing_object(sample, kind="pairs",
                                         files=[("u_R1.fastq", b"@r\nA\n+\nI\n"),
                                                ("u_R2.fastq", b"@r\nA\n+\nI\n")])
    testapp.delete(f"/api/samples/{sample.id}/pairs/{unused.id}", headers=headers)
    db.expire_all()
    assert db.get(SequencingObject, unused.id) is None
    assert len(stored_files(app_config.get_settings()["seqcore.storage.path"])) == 2


def test_the_database_refuses_too_so_a_racing_launch_keeps_its_record(world, db, app_config):
    """A submission launched between the check and the delete: the delete then reaches the
    database, which refuses it (the view answers 409) rather than erase the record."""
    from sqlalchemy import delete
    from sqlalchemy.exc import IntegrityError

    _, _, sample, obj, submission, _ = world
    with pytest.raises(IntegrityError):
        db.execute(delete(SequencingObject).where(SequencingObject.id == obj.id))
        db.flush()
    db.rollback()
    with pytest.raises(IntegrityError):
        db.execute(delete(Sample).where(Sample.id == sample.id))
        db.flush()
    db.rollback()
    kept(db, app_config, obj, submission)
