"""A pair names the assembly made from it (``assembledGenome``); deleting a submission, a
sample or an object purges what was deleted (rows now, stored files after commit) and keeps
what something else still refers to; a delete that fails halfway changes nothing."""

from pathlib import Path

import pytest
from sqlalchemy import select, text

from seqcore.plugin import AnalysisSubmission, SequenceFile, SequencingObject, hookimpl
from seqcore.testing.consistency import check_consistency
from seqcore.testing.contracts import stored_files
from seqcore.testing.workers import AnalysisWorker
from seqcore_assemblies.models import Assembly


@pytest.fixture
def world(testapp, app_config, factories):
    """A pair assembled by a completed submission that wrote its assembly back."""
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    pair = factories.sequencing_object(sample, "pairs")
    headers = factories.headers(owner)
    body = testapp.post_json("/api/analysisSubmissions/analysisType/fake-assembly",
                             {"sequencingObjects": [pair.id], "writeResultsToSamples": True,
                              "projects": [project.id]},
                             headers=headers, status=201).json["resource"]
    AnalysisWorker(app_config.registry).run_until_idle(timeout=60)
    state = testapp.get(f"/api/analysisSubmissions/{body['identifier']}",
                        headers=headers).json["resource"]["analysisState"]
    assert state == "COMPLETED"
    return owner, project, sample, pair, int(body["identifier"]), headers


def storage_root(app_config):
    return Path(app_config.get_settings()["seqcore.storage.path"])


def consistent(engine, app_config):
    report = check_consistency(engine, storage_root(app_config))
    assert not report, report.problems


def snapshot(db, app_config):
    """Every row count and stored file that a failed delete must leave as it was."""
    db.expire_all()
    counts = {table: db.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
              for table in ("sample", "project_sample", "sequencing_object", "sequence_file",
                            "sequencefiles_pair", "assemblies_assembly",
                            "analysis_submission", "analysis_submission_input",
                            "analysis_submission_project", "analysis_output")}
    assembly_owners = sorted(db.scalars(select(Assembly.submission_id)).all(),
                             key=lambda v: v or 0)
    return counts, assembly_owners, sorted(stored_files(storage_root(app_config)))


def work_dirs(app_config, submission_id):
    root = Path(app_config.get_settings()["seqcore.analysis.work_path"])
    return sorted(root.glob(f"{submission_id}-*"))


# -- assembledGenome ------------------------------------------------------------------------


def test_a_pair_without_an_assembly_shows_null(testapp, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    single = factories.sequencing_object(sample, "unpaired")
    headers = factories.headers(owner)
    body = testapp.get(f"/api/samples/{sample.id}/pairs/{pair.id}", headers=headers).json
    assert body["resource"]["assembledGenome"] is None
    unpaired = testapp.get(f"/api/samples/{sample.id}/unpaired/{single.id}",
                           headers=headers).json["resource"]
    assert "assembledGenome" not in unpaired


def test_a_pair_names_the_assembly_made_from_it(testapp, world):
    _, _, sample, pair, submission_id, headers = world
    (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies",
                              headers=headers).json["resource"]["resources"]
    own = testapp.get(f"/api/samples/{sample.id}/pairs/{pair.id}",
                      headers=headers).json["resource"]
    assert own["assembledGenome"] == assembly
    links = {link["rel"]: link["href"] for link in own["assembledGenome"]["links"]}
    assert links["self"].endswith(f"/api/samples/{sample.id}/assemblies/"
                                  f"{assembly['identifier']}")
    assert links["assembly/analysis"].endswith(f"/api/analysisSubmissions/{submission_id}")
    # The same in the sample's pairs and in the submission's inputs.
    (listed,) = testapp.get(f"/api/samples/{sample.id}/pairs",
                            headers=headers).json["resource"]["resources"]
    assert listed["assembledGenome"] == assembly
    (used,) = testapp.get(f"/api/analysisSubmissions/{submission_id}/sequenceFiles/pairs",
                          headers=headers).json["resource"]["resources"]
    assert used["assembledGenome"] == assembly


# -- deleting a submission ------------------------------------------------------------------


def test_deleting_a_submission_purges_it_and_keeps_the_sample_assembly(
        testapp, world, db, engine, app_config):
    _, _, sample, pair, submission_id, headers = world
    output_paths = list(db.scalars(text(
        "SELECT path FROM sequence_file JOIN analysis_output "
        "ON analysis_output.file_id = sequence_file.id")))
    assert output_paths and all((storage_root(app_config) / p).is_file()
                                for p in output_paths)
    assert work_dirs(app_config, submission_id)
    (assembly,) = db.scalars(select(Assembly)).all()
    assembly_path = assembly.file.path

    res = testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    assert res.json == {"resource": {"links": [
        {"rel": "collection", "href": "http://localhost/api/analysisSubmissions"}]}}

    testapp.get(f"/api/analysisSubmissions/{submission_id}", headers=headers, status=404)
    db.expire_all()
    assert db.get(AnalysisSubmission, submission_id) is None
    for table in ("analysis_submission_input", "analysis_submission_project",
                  "analysis_output"):
        assert db.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one() == 0
    assert not any((storage_root(app_config) / p).exists() for p in output_paths)
    assert work_dirs(app_config, submission_id) == []
    # The assembly written back stays the sample's, with its file, naming no submission.
    (kept,) = db.scalars(select(Assembly)).all()
    assert kept.submission_id is None
    assert (storage_root(app_config) / assembly_path).is_file()
    shown = testapp.get(f"/api/samples/{sample.id}/assemblies/{kept.id}",
                        headers=headers).json["resource"]
    assert [link["rel"] for link in shown["links"]] == ["self"]
    assert testapp.get(f"/api/samples/{sample.id}/pairs/{pair.id}",
                       headers=headers).json["resource"]["assembledGenome"] is None
    consistent(engine, app_config)
    # The pair is no input any more: it can go now, and then the sample with the rest.
    testapp.delete(f"/api/samples/{sample.id}/pairs/{pair.id}", headers=headers)
    consistent(engine, app_config)
    project_id = db.scalar(text("SELECT project_id FROM project_sample"))
    testapp.delete(f"/api/projects/{project_id}/samples/{sample.id}", headers=headers)
    consistent(engine, app_config)
    assert stored_files(storage_root(app_config)) == []


def test_an_output_an_assembly_still_uses_stays(testapp, world, db, engine, app_config):
    """A write-back that kept the output file itself as the assembly: deleting the
    submission removes the output row but not the file the assembly refers to."""
    _, _, sample, _, submission_id, headers = world
    output_file = db.scalar(text("SELECT file_id FROM analysis_output"))
    path = db.get(SequenceFile, output_file).path
    db.add(Assembly(sample_id=sample.id, file_id=output_file, submission_id=submission_id))
    db.commit()
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    db.expire_all()
    assert db.get(SequenceFile, output_file) is not None
    assert (storage_root(app_config) / path).is_file()
    assert db.scalar(text("SELECT COUNT(*) FROM assemblies_assembly")) == 2
    consistent(engine, app_config)


class Refusing:
    """A plugin whose deleting hooks fail after every other plugin's have run."""

    @staticmethod
    @hookimpl(trylast=True)
    def submissions_deleting(submission_ids):
        raise RuntimeError("refused by a plugin")

    @staticmethod
    @hookimpl(trylast=True)
    def samples_deleting(sample_ids):
        raise RuntimeError("refused by a plugin")


def test_a_plugin_failing_halfway_changes_nothing(world, build_app, seqcore_plugins, db,
                                                  engine, app_config):
    _, _, _, _, submission_id, headers = world
    app = build_app([*seqcore_plugins, Refusing])
    before = snapshot(db, app_config)
    dirs = work_dirs(app_config, submission_id)
    app.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers, status=500)
    assert snapshot(db, app_config) == before
    assert work_dirs(app_config, submission_id) == dirs
    app.get(f"/api/analysisSubmissions/{submission_id}", headers=headers)


@pytest.fixture
def blocker(engine):
    """A table whose rows the database will not let go of what they name (a real foreign-key
    constraint, ``RESTRICT``), to make a delete fail at its last statement."""
    with engine.begin() as conn:
        conn.execute(text(
            "CREATE TABLE deletion_blocker (id INTEGER PRIMARY KEY, "
            "sample_id INTEGER REFERENCES sample (id) ON DELETE RESTRICT, "
            "submission_id INTEGER REFERENCES analysis_submission (id) ON DELETE RESTRICT)"))
    yield
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE deletion_blocker"))


def test_a_database_refusal_at_the_end_changes_nothing(testapp, world, blocker, db, engine,
                                                       app_config):
    _, project, sample, _, submission_id, headers = world
    db.execute(text("INSERT INTO deletion_blocker (id, sample_id, submission_id) "
                    "VALUES (1, :s, :sub)"), {"s": sample.id, "sub": submission_id})
    db.commit()
    before = snapshot(db, app_config)
    dirs = work_dirs(app_config, submission_id)
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers, status=409)
    assert snapshot(db, app_config) == before
    assert work_dirs(app_config, submission_id) == dirs
    db.execute(text("UPDATE deletion_blocker SET submission_id = NULL"))
    db.commit()
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    before = snapshot(db, app_config)
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers,
                   status=409)
    assert snapshot(db, app_config) == before
    db.execute(text("DELETE FROM deletion_blocker"))
    db.commit()


# -- deleting samples and objects -----------------------------------------------------------


def test_a_shared_sample_keeps_its_files_until_its_last_project_lets_go(
        testapp, factories, world, db, engine, app_config):
    owner, project, sample, pair, submission_id, headers = world
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    other = factories.project(owner=owner, name="second project")
    testapp.post(f"/api/projects/{other.id}/samples", f"[{sample.id}]",
                 headers={**headers, "Content-Type": "application/idcollection+json"},
                 status=201)
    before = sorted(stored_files(storage_root(app_config)))
    assert len(before) == 3  # the pair's two files and the assembly
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    db.expire_all()
    assert db.get(SequencingObject, pair.id) is not None
    assert sorted(stored_files(storage_root(app_config))) == before
    consistent(engine, app_config)
    testapp.delete(f"/api/projects/{other.id}/samples/{sample.id}", headers=headers)
    db.expire_all()
    assert db.get(SequencingObject, pair.id) is None
    assert db.scalar(text("SELECT COUNT(*) FROM assemblies_assembly")) == 0
    assert db.scalar(text("SELECT COUNT(*) FROM sequence_file")) == 0
    assert stored_files(storage_root(app_config)) == []
    consistent(engine, app_config)


def test_a_sample_failing_halfway_keeps_everything(testapp, world, build_app, seqcore_plugins,
                                                   db, engine, app_config):
    _, project, sample, _, submission_id, headers = world
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    app = build_app([*seqcore_plugins, Refusing])
    before = snapshot(db, app_config)
    app.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers,
               status=500)
    assert snapshot(db, app_config) == before
    consistent(engine, app_config)
