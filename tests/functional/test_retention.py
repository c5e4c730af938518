"""Retention: with ``seqcore.retention.days`` deleted samples and files go to the project's
trash, bytes kept; an owner restores them; the worker purges the bytes once they expire;
the trail records each step. With 0 (the default) deletion purges at once."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.governance.trash import TrashWorker
from seqcore.models.activity import Activity
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.models.sequencing import SequencingObject
from seqcore.models.trash import TrashEntry


@pytest.fixture
def world(factories, build_app, app_config):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER)])
    sample = factories.sample(project, name="SAM-1", strain="ST19",
                              metadata={"serovar": "Typhi"})
    obj = factories.sequencing_object(sample, kind="unpaired")
    app = build_app(**{"seqcore.retention.days": "7"})
    storage = Path(app_config.get_settings()["seqcore.storage.path"])
    paths = [storage / link.file.path for link in obj.links]
    return app, owner, member, project, sample, obj, paths


def kinds(db):
    db.expire_all()
    return [a.kind for a in db.scalars(select(Activity).order_by(Activity.id))]


def test_a_deleted_sample_is_restored_by_an_owner(world, factories, db):
    app, owner, member, project, sample, _, paths = world
    headers = factories.headers(owner)
    app.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    assert db.get(Sample, sample.id) is None
    assert all(p.exists() for p in paths)  # the bytes wait in the trash
    trash = app.get(f"/api/projects/{project.id}/trash", headers=headers).json["resource"]
    (entry,) = trash["resources"]
    assert (entry["kind"], entry["label"], entry["sampleId"]) == ("sample", "SAM-1",
                                                                  sample.id)
    assert entry["expiresDate"] - entry["deletedDate"] == 7 * 86_400_000
    app.get(f"/api/projects/{project.id}/trash", headers=factories.headers(member),
            status=403)
    app.post(f"/api/projects/{project.id}/trash/{entry['identifier']}/restore",
             headers=factories.headers(member), status=403)
    res = app.post(f"/api/projects/{project.id}/trash/{entry['identifier']}/restore",
                   headers=headers)
    restored_id = int(res.json["resource"]["sampleId"])
    assert restored_id == sample.id
    db.expire_all()
    back = db.get(Sample, restored_id)
    assert (back.name, back.strain) == ("SAM-1", "ST19")
    assert {e.field: e.value for e in db.scalars(select(MetadataEntry))} == {
        "serovar": "Typhi"}
    assert db.scalars(select(SequencingObject)).one().sample_id == restored_id
    body = app.get(f"/api/samples/{restored_id}/unpaired", headers=headers).json
    assert len(body["resource"]["resources"]) == 1
    app.post(f"/api/projects/{project.id}/trash/{entry['identifier']}/restore",
             headers=headers, status=404)
    assert kinds(db)[-2:] == ["sample.remove", "trash.restore"]


def test_a_deleted_file_is_kept_then_purged_by_the_worker(world, factories, db, app_config):
    app, owner, _, project, sample, obj, paths = world
    headers = factories.headers(owner)
    app.delete(f"/api/samples/{sample.id}/unpaired/{obj.id}", headers=headers)
    assert db.get(SequencingObject, obj.id) is None and all(p.exists() for p in paths)
    worker = TrashWorker(app_config.registry)
    assert worker.run_once() == 0  # not expired yet
    assert worker.run_once(now=utcnow() + timedelta(days=8)) == 1
    assert not any(p.exists() for p in paths)
    db.expire_all()
    entry = db.scalars(select(TrashEntry)).one()
    assert entry.purged is not None
    assert app.get(f"/api/projects/{project.id}/trash", headers=headers).json[
        "resource"]["resources"] == []
    purge = db.scalars(select(Activity).where(Activity.kind == "trash.purge")).one()
    assert purge.actor_type == "service"
    history = app.get(f"/api/samples/{sample.id}/history", headers=headers).json
    assert [e["kind"] for e in history["resource"]["resources"]][:2] == ["trash.purge",
                                                                        "file.delete"]


def test_restoring_into_a_taken_name_is_409(world, factories, db):
    app, owner, _, project, sample, _, _ = world
    headers = factories.headers(owner)
    app.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    app.post_json(f"/api/projects/{project.id}/samples", {"sampleName": "SAM-1"},
                  headers=headers)
    entry = db.scalars(select(TrashEntry)).one()
    app.post(f"/api/projects/{project.id}/trash/{entry.id}/restore", headers=headers,
             status=409)


def test_without_retention_deletion_purges_at_once(testapp, world, factories, db):
    _, owner, _, project, sample, _, paths = world
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}",
                   headers=factories.headers(owner))
    assert not any(p.exists() for p in paths)
    assert db.scalars(select(TrashEntry)).all() == []
