"""What a synchronized project is to its users, in one install: read-only samples,
metadata and files (a clear 403 that changes nothing; its members, settings and analyses
stay theirs), its sync state over REST and GraphQL, "sync now", and the checks of making
one. The mirroring itself runs between two live servers (tests/e2e/test_sync.py)."""

from datetime import timedelta

from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.models.project import ProjectRole
from seqcore.models.remote import ProjectSync, RemoteApi, RemoteConnection
from seqcore.models.sample import MetadataEntry, Sample
from tests.dbstate import snapshot


def synchronized(factories, db):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, name="Mirror", members=[(member,
                                                                      ProjectRole.USER)])
    sample = factories.sample(project, name="S1", metadata={"host": "human"})
    api = RemoteApi(name="National", base_url="http://127.0.0.1:9/", client_id="c",
                    client_secret="s")
    db.add(api)
    db.flush()
    db.add(ProjectSync(project_id=project.id, remote_api_id=api.id, user_id=owner.id,
                       remote_url="http://127.0.0.1:9/api/projects/7", status="synchronized",
                       last_sync=utcnow() - timedelta(hours=1),
                       next_sync=utcnow() + timedelta(days=1)))
    db.commit()
    return owner, member, project, sample, api


def test_users_cannot_change_what_a_synchronized_project_mirrors(testapp, factories, db):
    owner, _, project, sample, _ = synchronized(factories, db)
    headers = factories.headers(owner)
    before = snapshot(db)
    for method, path, body in [
        ("put_json", f"/api/samples/{sample.id}/metadata", {"host": {"value": "cow"}}),
        ("patch_json", f"/api/samples/{sample.id}", {"description": "changed"}),
        ("post_json", f"/api/projects/{project.id}/samples", {"sampleName": "local-sample"}),
        ("delete", f"/api/projects/{project.id}/samples/{sample.id}", None),
    ]:
        call = getattr(testapp, method)
        answer = (call(path, headers=headers, status=403) if body is None
                  else call(path, body, headers=headers, status=403))
        assert "synchronized from a remote install" in answer.json["message"], answer.json
    assert snapshot(db) == before
    # The project's own settings stay its users'.
    testapp.patch_json(f"/api/projects/{project.id}", {"organism": "Listeria"},
                       headers=headers, status=200)
    db.expire_all()
    assert db.scalar(select(MetadataEntry.value).where(
        MetadataEntry.sample_id == sample.id)) == "human"
    assert db.get(Sample, sample.id).description != "changed"


def test_the_sync_state_over_rest_and_graphql_and_sync_now(testapp, factories, db, graphql):
    owner, member, project, _, _ = synchronized(factories, db)
    state = testapp.get(f"/api/projects/{project.id}/sync",
                        headers=factories.headers(member)).json["resource"]
    assert state["status"] == "synchronized" and state["running"] is False
    assert state["error"] is None and state["remoteApi"]["name"] == "National"
    assert state["remoteURL"].endswith("/api/projects/7") and state["lastSync"]
    # Members read it; only who may change the project asks for a sync.
    testapp.post(f"/api/projects/{project.id}/sync", headers=factories.headers(member),
                 status=403)
    asked = testapp.post(f"/api/projects/{project.id}/sync",
                         headers=factories.headers(owner), status=202).json["resource"]
    assert asked["status"] == "scheduled"
    db.expire_all()
    assert db.get(ProjectSync, project.id).next_sync <= utcnow()
    plain = factories.project(owner=owner, name="Plain")
    testapp.get(f"/api/projects/{plain.id}/sync", headers=factories.headers(owner),
                status=404)
    query = """query($p: ID) { project(puid: $p) { remoteSync { status error running
      lastSyncAt nextSyncAt remoteUrl } } }"""
    seen = graphql.as_user(owner)(query, {"p": project.puid})["data"]["project"]["remoteSync"]
    assert seen["status"] == "scheduled" and seen["remoteUrl"].endswith("/projects/7")
    assert seen["lastSyncAt"] and seen["running"] is False
    assert graphql(query, {"p": plain.puid})["data"]["project"]["remoteSync"] is None


def test_making_one_needs_a_connection_and_a_project_of_that_remote(testapp, factories, db):
    owner, _, _, _, api = synchronized(factories, db)
    headers = factories.headers(owner)
    before = snapshot(db)
    bad = testapp.post_json("/api/projects/synchronized", {"projectUrl": 3}, headers=headers,
                            status=400).json
    assert "remoteApi" in json_text(bad)
    testapp.post_json("/api/projects/synchronized", {"remoteApi": 999, "projectUrl": "3"},
                      headers=headers, status=404)
    refused = testapp.post_json("/api/projects/synchronized", {
        "remoteApi": api.id, "projectUrl": "3"}, headers=headers, status=403).json
    assert "Connect your account" in refused["message"]
    db.add(RemoteConnection(remote_api_id=api.id, user_id=owner.id, access_token="t"))
    db.commit()
    before = snapshot(db)
    elsewhere = testapp.post_json("/api/projects/synchronized", {
        "remoteApi": api.id, "projectUrl": "http://other.example/api/projects/3"},
        headers=headers, status=400).json
    assert "projectUrl" in json_text(elsewhere)
    testapp.post_json("/api/projects/synchronized", {
        "remoteApi": api.id, "projectUrl": "3", "syncFrequency": "HOURLY"},
        headers=headers, status=400)
    # The remote cannot be reached: refused, nothing made.
    testapp.post_json("/api/projects/synchronized", {"remoteApi": api.id, "projectUrl": "3"},
                      headers=headers, status=403)
    assert snapshot(db) == before


def json_text(body):
    import json

    return json.dumps(body)


def test_graphql_writes_are_refused_and_analyses_still_run(testapp, factories, db, graphql,
                                                             upload_reads, run_analysis):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, name="Mirror")
    sample = factories.sample(project, name="S1", metadata={"host": "human"})
    headers = factories.headers(owner)
    reads = upload_reads(sample, headers, kind="pairs")  # copied before it was synchronized
    api = RemoteApi(name="National", base_url="http://127.0.0.1:9", client_id="c",
                    client_secret="s")
    db.add(api)
    db.flush()
    db.add(ProjectSync(project_id=project.id, remote_api_id=api.id, user_id=owner.id,
                       remote_url="http://127.0.0.1:9/api/projects/7"))
    db.commit()
    as_owner = graphql.as_user(owner)
    before = snapshot(db)
    body = as_owner(
        """mutation($input: UpdateSampleMetadataInput!) { updateSampleMetadata(input: $input)
        { sample { id } errors { message path } } }""",
        {"input": {"sampleId": f"gid://seqcore/Sample/{sample.id}",
                   "metadata": {"host": "cow"}}})
    errors = body.get("errors") or body["data"]["updateSampleMetadata"]["errors"]
    assert "synchronized from a remote install" in json_text(errors), body
    assert snapshot(db) == before
    # Its own analyses run on its samples as on any other's.
    analysis = run_analysis("readcount", [reads.id], headers)
    assert analysis.state == "COMPLETED", analysis.error


def test_samples_are_not_added_to_a_synchronized_project_but_may_leave_it(
        testapp, factories, db, graphql):
    """Sharing, copying or cloning samples into a synchronized project would change what
    it mirrors: refused, nothing written. Sharing its samples into another project leaves
    it as it is, and is allowed."""
    owner, _, project, sample, _ = synchronized(factories, db)
    headers = factories.headers(owner)
    plain = factories.project(owner=owner, name="Plain")
    local = factories.sample(plain, name="Local-1")
    as_owner = graphql.as_user(owner)
    before = snapshot(db)
    refused = testapp.post(f"/api/projects/{project.id}/samples", f"[{local.id}]",
                           headers=headers, content_type="application/idcollection+json",
                           status=403)
    assert "synchronized from a remote install" in refused.json["message"], refused.json
    cloned = as_owner(
        """mutation($input: CloneSamplesInput!) { copySamples(input: $input) {
        samples errors { message path } } }""",
        {"input": {"projectId": f"gid://seqcore/Project/{plain.id}",
                   "newProjectId": f"gid://seqcore/Project/{project.id}",
                   "sampleIds": [f"gid://seqcore/Sample/{local.id}"]}})
    answer = cloned.get("data", {}).get("copySamples") or {}
    assert not answer.get("samples"), cloned
    assert "synchronized" in str(cloned), cloned
    assert snapshot(db) == before
    testapp.post(f"/api/projects/{plain.id}/samples", f"[{sample.id}]", headers=headers,
                 content_type="application/idcollection+json", status=201)
