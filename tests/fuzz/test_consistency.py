"""The consistency check finds each kind of damage planted in a real database and storage,
and nothing in a healthy one (the fuzzing test relies on both)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import delete, insert, text, update

from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.sample import ProjectSample
from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile
from seqcore.testing.consistency import check_consistency


@pytest.fixture
def storage(app_config) -> Path:
    return Path(app_config.get_settings()["seqcore.storage.path"])


@pytest.fixture
def populated(factories):
    owner = factories.user()
    project = factories.project(owner)
    sample = factories.sample(project, metadata={"organism": "E. coli"})
    obj = factories.sequencing_object(sample, "pairs")
    factories.submission(owner, [obj], projects=[project],
                         outputs={"report": ("report.txt", b"counted")})
    return {"owner": owner, "project": project, "sample": sample, "object": obj}


def test_a_healthy_database_is_consistent(engine, storage, populated):
    report = check_consistency(engine, storage)
    assert not report, report.problems
    assert report.problems == []


def test_a_stored_file_without_a_row_is_found(engine, storage, populated):
    stray = storage / "ab" / "0123456789abcdef0123" / "stray.fastq"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"@r\nA\n+\nI\n")
    report = check_consistency(engine, storage)
    assert report.orphan_files == [
        "file in storage no row refers to: ab/0123456789abcdef0123/stray.fastq"]


def test_leftover_temporary_uploads_and_empty_directories_are_found(engine, storage,
                                                                     populated):
    (storage / "tmp").mkdir(exist_ok=True)
    (storage / "tmp" / "upload-deadbeef").write_bytes(b"half an upload")
    (storage / "cd" / "empty").mkdir(parents=True)
    report = check_consistency(engine, storage)
    assert "leftover temporary upload: tmp/upload-deadbeef" in report.orphan_files
    assert "empty directory left in storage: cd/empty" in report.orphan_files
    assert report.orphan_rows == [] and report.missing_files == []


def test_a_row_whose_bytes_are_missing_is_found(engine, storage, populated, db):
    stored = populated["object"].files[0]
    (storage / stored.path).unlink()
    report = check_consistency(engine, storage)
    assert report.missing_files == [f"row refers to missing file: {stored.path}"]
    # The emptied directory is reported as well: nothing in storage is left unexplained.
    assert report.orphan_files == [
        f"empty directory left in storage: {Path(stored.path).parent}"]


def test_a_file_row_nothing_refers_to_is_found(engine, storage, populated):
    with engine.begin() as conn:
        file_id = conn.execute(insert(SequenceFile).values(
            path=populated["object"].files[0].path, file_name="lost.fastq", size=1,
            revision=1, properties={}).returning(SequenceFile.id)).scalar_one()
    report = check_consistency(engine, storage)
    assert report.orphan_rows == [f"sequence_file row nothing refers to: {file_id}"]


def test_an_object_without_files_and_a_sample_in_no_project_are_found(
        engine, storage, populated, factories):
    obj = populated["object"]
    with engine.begin() as conn:
        conn.execute(delete(SequencingObjectFile).where(
            SequencingObjectFile.object_id == obj.id))
        # The pair's own row points at the files; detach it so only the object is bare.
        conn.execute(text("DELETE FROM sequencefiles_pair WHERE object_id = :id"),
                     {"id": obj.id})
        conn.execute(delete(ProjectSample).where(
            ProjectSample.sample_id == populated["sample"].id))
    report = check_consistency(engine, storage)
    assert f"sequencing object without files: {obj.id}" in report.orphan_rows
    assert f"sample in no project: {populated['sample'].id}" in report.orphan_rows


def test_a_row_whose_parent_is_gone_is_found(engine, storage, populated):
    """A dangling foreign key, as a bulk delete on a connection without foreign key
    enforcement (or a missing ON DELETE) leaves one."""
    obj = populated["object"]
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA foreign_keys=OFF"))
        else:
            conn.execute(text("SET session_replication_role = replica"))
        conn.execute(update(SequencingObject).where(SequencingObject.id == obj.id)
                     .values(sample_id=987654))
        if engine.dialect.name != "sqlite":
            conn.execute(text("SET session_replication_role = DEFAULT"))
        conn.commit()
        if engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA foreign_keys=ON"))
    report = check_consistency(engine, storage)
    assert report.orphan_rows == [
        f"sequencing_object row whose sample is gone (sample_id): ({987654},)"]


def test_a_project_without_an_owner_is_found(engine, storage, populated, factories):
    member = factories.user()
    project = factories.project(None, members=[(member, ProjectRole.USER)])
    with engine.begin() as conn:
        conn.execute(update(ProjectMember).where(
            ProjectMember.project_id == populated["project"].id).values(
            role=ProjectRole.USER.value))
    report = check_consistency(engine, storage)
    assert report.ownerless_projects == sorted([populated["project"].id, project.id])
    assert f"project {project.id} has no owner" in report.problems
