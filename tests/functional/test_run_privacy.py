"""Sequencing runs are read by administrators and changed (files added included) by the
account that created them. To anyone else, an upload naming a run, open or not, must answer
exactly as for a run that does not exist: the error tells neither that the run exists nor
its state, and no file joins it."""

import pytest

from seqcore.models.sequencing import SequencingObject
from seqcore.models.user import SystemRole
from seqcore.testing.contracts import stored_files
from seqcore.testing.uploads import fastq, multipart, parameters

MISSING_RUN = 987654321


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    creator = factories.user(username="uploader", role=SystemRole.SEQUENCER)
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    return dict(owner=owner, creator=creator, sample=sample,
                other_sequencer=factories.user(role=SystemRole.SEQUENCER),
                admin=factories.user(role=SystemRole.ADMIN))


def upload(testapp, sample, headers, run_id, status):
    body, content_type = multipart([("file", "a.fastq", fastq(), None),
                                    parameters(miseqRunId=run_id)])
    return testapp.post(f"/api/samples/{sample.id}/unpaired", body, status=status,
                        headers={**headers, "Content-Type": content_type})


def missing(run_id):
    return {"message": f"The sequencing run {run_id} does not exist."}


@pytest.mark.parametrize("status", ["COMPLETE", "ERROR"])
@pytest.mark.parametrize("who", ["owner", "other_sequencer"])
def test_a_closed_run_of_someone_else_answers_as_a_missing_one(
        testapp, factories, world, db, app_config, who, status):
    headers = factories.headers(world[who])
    run = factories.run(user=world["creator"], upload_status=status)
    closed = upload(testapp, world["sample"], headers, run.id, 400).json
    absent = upload(testapp, world["sample"], headers, MISSING_RUN, 400).json
    assert absent == missing(MISSING_RUN)
    assert closed == missing(run.id)
    assert "UPLOADING" not in str(closed) and status not in str(closed)
    assert db.query(SequencingObject).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


@pytest.mark.parametrize("who", ["creator", "admin"])
def test_who_may_read_or_change_the_run_learns_its_state(testapp, factories, world, who):
    run = factories.run(user=world["creator"], upload_status="COMPLETE")
    res = upload(testapp, world["sample"], factories.headers(world[who]), run.id, 400)
    assert res.json == {"message": "The sequencing run must be in the UPLOADING state to "
                                   "upload data."}


@pytest.mark.parametrize("who", ["owner", "other_sequencer"])
def test_an_open_run_of_someone_else_takes_no_files(testapp, factories, world, db, app_config,
                                                   who):
    """A project owner (or another sequencer account) cannot slip files into a run it did
    not create, an administrator's included: the run answers as a missing one."""
    for creator in (world["creator"], world["admin"]):
        run = factories.run(user=creator)
        res = upload(testapp, world["sample"], factories.headers(world[who]), run.id, 400)
        assert res.json == missing(run.id)
    assert db.query(SequencingObject).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


@pytest.mark.parametrize("who", ["creator", "admin"])
def test_the_runs_creator_and_administrators_upload_into_it(testapp, factories, world, db,
                                                            who):
    run = factories.run(user=world["creator"])
    res = upload(testapp, world["sample"], factories.headers(world[who]), run.id, 201)
    obj = db.get(SequencingObject, int(res.json["resource"]["links"][-1]["href"]
                                       .rstrip("/").rsplit("/", 1)[1]))
    assert obj.run_id == run.id


def test_changing_someone_elses_run_is_not_found_whatever_the_body(testapp, factories, world):
    run = factories.run(user=world["creator"], upload_status="COMPLETE")
    headers = factories.headers(world["other_sequencer"])
    for body in ({"uploadStatus": "UPLOADING"}, {"uploadStatus": "NONSENSE"}):
        res = testapp.patch_json(f"/api/sequencingrun/{run.id}", body, headers=headers,
                                 status=404)
        assert "COMPLETE" not in res.text
    absent = testapp.patch_json(f"/api/sequencingrun/{MISSING_RUN}", {"uploadStatus": "X"},
                                headers=headers, status=404).json
    assert set(absent) == {"message"}
