"""The audit trail: every registered domain write operation leaves exactly one activity
record with the right actor, in its transaction; a failed write leaves none; the table
refuses UPDATE and DELETE; the REST and GraphQL views page, filter and honour field
restrictions."""

from __future__ import annotations

import importlib
import json
import pkgutil
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.exc import DBAPIError

from seqcore.db import utcnow
from seqcore.governance.activity import OPERATIONS
from seqcore.models.activity import Activity
from seqcore.models.fielddecl import MetadataField
from seqcore.models.group import AccessLevel
from seqcore.models.ncbi import NcbiSubmission
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.sequencing import SequencingObject
from seqcore.models.trash import TrashEntry
from seqcore.models.user import SystemRole
from seqcore.testing.uploads import direct_upload

LIBRARY = {"libraryStrategy": "WGS", "librarySource": "GENOMIC",
           "librarySelection": "RANDOM", "instrumentModel": "Illumina MiSeq"}
FASTQ = b"@r1\nACGTACGT\n+\nIIIIIIII\n"


class World(SimpleNamespace):
    @property
    def retained(self):
        """An app over the same database with retention on (built when a scenario asks)."""
        if "_retained" not in self.__dict__:
            self._retained = self.build_app(**{"seqcore.retention.days": "7"})
        return self._retained

    def gql(self, query, variables=None):
        self.graphql.as_user(self.owner)
        body = self.graphql(query, variables)
        assert "errors" not in body, body
        return body["data"]


@pytest.fixture
def world(testapp, graphql, factories, db, build_app, app_config):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    uploader = factories.user(SystemRole.SEQUENCER, username="uploader")
    project = factories.project(owner=owner, name="Trail project",
                                members=[(member, ProjectRole.USER)])
    other = factories.project(owner=owner, name="Other project")
    sample = factories.sample(project, name="SAM-1", organism="Salmonella enterica",
                              strain="S1", collected_by="PHL",
                              geographic_location_name="Canada", isolation_source="stool",
                              latitude="-12.5", longitude="130.25",
                              metadata={"host": "human", "disease": "salmonellosis",
                                        "date": "2026-02-03"})
    return World(testapp=testapp, graphql=graphql, factories=factories, db=db, owner=owner,
                 member=member, admin=admin, uploader=uploader, project=project, other=other,
                 sample=sample, h=factories.headers(owner), registry=app_config.registry,
                 build_app=build_app)


def _upload(w, headers=None):
    return w.testapp.post(f"/api/samples/{w.sample.id}/unpaired",
                          upload_files=[("file", "r1.fastq", FASTQ)],
                          headers=headers or w.h)


def _import_samples(w):
    """What ``seqcore import`` does for each batch of samples: one record for the batch."""
    from seqcore.governance.activity import Actor, acting
    from seqcore.imports.copying import import_samples
    from seqcore.samples.samples import create_sample

    with acting(w.db, Actor("user", w.owner.id, w.owner.username)):
        import_samples(w.db, lambda: [create_sample(w.db, w.project.id, {"name": name})
                                      for name in ("SAM-8", "SAM-9")])


def _object(w):
    return w.factories.sequencing_object(w.sample, kind="unpaired")


def _field(w, restriction="LEVEL_1"):
    return w.testapp.post_json(f"/api/projects/{w.project.id}/metadataFields",
                               {"name": "patient", "restriction": restriction},
                               headers=w.h).json["resource"]["identifier"]


def _template(w):
    _field(w)
    return w.testapp.post_json(f"/api/projects/{w.project.id}/metadataTemplates",
                               {"name": "T", "fields": ["patient"]},
                               headers=w.h).json["resource"]["identifier"]


def _run(w):
    return w.testapp.post_json("/api/sequencingrun", {"layoutType": "SINGLE_END",
                                                      "sequencerType": "miseq"},
                               headers=w.factories.headers(w.uploader)).json["resource"][
        "identifier"]


def _ncbi(w):
    w.factories.sequencing_object(w.sample, kind="pairs")
    body = {"bioProject": "PRJNA42", "organization": "PHL", "namespace": "PHL",
            "bioSamplePackage": "Pathogen.cl.1.0",
            "attributes": {"host": "host", "host_disease": "disease", "collection_date": "date"},
            **LIBRARY,
            "samples": [{"sampleId": w.sample.id}]}
    return w.testapp.post_json(f"/api/projects/{w.project.id}/ncbiSubmissions", body,
                               headers=w.h)


def _accessions(w, _):
    from seqcore.ncbi.progress import write_accessions

    submission = w.db.scalars(select(NcbiSubmission)).one()
    submission.samples[0].accession = "SAMN1"
    w.db.flush()
    write_accessions(w.db, submission)
    w.db.commit()


def _analysis_metadata(w):
    from seqcore.analysis.results import write_metadata

    write_metadata(w.db, w.sample.id, {"st": "19"}, SimpleNamespace(id=7))
    w.db.commit()


def _trashed(w):
    w.retained.delete(f"/api/projects/{w.project.id}/samples/{w.sample.id}", headers=w.h)
    return w.db.scalars(select(TrashEntry)).one().id


def _purge(w, _):
    from seqcore.governance.trash import TrashWorker

    assert TrashWorker(w.registry).run_once(now=utcnow() + timedelta(days=8)) == 1


def _export(w):
    return w.testapp.post_json(f"/api/projects/{w.project.id}/exports",
                               {"samples": [w.sample.id], "fileKinds": []},
                               headers=w.h).json["resource"]


def _self(resource):
    return next(link["href"] for link in resource["links"] if link["rel"] == "self")


def _group(w, members=()):
    return w.factories.group(w.owner, name="Lab", members=members)


def _project_bot(w):
    return w.testapp.post_json(f"/api/projects/{w.project.id}/bots", BOT, headers=w.h
                               ).json["resource"]


def _bot_url(w, bot, *rest):
    return "/".join([f"/api/projects/{w.project.id}/bots/{bot['identifier']}", *rest])


BOT = {"accessLevel": "UPLOADER", "tokenName": "sequencer", "scopes": ["api"]}


def _group_with_member(w):
    return _group(w, [(w.member, AccessLevel.GUEST)])


def _expired_member(w):
    w.db.execute(update(ProjectMember).where(ProjectMember.user_id == w.member.id)
                 .values(expires_at=utcnow() - timedelta(minutes=1)))
    w.db.commit()


def _expire(w, _):
    from seqcore.projects.expiry import MembershipExpiryWorker

    assert MembershipExpiryWorker(w.registry).run_once() == 1


def _project_share(w):
    group = _group(w)
    return w.factories.share(group, AccessLevel.GUEST, project=w.project)


def _blob(w, name="r1.fastq", data=FASTQ):
    w.graphql.as_user(w.owner)
    return direct_upload(w.testapp, w.graphql, name, data)


ATTACH = {kind: f"""mutation($files: [String!]!, $id: ID) {{
    attachFilesTo{kind}(input: {{files: $files, {kind.lower()}Id: $id}}) {{
        status errors {{ path message }} }} }}""" for kind in ("Sample", "Project", "Group")}


def _attach(w, blob, kind="Sample", pk=None):
    pk = w.sample.id if pk is None else pk
    data = w.gql(ATTACH[kind], {"files": [blob], "id": gid(kind, pk)})
    assert data[f"attachFilesTo{kind}"]["errors"] == [], data
    return data


def gid(kind, pk):
    return f"gid://seqcore/{kind}/{pk}"


#: kind -> (setup, the write, the actor type expected)
SCENARIOS = {
    "project.create": (None, lambda w: w.testapp.post_json(
        "/api/projects", {"name": "New project"}, headers=w.h), "client"),
    "project.update": (None, lambda w: w.testapp.patch_json(
        f"/api/projects/{w.project.id}", {"name": "Renamed project"}, headers=w.h), "client"),
    "project.delete": (None, lambda w: w.testapp.delete(f"/api/projects/{w.other.id}",
                                                        headers=w.h), "client"),
    "member.add": (None, lambda w: w.testapp.post_json(
        f"/api/projects/{w.other.id}/users", {"userId": "member"}, headers=w.h), "client"),
    "member.remove": (None, lambda w: w.testapp.delete(
        f"/api/projects/{w.project.id}/users/member", headers=w.h), "client"),
    "member.expire": (_expired_member, _expire, "service"),
    "member.update": (None, lambda w: w.testapp.patch_json(
        f"/api/projects/{w.project.id}/users/member", {"expiresAt": "2099-01-01"},
        headers=w.h), "client"),
    "sample.create": (None, lambda w: w.testapp.post_json(
        f"/api/projects/{w.project.id}/samples", {"sampleName": "SAM-2"}, headers=w.h), "client"),
    "sample.update": (None, lambda w: w.testapp.patch_json(
        f"/api/samples/{w.sample.id}", {"strain": "ST19x"}, headers=w.h), "client"),
    "sample.share": (None, lambda w: w.testapp.post(
        f"/api/projects/{w.other.id}/samples", json.dumps([w.sample.id]), headers=w.h,
        content_type="application/idcollection+json"), "client"),
    "sample.copy": (None, lambda w: w.gql("""mutation($a: ID!, $b: ID!, $s: [ID!]!) {
        shareSamples(input: {projectId: $a, newProjectId: $b, sampleIds: $s}) {
            errors { message } } }""", {"a": gid("Project", w.project.id),
                                        "b": gid("Project", w.other.id),
                                        "s": [gid("Sample", w.sample.id)]}), "token"),
    "sample.clone": (None, lambda w: w.gql("""mutation($a: ID!, $b: ID!, $s: [ID!]!) {
        copySamples(input: {projectId: $a, newProjectId: $b, sampleIds: $s}) {
            errors { message } } }""", {"a": gid("Project", w.project.id),
                                        "b": gid("Project", w.other.id),
                                        "s": [gid("Sample", w.sample.id)]}), "token"),
    "sample.transfer": (None, lambda w: w.gql("""mutation($a: ID!, $b: ID!, $s: [ID!]!) {
        transferSamples(input: {projectId: $a, newProjectId: $b, sampleIds: $s}) {
            errors { message } } }""", {"a": gid("Project", w.project.id),
                                        "b": gid("Project", w.other.id),
                                        "s": [gid("Sample", w.sample.id)]}), "token"),
    "sample.remove": (None, lambda w: w.testapp.delete(
        f"/api/projects/{w.project.id}/samples/{w.sample.id}", headers=w.h), "client"),
    "metadata.update": (None, lambda w: w.testapp.put_json(
        f"/api/samples/{w.sample.id}/metadata", {"host": {"value": "cow"}}, headers=w.h),
        "client"),
    "metadata.analysis": (None, _analysis_metadata, "analysis"),
    "metadataField.create": (None, _field, "client"),
    "metadataField.update": (_field, lambda w, fid: w.testapp.patch_json(
        f"/api/projects/{w.project.id}/metadataFields/{fid}", {"restriction": "LEVEL_2"},
        headers=w.h), "client"),
    "metadataField.delete": (_field, lambda w, fid: w.testapp.delete(
        f"/api/projects/{w.project.id}/metadataFields/{fid}", headers=w.h), "client"),
    "metadataTemplate.create": (_field, lambda w, _: w.testapp.post_json(
        f"/api/projects/{w.project.id}/metadataTemplates", {"name": "T", "fields": []},
        headers=w.h), "client"),
    "metadataTemplate.update": (_template, lambda w, tid: w.testapp.patch_json(
        f"/api/projects/{w.project.id}/metadataTemplates/{tid}", {"name": "T2"},
        headers=w.h), "client"),
    "metadataTemplate.delete": (_template, lambda w, tid: w.testapp.delete(
        f"/api/projects/{w.project.id}/metadataTemplates/{tid}", headers=w.h), "client"),
    "file.upload": (None, _upload, "client"),
    "import.samples": (None, _import_samples, "user"),
    "file.delete": (_object, lambda w, obj: w.testapp.delete(
        f"/api/samples/{w.sample.id}/unpaired/{obj.id}", headers=w.h), "client"),
    "run.create": (None, _run, "client"),
    "run.update": (_run, lambda w, rid: w.testapp.patch_json(
        f"/api/sequencingrun/{rid}", {"uploadStatus": "COMPLETE"},
        headers=w.factories.headers(w.uploader)), "client"),
    "run.delete": (_run, lambda w, rid: w.testapp.delete(
        f"/api/sequencingrun/{rid}", headers=w.factories.headers(w.admin)), "client"),
    "run.attach": (lambda w: (_run(w), _object(w)), lambda w, ro: w.testapp.post_json(
        f"/api/sequencingrun/{ro[0]}/sequenceFiles", {"sequenceFileId": ro[1].id},
        headers=w.factories.headers(w.uploader)), "client"),
    "ncbi.submit": (None, _ncbi, "client"),
    "ncbi.accessions": (_ncbi, _accessions, "ncbi"),
    "trash.restore": (_trashed, lambda w, eid: w.retained.post(
        f"/api/projects/{w.project.id}/trash/{eid}/restore", headers=w.h), "client"),
    "trash.purge": (_trashed, _purge, "service"),
    "export.create": (None, _export, "client"),
    "group.create": (None, lambda w: w.testapp.post_json(
        "/api/groups", {"name": "Lab"}, headers=w.h), "client"),
    "groupMember.add": (_group, lambda w, g: w.testapp.post_json(
        f"/api/groups/{g.id}/members", {"userId": "member", "accessLevel": "GUEST"},
        headers=w.h), "client"),
    "groupMember.update": (_group_with_member, lambda w, g: w.testapp.patch_json(
        f"/api/groups/{g.id}/members/member", {"accessLevel": "ANALYST"}, headers=w.h),
        "client"),
    "groupMember.remove": (_group_with_member, lambda w, g: w.testapp.delete(
        f"/api/groups/{g.id}/members/member", headers=w.h), "client"),
    "bot.create": (None, lambda w: w.testapp.post_json(
        f"/api/projects/{w.project.id}/bots", BOT, headers=w.h), "client"),
    "bot.delete": (_project_bot, lambda w, bot: w.testapp.delete(_bot_url(w, bot),
                                                                 headers=w.h), "client"),
    "botToken.create": (_project_bot, lambda w, bot: w.testapp.post_json(
        _bot_url(w, bot, "tokens"), {"name": "more", "scopes": ["read_api"]}, headers=w.h),
        "client"),
    "botToken.revoke": (_project_bot, lambda w, bot: w.testapp.delete(
        _bot_url(w, bot, "tokens", bot["personalAccessToken"]["identifier"]), headers=w.h),
        "client"),
    "groupShare.create": (_group, lambda w, g: w.testapp.post_json(
        f"/api/projects/{w.project.id}/shares", {"groupId": g.id, "accessLevel": "GUEST"},
        headers=w.h), "client"),
    "groupShare.update": (_project_share, lambda w, share: w.testapp.patch_json(
        f"/api/projects/{w.project.id}/shares/{share.id}", {"accessLevel": "ANALYST"},
        headers=w.h), "client"),
    "groupShare.delete": (_project_share, lambda w, share: w.testapp.delete(
        f"/api/projects/{w.project.id}/shares/{share.id}", headers=w.h), "client"),
    "project.transfer": (_group, lambda w, g: w.testapp.post_json(
        f"/api/projects/{w.project.id}/transfer", {"groupId": g.id}, headers=w.h), "client"),
    "group.transfer": (lambda w: (_group(w), w.factories.group(w.owner, name="Other lab")),
                       lambda w, gs: w.testapp.post_json(
        f"/api/groups/{gs[1].id}/transfer", {"parentId": gs[0].id}, headers=w.h), "client"),
    "project.archive": (None, lambda w: w.testapp.post(
        f"/api/projects/{w.other.id}/archive", headers=w.h), "client"),
    "project.unarchive": (lambda w: w.testapp.post(f"/api/projects/{w.other.id}/archive",
                                                   headers=w.h),
                          lambda w, _: w.testapp.delete(f"/api/projects/{w.other.id}/archive",
                                                        headers=w.h), "client"),
    "attachment.add": (_blob, _attach, "token"),
    "export.delete": (_export, lambda w, export: w.testapp.delete(
        _self(export), headers=w.h), "client"),
}


def count(db):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(Activity))


def test_every_registered_write_operation_has_a_scenario():
    """A write operation added without a scenario here fails (and so cannot go unrecorded
    unnoticed). Every module of the package is imported first, so every declaration runs.
    Plugins' own operations (``seqcore.plugin.write_operation``) are their tests' to walk."""
    import seqcore

    skipped = ("seqcore.testing", "seqcore.migrations")
    for module in pkgutil.walk_packages(seqcore.__path__, "seqcore."):
        if not module.name.startswith(skipped):
            importlib.import_module(module.name)
    core = {kind for kind, op in OPERATIONS.items()
            if op.function.__module__.startswith("seqcore.")}
    assert core == set(SCENARIOS)


@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_each_write_operation_leaves_exactly_one_record(world, kind):
    setup, write, actor = SCENARIOS[kind]
    arg = setup(world) if setup else None
    before = count(world.db)
    high = world.db.scalar(select(func.max(Activity.id))) or 0
    write(world) if setup is None else write(world, arg)
    assert count(world.db) == before + 1
    record = world.db.scalars(select(Activity).where(Activity.id > high)).one()
    assert (record.kind, record.actor_type) == (kind, actor)
    if actor in ("client", "token"):
        expected = world.uploader if kind.startswith("run.") and kind != "run.delete" else (
            world.admin if kind == "run.delete" else world.owner)
        assert record.actor_user_id == expected.id
    if actor == "analysis":
        assert record.actor_submission_id == 7


def test_a_failed_write_leaves_no_record(world):
    before = count(world.db)
    # a validation failure, a conflict, a permission refusal, a failure after a first write
    world.testapp.put_json(f"/api/samples/{world.sample.id}/metadata",
                           {"ok": {"value": "1"}, "bad": {"value": [1]}}, headers=world.h,
                           status=400)
    world.testapp.post_json(f"/api/projects/{world.project.id}/samples",
                            {"sampleName": "SAM-1"}, headers=world.h, status=409)
    world.testapp.patch_json(f"/api/projects/{world.project.id}", {"name": "Nope nope"},
                             headers=world.factories.headers(world.member), status=403)
    world.testapp.post_json(f"/api/projects/{world.project.id}/metadataFields",
                            {"name": "host", "type": "number"}, headers=world.h)
    after_field = count(world.db)
    data = world.gql("""mutation($p: ID!, $m: JSON!) {
        bulkUpdateSampleMetadata(input: {projectId: $p, metadata: $m}) {
            errors { message } } }""",
                     {"p": gid("Project", world.project.id),
                      "m": {"SAM-1": {"host": "not a number"}, "nosuch": {"a": "2"}}})
    assert data["bulkUpdateSampleMetadata"]["errors"]
    world.testapp.put_json(f"/api/samples/{world.sample.id}/metadata",
                           {"host": {"value": "not a number"}}, headers=world.h, status=400)
    assert count(world.db) == after_field == before + 1


def test_the_trail_refuses_update_and_delete(world, db):
    world.testapp.patch_json(f"/api/samples/{world.sample.id}", {"strain": "ST1x"},
                             headers=world.h)
    for statement in ("UPDATE activity SET kind = 'x'", "DELETE FROM activity",
                      "UPDATE activity_subject SET sample_id = 0",
                      "DELETE FROM activity_subject"):
        with pytest.raises(DBAPIError, match="append-only"), db.begin_nested():
            db.execute(text(statement))
    db.rollback()
    assert count(db) == 1


def test_project_activity_and_sample_history_over_rest(world):
    w = world
    for strain in ("A1a", "B2b", "C3c"):
        w.testapp.patch_json(f"/api/samples/{w.sample.id}", {"strain": strain}, headers=w.h)
    w.testapp.put_json(f"/api/samples/{w.sample.id}/metadata", {"host": {"value": "cow"}},
                       headers=w.h)
    body = w.testapp.get(f"/api/samples/{w.sample.id}/history?limit=2",
                         headers=w.h).json["resource"]
    first = body["resources"]
    assert [e["kind"] for e in first] == ["metadata.update", "sample.update"]
    assert first[0]["changes"] == [{"on": "metadata", "sample": w.sample.id, "field": "host",
                                    "before": "human", "after": "cow", "provenance": None}]
    assert first[1]["changes"][0]["values"]["strain"] == {"before": "B2b", "after": "C3c"}
    assert first[0]["actor"]["userId"] == w.owner.id
    nxt = next(link["href"] for link in body["links"] if link["rel"] == "next")
    rest = w.testapp.get(nxt, headers=w.h).json["resource"]["resources"]
    assert [e["kind"] for e in rest] == ["sample.update", "sample.update"]
    kinds = w.testapp.get(f"/api/projects/{w.project.id}/activity?kind=metadata",
                          headers=w.h).json["resource"]["resources"]
    assert [e["kind"] for e in kinds] == ["metadata.update"]
    later = w.testapp.get(f"/api/projects/{w.project.id}/activity?since=4102444800000",
                          headers=w.h).json["resource"]["resources"]
    assert later == []
    for bad in ("limit=0", "since=yesterday", "before=x", "kind="):
        w.testapp.get(f"/api/projects/{w.project.id}/activity?{bad}", headers=w.h,
                      status=400)


def test_the_trail_hides_restricted_fields(world):
    w = world
    w.db.add(MetadataField(project_id=w.project.id, name="patient", restriction="LEVEL_3"))
    w.db.commit()
    w.testapp.put_json(f"/api/samples/{w.sample.id}/metadata",
                       {"patient": {"value": "Jane"}, "host": {"value": "cow"}}, headers=w.h)
    member = w.factories.headers(w.member)
    for url in (f"/api/samples/{w.sample.id}/history",
                f"/api/projects/{w.project.id}/activity"):
        mine = w.testapp.get(url, headers=member).json["resource"]["resources"]
        assert [c.get("field") for c in mine[0]["changes"]] == ["host"]
        owners = w.testapp.get(url, headers=w.h).json["resource"]["resources"]
        assert sorted(c.get("field") for c in owners[0]["changes"]) == ["host", "patient"]
    w.graphql.as_user(w.member)
    data = w.graphql("""query($s: ID!) { node(id: $s) { ... on Sample {
        activities(first: 5) { kind actor changes } metadataProvenance } } }""",
                     {"s": gid("Sample", w.sample.id)})["data"]["node"]
    assert [c["field"] for c in data["activities"][0]["changes"]] == ["host"]
    assert "patient" not in data["metadataProvenance"]
    assert data["metadataProvenance"]["host"]["id"] == w.owner.id


def test_graphql_project_activities(world):
    w = world
    w.testapp.patch_json(f"/api/projects/{w.project.id}", {"name": "Renamed again"},
                         headers=w.h)
    data = w.gql("""query($p: ID!) { node(id: $p) { ... on Project {
        activities(kinds: ["project"]) { id kind createdAt actor changes } } } }""",
                 {"p": gid("Project", w.project.id)})
    entries = data["node"]["activities"]
    assert [e["kind"] for e in entries] == ["project.update"]
    assert entries[0]["actor"]["type"] == "client"
    assert entries[0]["changes"][0]["values"]["name"]["after"] == "Renamed again"


def test_analysis_provenance_in_the_metadata_answer(world):
    from seqcore.analysis.results import write_metadata

    write_metadata(world.db, world.sample.id, {"st": "19"}, SimpleNamespace(id=7))
    world.db.commit()
    body = world.testapp.get(f"/api/samples/{world.sample.id}/metadata",
                             headers=world.h).json["resource"]
    assert body["metadataProvenance"]["st"]["source"] == "analysis"
    assert body["metadataProvenance"]["st"]["id"] == 7
    assert SequencingObject  # the model module stays imported for the scenarios


def _subjects(db, record):
    return ({s.project_id for s in record.subjects if s.project_id is not None},
            {s.sample_id for s in record.subjects if s.sample_id is not None})


def _last(db, kind):
    db.expire_all()
    return db.scalars(select(Activity).where(Activity.kind == kind)
                      .order_by(Activity.id.desc())).first()


def test_group_and_attachment_records_name_what_they_concern(world):
    """A group's own writes concern no project: the group is named in the changes. A share
    of a project concerns that project; an attachment concerns its sample or project (its
    download key, a secret, is never written)."""
    w = world
    group = w.testapp.post_json("/api/groups", {"name": "Lab"}, headers=w.h).json["resource"]
    created = _last(w.db, "group.create")
    assert _subjects(w.db, created) == (set(), set())
    assert created.actor_user_id == w.owner.id
    assert {(c["on"], c["values"].get("group_id")) for c in created.changes
            if c["on"] == "groupMember"} == {("groupMember", int(group["identifier"]))}
    w.testapp.post_json(f"/api/projects/{w.project.id}/shares",
                        {"groupId": int(group["identifier"]), "accessLevel": "GUEST"},
                        headers=w.h)
    assert _subjects(w.db, _last(w.db, "groupShare.create")) == ({w.project.id}, set())
    listed = w.testapp.get(f"/api/projects/{w.project.id}/activity", headers=w.h).json
    assert "groupShare.create" in json.dumps(listed)

    _attach(w, _blob(w))
    record = _last(w.db, "attachment.add")
    assert _subjects(w.db, record) == ({w.project.id}, {w.sample.id})
    assert {c["on"] for c in record.changes} >= {"attachment", "sequencingObject"}
    assert "download_key" not in json.dumps(record.changes)
    _attach(w, _blob(w, "notes.txt", b"hello\n"), "Project", w.project.id)
    assert _subjects(w.db, _last(w.db, "attachment.add")) == ({w.project.id}, set())
    _attach(w, _blob(w, "lab.txt", b"lab\n"), "Group", int(group["identifier"]))
    record = _last(w.db, "attachment.add")
    assert _subjects(w.db, record) == (set(), set())
    assert record.changes[0]["values"]["group_id"] == int(group["identifier"])
