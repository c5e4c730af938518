"""``/api/sequencingrun/{id}``: a bad ``uploadStatus`` changes nothing, administrators delete a
run with the data it brought in (never what an analysis still uses), and an existing
sequencing object can be attached to a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import update

from seqcore.files.runs import SEQUENCE_FILE_ID
from seqcore.models.sample import Sample
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingRun
from seqcore.models.user import SystemRole


def storage_root(app_config) -> Path:
    return Path(app_config.get_settings()["seqcore.storage.path"])


def stored(app_config, obj) -> list[Path]:
    """The stored files of ``obj`` (a factory-built object, files loaded)."""
    return [storage_root(app_config) / f.path for f in obj.files]


def attach(db, run, *objects) -> None:
    db.execute(update(SequencingObject).where(SequencingObject.id.in_([o.id for o in objects]))
               .values(run_id=run.id))
    db.commit()


@pytest.fixture
def people(factories):
    admin = factories.user(role=SystemRole.ADMIN, username="admin")
    sequencer = factories.user(role=SystemRole.SEQUENCER, username="uploader")
    owner = factories.user(username="owner")
    return admin, sequencer, owner


# -- 1. a bad uploadStatus --------------------------------------------------------------------


@pytest.mark.parametrize("status", ["DONE", "complete", "", None, 3, 1.5, True,
                                    ["COMPLETE"], {"value": "COMPLETE"}])
def test_bad_upload_status_is_a_400_naming_the_allowed_values(testapp, factories, db, people,
                                                              status):
    admin, sequencer, _ = people
    run = factories.run(sequencer, upload_status="UPLOADING", workflow="GenerateFASTQ")
    url = f"/api/sequencingrun/{run.id}"
    before = testapp.get(url, headers=factories.headers(admin)).json
    res = testapp.patch_json(url, {"uploadStatus": status, "description": "changed",
                                   "workflow": "other"},
                             headers=factories.headers(sequencer), status=400)
    assert res.json == {"uploadStatus": [
        "The upload status must be UPLOADING, COMPLETE or ERROR."]}
    assert testapp.get(url, headers=factories.headers(admin)).json == before
    row = db.get(SequencingRun, run.id)
    assert (row.upload_status, row.description, row.properties, row.modified) == (
        "UPLOADING", None, {"workflow": "GenerateFASTQ"}, None)


# -- 2. DELETE ------------------------------------------------------------------------------


@pytest.fixture
def uploaded(factories, people):
    """A run that brought a pair into an otherwise empty sample, and a single-end file into
    a sample that also holds an object of another upload."""
    _, sequencer, owner = people
    project = factories.project(owner=owner)
    lone = factories.sample(project, name="lone", metadata={"serovar": "Typhi"})
    shared = factories.sample(project, name="shared")
    run = factories.run(sequencer)
    lone_pair = factories.sequencing_object(lone, "pairs")
    shared_single = factories.sequencing_object(shared, "unpaired")
    other = factories.sequencing_object(shared, "pairs")
    return run, project, lone, shared, lone_pair, shared_single, other


def test_admin_deletes_a_run_its_objects_files_and_the_samples_left_empty(
        testapp, factories, db, app_config, people, uploaded):
    admin, _, owner = people
    run, project, lone, shared, lone_pair, shared_single, other = uploaded
    attach(db, run, lone_pair, shared_single)
    gone_files = stored(app_config, lone_pair) + stored(app_config, shared_single)
    kept_files = stored(app_config, other)
    assert all(p.is_file() for p in gone_files + kept_files)

    res = testapp.delete(f"/api/sequencingrun/{run.id}", headers=factories.headers(admin))
    assert res.json == {"resource": {"links": [
        {"rel": "collection", "href": "http://localhost/api/sequencingrun"}]}}

    db.expire_all()
    assert db.get(SequencingRun, run.id) is None
    assert db.get(SequencingObject, lone_pair.id) is None
    assert db.get(SequencingObject, shared_single.id) is None
    assert db.query(SequenceFile).filter(SequenceFile.id.in_(
        [f.id for f in lone_pair.files + shared_single.files])).count() == 0
    assert db.get(Sample, lone.id) is None  # left empty: gone, metadata too
    assert db.get(Sample, shared.id) is not None  # still holds another upload's pair
    assert db.get(SequencingObject, other.id) is not None
    assert not any(p.exists() for p in gone_files)
    assert all(p.is_file() for p in kept_files)
    testapp.get(f"/api/sequencingrun/{run.id}", headers=factories.headers(admin), status=404)
    headers = factories.headers(owner)
    testapp.get(f"/api/samples/{lone.id}", headers=headers, status=404)
    listed = testapp.get(f"/api/projects/{project.id}/samples", headers=headers).json
    assert [s["identifier"] for s in listed["resource"]["resources"]] == [str(shared.id)]


def test_deleting_a_run_without_objects_removes_only_the_run(testapp, factories, db, people):
    admin, sequencer, _ = people
    run = factories.run(sequencer)
    keep = factories.run(sequencer)
    testapp.delete(f"/api/sequencingrun/{run.id}", headers=factories.headers(admin))
    db.expire_all()
    assert db.get(SequencingRun, run.id) is None
    assert db.get(SequencingRun, keep.id) is not None


def unchanged(db, app_config, run, objects, samples) -> None:
    db.expire_all()
    assert db.get(SequencingRun, run.id) is not None
    for obj in objects:
        row = db.get(SequencingObject, obj.id)
        assert row is not None and row.run_id == run.id
        assert all(p.is_file() for p in stored(app_config, obj))
    for sample in samples:
        assert db.get(Sample, sample.id) is not None


def test_deleting_a_run_an_analysis_used_is_refused_and_changes_nothing(
        testapp, factories, db, app_config, people, uploaded):
    admin, _, owner = people
    run, project, lone, shared, lone_pair, shared_single, _ = uploaded
    attach(db, run, lone_pair, shared_single)
    submission = factories.submission(owner, [lone_pair], state="COMPLETED",
                                      projects=[project], name="counts of lone")
    res = testapp.delete(f"/api/sequencingrun/{run.id}", headers=factories.headers(admin),
                         status=409)
    assert res.json["message"] == (
        f"Sequencing run {run.id} holds sequence data that is an input of analysis "
        f"submission(s) {submission.id} ('counts of lone'); it is kept as their record of "
        "what they ran on.")
    unchanged(db, app_config, run, [lone_pair, shared_single], [lone, shared])


def test_a_delete_that_fails_halfway_changes_nothing(testapp, factories, db, app_config,
                                                     people, uploaded):
    """A plugin fails while the empty samples go, after the run's objects were deleted in
    the same transaction: everything is rolled back and no stored file is removed."""
    from seqcore.plugin import hookimpl

    admin, _, _ = people
    run, _, lone, shared, lone_pair, shared_single, _ = uploaded
    attach(db, run, lone_pair, shared_single)

    class Failing:
        @hookimpl
        def samples_deleting(self, sample_ids, request):
            raise RuntimeError("storage backend unavailable")

    pm = app_config.registry.pm
    failing = Failing()
    pm.register(failing)
    try:
        testapp.delete(f"/api/sequencingrun/{run.id}", headers=factories.headers(admin),
                       status=500)
    finally:
        pm.unregister(failing)
    unchanged(db, app_config, run, [lone_pair, shared_single], [lone, shared])


def test_only_administrators_delete_runs(testapp, factories, db, people):
    admin, sequencer, owner = people
    run = factories.run(sequencer)
    url = f"/api/sequencingrun/{run.id}"
    # Its creator may PATCH it, so knows it exists: forbidden, as IRIDA answers. Accounts
    # that may neither read nor update it: not found, as for a GET.
    res = testapp.delete(url, headers=factories.headers(sequencer), status=403)
    assert res.json == {"message": "You are not allowed to do this."}
    testapp.patch_json(url, {"uploadStatus": "COMPLETE"}, headers=factories.headers(sequencer),
                       status=200)
    for caller in (owner, factories.user(role=SystemRole.MANAGER),
                   factories.user(role=SystemRole.SEQUENCER)):
        res = testapp.delete(url, headers=factories.headers(caller), status=404)
        assert res.json == {"message": "The resource was not found."}
    db.expire_all()
    assert db.get(SequencingRun, run.id) is not None
    testapp.delete("/api/sequencingrun/999999", headers=factories.headers(admin), status=404)


# -- 3. attaching an existing object -----------------------------------------------------------


@pytest.fixture
def loose(factories, people):
    _, sequencer, owner = people
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    return factories.run(sequencer), sample, factories.sequencing_object(sample, "pairs")


@pytest.mark.parametrize("value", ["id", "string"])
def test_attach_an_object_to_a_run(testapp, factories, db, people, loose, value):
    _, sequencer, _ = people
    run, _, obj = loose
    body = {SEQUENCE_FILE_ID: obj.id if value == "id" else str(obj.id)}
    res = testapp.post_json(f"/api/sequencingrun/{run.id}/sequenceFiles", body,
                            headers=factories.headers(sequencer), status=201)
    location = f"http://localhost/api/sequencingrun/{run.id}/sequenceFiles/{obj.id}"
    assert res.headers["Location"] == location
    resource = res.json["resource"]
    assert resource["links"] == [{"rel": "self", "href": location}]
    assert resource["identifier"] == str(run.id)
    assert resource["uploadStatus"] == "UPLOADING" and resource["sequencerType"] == "miseq"
    db.expire_all()
    assert db.get(SequencingObject, obj.id).run_id == run.id


def test_attaching_an_object_of_another_run_moves_it(testapp, factories, db, people, loose):
    admin, sequencer, _ = people
    run, _, obj = loose
    first = factories.run(sequencer)
    attach(db, first, obj)
    testapp.post_json(f"/api/sequencingrun/{run.id}/sequenceFiles", {SEQUENCE_FILE_ID: obj.id},
                      headers=factories.headers(admin), status=201)
    db.expire_all()
    assert db.get(SequencingObject, obj.id).run_id == run.id
    # Again: nothing to change, same answer.
    testapp.post_json(f"/api/sequencingrun/{run.id}/sequenceFiles", {SEQUENCE_FILE_ID: obj.id},
                      headers=factories.headers(admin), status=201)
    db.expire_all()
    assert db.get(SequencingObject, obj.id).run_id == run.id


@pytest.mark.parametrize("body", [{}, {SEQUENCE_FILE_ID: None}, {SEQUENCE_FILE_ID: "abc"},
                                  {SEQUENCE_FILE_ID: -1}, {SEQUENCE_FILE_ID: 1.5},
                                  {SEQUENCE_FILE_ID: True}, {SEQUENCE_FILE_ID: [1]},
                                  {SEQUENCE_FILE_ID: "99999999999"}])
def test_attach_with_a_bad_id_is_a_400(testapp, factories, db, people, loose, body):
    _, sequencer, _ = people
    run, _, obj = loose
    res = testapp.post_json(f"/api/sequencingrun/{run.id}/sequenceFiles", body,
                            headers=factories.headers(sequencer), status=400)
    assert res.json == {SEQUENCE_FILE_ID: [
        "You must give the id of a sequencing object as sequenceFileId."]}
    db.expire_all()
    assert db.get(SequencingObject, obj.id).run_id is None


def test_attach_needs_the_run_and_read_access_to_the_object(testapp, factories, db, people,
                                                            loose):
    admin, sequencer, owner = people
    run, _, obj = loose
    url = f"/api/sequencingrun/{run.id}/sequenceFiles"
    body = {SEQUENCE_FILE_ID: obj.id}
    # No such object, or one whose sample the caller cannot read: not found.
    res = testapp.post_json(url, {SEQUENCE_FILE_ID: 999999},
                            headers=factories.headers(sequencer), status=404)
    assert res.json == {"message": "The sequencing object 999999 was not found."}
    hidden_run = factories.run(owner)
    private = factories.sequencing_object(factories.sample(factories.project(owner=admin)))
    res = testapp.post_json(f"/api/sequencingrun/{hidden_run.id}/sequenceFiles",
                            {SEQUENCE_FILE_ID: private.id}, headers=factories.headers(owner),
                            status=404)
    assert res.json == {"message": f"The sequencing object {private.id} was not found."}
    # Another sequencer account's run, and ordinary accounts: the run is not found.
    other = factories.user(role=SystemRole.SEQUENCER)
    for caller in (other, factories.user()):
        testapp.post_json(url, body, headers=factories.headers(caller), status=404)
    testapp.post_json("/api/sequencingrun/999999/sequenceFiles", body,
                      headers=factories.headers(admin), status=404)
    db.expire_all()
    assert db.get(SequencingObject, obj.id).run_id is None
    assert db.get(SequencingObject, private.id).run_id is None
