"""Handing ownership of samples on: sharing with ``?ownership=true`` (REST) and transferring
(GraphQL) need ownership of each sample and of the target project, for every role.

Sequencer accounts (the uploader) write every sample and create samples in every project,
but own none: they must not be able to give any project write access to another project's
samples.
"""

import json

import pytest
from sqlalchemy import select

from seqcore.models.project import ProjectRole
from seqcore.models.sample import ProjectSample
from seqcore.models.user import SystemRole
from tests.graphql.conftest import gid


@pytest.fixture
def world(factories):
    alice = factories.user(username="alice")
    bob = factories.user(username="bob")
    reader = factories.user(username="reader")
    source = factories.project(owner=alice, name="Source", members=[(reader, ProjectRole.USER)])
    target = factories.project(owner=bob, name="Target")
    sample = factories.sample(source, name="isolate-1")
    return dict(alice=alice, bob=bob, reader=reader, source=source, target=target,
                sample=sample, sequencer=factories.user(role=SystemRole.SEQUENCER),
                admin=factories.user(role=SystemRole.ADMIN))


def share(testapp, project, ids, headers, status, ownership=True):
    return testapp.post(f"/api/projects/{project.id}/samples?ownership={str(ownership).lower()}",
                        json.dumps(ids), headers=headers,
                        content_type="application/idcollection+json", status=status)


def joins(db, sample):
    db.expire_all()
    return sorted((j.project_id, j.owner) for j in db.scalars(
        select(ProjectSample).where(ProjectSample.sample_id == sample.id)))


def test_a_sequencer_cannot_give_ownership_of_any_sample(testapp, factories, world, db):
    before = joins(db, world["sample"])
    headers = factories.headers(world["sequencer"])
    res = share(testapp, world["target"], [world["sample"].id], headers, 403)
    assert res.json == {"message": f"You may not give ownership of samples to project "
                                   f"{world['target'].id}: only its owners may."}
    assert joins(db, world["sample"]) == before
    # Even into a project it owns: the sample is another project's.
    own = factories.project(owner=world["sequencer"], name="Sequencer's own")
    res = share(testapp, own, [world["sample"].id], headers, 403)
    assert res.json == {"message": f"You may not give ownership of sample "
                                   f"{world['sample'].id}: you do not own it."}
    assert joins(db, world["sample"]) == before
    # And bob (the target's owner) still cannot change the sample.
    testapp.patch_json(f"/api/samples/{world['sample'].id}", {"strain": "x"},
                       headers=factories.headers(world["bob"]), status=404)


@pytest.mark.parametrize(("who", "status"), [
    ("reader", 404),   # a member of the source project, no member of the target
    ("alice", 404),    # owns the sample, cannot read the target
    ("bob", 404),      # owns the target, cannot read the sample
])
def test_others_without_both_ownerships_are_refused(testapp, factories, world, db, who,
                                                    status):
    before = joins(db, world["sample"])
    share(testapp, world["target"], [world["sample"].id], factories.headers(world[who]),
          status)
    assert joins(db, world["sample"]) == before


def test_owning_the_sample_but_only_reading_the_target_is_403(testapp, factories, world, db):
    member_of_target = factories.project(owner=world["bob"], name="Shared target",
                                         members=[(world["alice"], ProjectRole.USER)])
    res = share(testapp, member_of_target, [world["sample"].id],
                factories.headers(world["alice"]), 403)
    assert "message" in res.json
    assert (member_of_target.id, True) not in joins(db, world["sample"])


def test_reading_the_sample_but_owning_the_target_is_403(testapp, factories, world, db):
    mine = factories.project(owner=world["reader"], name="Reader's project")
    share(testapp, mine, [world["sample"].id], factories.headers(world["reader"]), 403)
    assert joins(db, world["sample"]) == [(world["source"].id, True)]


@pytest.mark.parametrize("who", ["admin", "owner of both"])
def test_owners_of_both_and_administrators_may(testapp, factories, world, db, who):
    if who == "admin":
        headers = factories.headers(world["admin"])
        target = world["target"]
    else:
        headers = factories.headers(world["alice"])
        target = factories.project(owner=world["alice"], name="Alice's second")
    res = share(testapp, target, [world["sample"].id], headers, 201)
    assert res.json["resource"]["resources"][0]["resource"]["owner"] is True
    assert joins(db, world["sample"]) == sorted([(world["source"].id, True), (target.id, True)])


# -- GraphQL transferSamples -------------------------------------------------------------------

TRANSFER = """mutation($input: TransferSamplesInput!) { transferSamples(input: $input) {
  samples errors { message path } } }"""


def test_a_sequencer_owning_the_source_cannot_transfer_a_sample_it_does_not_own(
        graphql, factories, world, db):
    """The sample is owned by ``Source`` and shared read-only into the sequencer's project;
    writing every sample (to upload) is not owning it."""
    sequencer = world["sequencer"]
    mine = factories.project(owner=sequencer, name="Sequencer's own")
    theirs = factories.project(owner=sequencer, name="Sequencer's other")
    sample = factories.sample(world["source"], name="isolate-2", also_in=[mine])
    before = joins(db, sample)
    body = graphql.as_user(sequencer)(TRANSFER, {"input": {
        "projectId": gid("Project", mine.id), "newProjectId": gid("Project", theirs.id),
        "sampleIds": [gid("Sample", sample.id)]}})
    assert body["data"]["transferSamples"] == {"samples": None, "errors": [{
        "message": "You are not authorized to transfer sample isolate-2.",
        "path": ["samples", gid("Sample", sample.id)]}]}
    assert joins(db, sample) == before
    # Into a project it may only read (every project, for a sequencer): refused too.
    body = graphql(TRANSFER, {"input": {
        "projectId": gid("Project", mine.id), "newProjectId": gid("Project", world["target"].id),
        "sampleIds": [gid("Sample", sample.id)]}})
    assert body["data"]["transferSamples"]["errors"] == [{
        "message": "You are not authorized to transfer samples into project Target.",
        "path": ["new_project"]}]
    assert joins(db, sample) == before
