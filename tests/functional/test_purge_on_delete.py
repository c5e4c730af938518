"""Deleting a sequencing object purges its rows (object, files, QC records, the kind's own)
and, once committed, its stored bytes (the decompressed revision and the upload kept beside
it); a file another row still refers to stays; a delete the database refuses changes
nothing. (Samples and submissions: ``plugins/seqcore-assemblies/tests/test_deletion.py``
and ``tests/functional/test_submission_deletion.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from seqcore.models.analysis import AnalysisOutput
from seqcore.models.sequencing import SequenceFile
from seqcore.testing.consistency import check_consistency
from seqcore.testing.contracts import stored_files

TABLES = ("sequencing_object", "sequencing_object_file", "sequence_file", "qc_record",
          "sequencefiles_pair", "analysis_output")


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    qc = {"totalSequences": 1}
    gone = factories.sequencing_object(sample, kind="pairs", qc=qc)
    stays = factories.sequencing_object(sample, kind="pairs", qc=qc,
                                        files=[("s_R1.fastq", b"@r\nA\n+\nI\n"),
                                               ("s_R2.fastq", b"@r\nC\n+\nI\n")])
    return sample, gone, stays, factories.headers(owner)


def root(app_config) -> Path:
    return Path(app_config.get_settings()["seqcore.storage.path"])


def counts(db):
    db.expire_all()
    return {t: db.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}


def test_an_object_goes_with_its_files_qc_and_kept_upload(testapp, world, db, engine,
                                                           app_config):
    sample, gone, stays, headers = world
    # As after the worker decompressed the first file: the upload is kept beside it.
    first = gone.files[0]
    original = root(app_config) / Path(first.path).parent / "x_R1.fastq.gz"
    original.write_bytes(b"compressed")
    db.get(SequenceFile, first.id).original_path = str(original.relative_to(root(app_config)))
    db.commit()
    kept = sorted(p for p in stored_files(root(app_config))
                  if p.name.startswith("s_R"))
    testapp.delete(f"/api/samples/{sample.id}/pairs/{gone.id}", headers=headers)
    assert counts(db) == {"sequencing_object": 1, "sequencing_object_file": 2,
                          "sequence_file": 2, "qc_record": 2, "sequencefiles_pair": 1,
                          "analysis_output": 0}
    assert sorted(stored_files(root(app_config))) == kept
    testapp.get(f"/api/samples/{sample.id}/pairs/{stays.id}", headers=headers)
    report = check_consistency(engine, root(app_config))
    assert not report, report.problems


def test_a_file_another_row_still_uses_stays(testapp, factories, world, db, engine,
                                             app_config):
    sample, gone, _, headers = world
    submission = factories.submission(None, [], state="COMPLETED")
    shared = gone.files[0]
    db.add(AnalysisOutput(submission_id=submission.id, key="reads", file_id=shared.id))
    db.commit()
    testapp.delete(f"/api/samples/{sample.id}/pairs/{gone.id}", headers=headers)
    db.expire_all()
    assert db.get(SequenceFile, shared.id) is not None
    assert (root(app_config) / shared.path).is_file()
    assert db.get(SequenceFile, gone.files[1].id) is None
    assert not (root(app_config) / gone.files[1].path).exists()
    report = check_consistency(engine, root(app_config))
    assert not report, report.problems


@pytest.fixture
def blocker(engine):
    """A real foreign-key constraint (``RESTRICT``) the delete runs into at its end."""
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE purge_blocker (id INTEGER PRIMARY KEY, object_id "
                          "INTEGER REFERENCES sequencing_object (id) ON DELETE RESTRICT)"))
    yield
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE purge_blocker"))


def test_a_delete_the_database_refuses_changes_nothing(testapp, world, blocker, db,
                                                       app_config):
    sample, gone, _, headers = world
    db.execute(text("INSERT INTO purge_blocker (id, object_id) VALUES (1, :o)"),
               {"o": gone.id})
    db.commit()
    before = counts(db), sorted(stored_files(root(app_config)))
    testapp.delete(f"/api/samples/{sample.id}/pairs/{gone.id}", headers=headers, status=409)
    assert (counts(db), sorted(stored_files(root(app_config)))) == before
    db.execute(text("DELETE FROM purge_blocker"))
    db.commit()
