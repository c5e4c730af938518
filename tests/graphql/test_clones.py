"""``copySamples`` clones, as IRIDA Next's ``CloneSamples``: a new sample with a new PUID, the
metadata the caller reads (with its provenance) and the files, whose stored bytes the clone
references rather than copies; each sample on its own, errors beside the clones."""

from pathlib import Path

import pytest
from sqlalchemy import func, select

from seqcore.models.attachment import Attachment
from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import QCRecord, SequenceFile, SequencingObject
from seqcore.testing.uploads import direct_upload, fastq
from tests.graphql.conftest import gid

COPY = """mutation($input: CloneSamplesInput!) { copySamples(input: $input) {
  samples errors { message path } } }"""
ATTACH = """mutation($files: [String!]!, $sampleId: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId}) { errors { message } } }"""
SAMPLE = """query($id: ID!) { node(id: $id) { ... on Sample {
  id puid name description metadata project { id }
  attachments { nodes { puid filename metadata attachmentUrl } } } } }"""
UPDATE = """mutation($input: UpdateSampleMetadataInput!) { updateSampleMetadata(input: $input) {
  errors { message } } }"""


@pytest.fixture
def lab(factories, graphql, testapp, db):
    """``owner`` owns ``Source`` (its sample ``S-1`` has metadata, attached files (a FASTQ pair
    and notes) and an uploaded pair with its QC report) and ``Target``."""
    owner = factories.user(username="owner")
    source = factories.project(owner=owner, name="Source")
    target = factories.project(owner=owner, name="Target")
    sample = factories.sample(source, name="S-1", description="First isolate",
                              organism="Salmonella enterica")
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {"serotype": {"value": "Enteritidis"}, "age": {"value": "40"}},
                     headers=factories.headers(owner))
    graphql.as_user(owner)
    blobs = [direct_upload(testapp, graphql, name, data) for name, data in (
        ("x_S1_L001_R1_001.fastq", fastq(seed=1)), ("x_S1_L001_R2_001.fastq", fastq(seed=2)),
        ("notes.txt", b"isolated in March\n"))]
    assert graphql(ATTACH, {"files": blobs, "sampleId": gid("Sample", sample.id)}
                   )["data"]["attachFilesToSample"]["errors"] == []
    factories.sequencing_object(sample, "pairs", qc={"totalSequences": 20})
    return dict(owner=owner, source=source, target=target, sample=sample)


def stored(app_config):
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    return sorted(p for p in root.rglob("*") if p.is_file())


def clone(graphql, source, target, *samples):
    return graphql(COPY, {"input": {"projectId": gid("Project", source.id),
                                    "newProjectId": gid("Project", target.id),
                                    "sampleIds": [gid("Sample", s.id) for s in samples]}}
                   )["data"]["copySamples"]


def pk(global_id):
    return int(global_id.rsplit("/", 1)[1])


def downloads(graphql, testapp, factories, user, sample_id):
    """Every file of the sample as its reader downloads it: attachments by their URL,
    sequence files over REST; ``{file name: bytes}``."""
    graphql.as_user(user)
    node = graphql(SAMPLE, {"id": gid("Sample", sample_id)})["data"]["node"]
    got = {f"attachment {a['filename']}": testapp.get(
        a["attachmentUrl"].replace("http://localhost", "")).body
        for a in node["attachments"]["nodes"]}
    headers = {**factories.headers(user), "Accept": "application/fastq"}
    for obj in testapp.get(f"/api/samples/{sample_id}/pairs",
                           headers=factories.headers(user)).json["resource"]["resources"]:
        for end in ("forwardSequenceFile", "reverseSequenceFile"):
            href = obj[end]["links"][0]["href"].replace("http://localhost", "")
            got.setdefault(f"pair {obj[end]['fileName']}", b"")
            got[f"pair {obj[end]['fileName']}"] += testapp.get(href, headers=headers).body
    return got


def test_a_clone_is_a_new_sample_with_the_metadata_and_the_same_stored_files(
        graphql, testapp, factories, lab, db, app_config):
    original = lab["sample"]
    before = stored(app_config)
    files_before = downloads(graphql, testapp, factories, lab["owner"], original.id)
    # Three attachments; over REST, the attached pair and the uploaded one (two files each).
    assert len(files_before) == 7
    payload = clone(graphql, lab["source"], lab["target"], original)
    assert payload["errors"] == []
    [pair] = payload["samples"]
    assert pair["original"] == gid("Sample", original.id) and pair["copy"] != pair["original"]
    copy_id = pk(pair["copy"])
    # A new sample, owned by the target only; the original stays in the source only.
    assert sorted((j.project_id, j.owner) for j in db.scalars(select(ProjectSample).where(
        ProjectSample.sample_id == copy_id))) == [(lab["target"].id, True)]
    assert [j.project_id for j in db.scalars(select(ProjectSample).where(
        ProjectSample.sample_id == original.id))] == [lab["source"].id]
    nodes = {key: graphql(SAMPLE, {"id": gid("Sample", key)})["data"]["node"]
             for key in (original.id, copy_id)}
    first, second = nodes[original.id], nodes[copy_id]
    assert second["puid"].startswith("INXT_SAM_") and second["puid"] != first["puid"]
    assert (second["name"], second["description"]) == ("S-1", "First isolate")
    assert db.get(Sample, copy_id).organism == "Salmonella enterica"
    assert second["project"]["id"] == gid("Project", lab["target"].id)
    assert second["metadata"] == first["metadata"] == {"serotype": "Enteritidis", "age": "40"}
    # Each value keeps its provenance: who wrote it, when.
    provenance = {key: sorted(db.execute(select(
        MetadataEntry.field, MetadataEntry.writer_id, MetadataEntry.created).where(
        MetadataEntry.sample_id == key)).all()) for key in (original.id, copy_id)}
    assert provenance[copy_id] == provenance[original.id]
    assert {row[1] for row in provenance[copy_id]} == {lab["owner"].id}
    # The attachments, with new PUIDs, the same metadata (a pair's partner is the clone's).
    attached = {key: {a["filename"]: a for a in nodes[key]["attachments"]["nodes"]}
                for key in (original.id, copy_id)}
    assert attached[copy_id].keys() == attached[original.id].keys()
    for name, attachment in attached[copy_id].items():
        assert attachment["puid"] != attached[original.id][name]["puid"]
        assert (attachment["metadata"].keys() == attached[original.id][name]["metadata"].keys())
    partners = {a.id: a.properties.get("associated_attachment_id")
                for a in db.scalars(select(Attachment).where(Attachment.sample_id == copy_id))}
    assert {p for p in partners.values() if p is not None} <= set(partners)
    # The sequencing objects (the attached pair and the uploaded one), their QC reports.
    objects = list(db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == copy_id)))
    assert sorted(o.kind for o in objects) == ["pairs", "pairs"]
    assert db.scalar(select(func.count()).select_from(QCRecord).join(
        SequenceFile, SequenceFile.id == QCRecord.file_id).where(
        SequenceFile.id.in_([f.id for o in objects for f in o.files]))) == 2
    # The same bytes, downloaded from the clone; none stored twice.
    assert downloads(graphql, testapp, factories, lab["owner"], copy_id) == files_before
    assert stored(app_config) == before


def test_editing_the_clone_leaves_the_original(graphql, testapp, factories, lab, db):
    payload = clone(graphql, lab["source"], lab["target"], lab["sample"])
    copy_id = pk(payload["samples"][0]["copy"])
    assert graphql(UPDATE, {"input": {"sampleId": gid("Sample", copy_id),
                                      "metadata": {"serotype": "Typhimurium", "age": ""}}}
                   )["data"]["updateSampleMetadata"]["errors"] == []
    testapp.patch_json(f"/api/samples/{copy_id}", {"sampleName": "S-1-clone"},
                       headers=factories.headers(lab["owner"]))
    values = {key: dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == key)).all()) for key in (lab["sample"].id, copy_id)}
    assert values == {lab["sample"].id: {"serotype": "Enteritidis", "age": "40"},
                      copy_id: {"serotype": "Typhimurium"}}
    db.expire_all()
    assert db.get(Sample, lab["sample"].id).name == "S-1"
    assert db.get(Sample, copy_id).name == "S-1-clone"


@pytest.mark.parametrize("first", ["original", "clone"])
def test_deleting_either_side_keeps_the_others_files_and_both_removes_them(
        graphql, testapp, factories, lab, db, app_config, first):
    before = stored(app_config)
    files = downloads(graphql, testapp, factories, lab["owner"], lab["sample"].id)
    payload = clone(graphql, lab["source"], lab["target"], lab["sample"])
    sides = {"original": (lab["source"].id, lab["sample"].id),
             "clone": (lab["target"].id, pk(payload["samples"][0]["copy"]))}
    second = "clone" if first == "original" else "original"
    headers = factories.headers(lab["owner"])
    testapp.delete("/api/projects/{}/samples/{}".format(*sides[first]), headers=headers)
    assert db.get(Sample, sides[first][1]) is None
    assert stored(app_config) == before
    assert downloads(graphql, testapp, factories, lab["owner"], sides[second][1]) == files
    testapp.delete("/api/projects/{}/samples/{}".format(*sides[second]), headers=headers)
    assert stored(app_config) == []
    assert db.scalar(select(func.count()).select_from(SequenceFile)) == 0


def test_each_sample_on_its_own_with_errors_beside_the_clones(graphql, factories, lab, db):
    source, target = lab["source"], lab["target"]
    good = factories.sample(source, name="good", metadata={"host": "cow"})
    clash = factories.sample(source, name="clash")
    factories.sample(target, name="clash")
    elsewhere = factories.sample(target, name="elsewhere")
    # A sample the caller may not read is not found, as one that does not exist.
    theirs = factories.sample(factories.project(owner=factories.user(username="outsider")),
                              name="theirs")
    samples_before = db.scalar(select(func.count()).select_from(Sample))
    ids = [gid("Sample", s.id) for s in (good, clash, elsewhere, theirs)] + [
        gid("Sample", 999999)]
    payload = graphql(COPY, {"input": {"projectId": gid("Project", source.id),
                                       "newProjectId": gid("Project", target.id),
                                       "sampleIds": ids}})["data"]["copySamples"]
    assert [p["original"] for p in payload["samples"]] == [ids[0]]
    assert sorted(payload["errors"], key=lambda e: e["path"]) == sorted([
        {"message": "A sample named clash already exists in project Target.",
         "path": ["samples", ids[1]]},
        {"message": "Sample elsewhere is not in project Source.",
         "path": ["samples", ids[2]]},
        {"message": "Sample not found by provided ID", "path": ["samples", ids[3]]},
        {"message": "Sample not found by provided ID", "path": ["samples", ids[4]]},
    ], key=lambda e: e["path"])
    assert db.scalar(select(func.count()).select_from(Sample)) == samples_before + 1
    copy_id = pk(payload["samples"][0]["copy"])
    assert dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == copy_id)).all()) == {"host": "cow"}
    # Nothing cloned at all: samples is empty, the errors say why.
    again = clone(graphql, source, target, clash)
    assert again["samples"] == [] and len(again["errors"]) == 1


def test_fields_the_caller_cannot_read_are_not_copied(graphql, testapp, factories, db):
    owner = factories.user(username="owner")
    reader = factories.user(username="reader")
    source = factories.project(owner=owner, name="Source",
                               members=[(reader, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=source.id, name="secret", restriction="LEVEL_4"))
    db.commit()
    mine = factories.project(owner=reader, name="Mine")
    sample = factories.sample(source, name="S-1")
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {"secret": {"value": "hidden"}, "open": {"value": "seen"}},
                     headers=factories.headers(owner))
    graphql.as_user(reader)
    payload = clone(graphql, source, mine, sample)
    assert payload["errors"] == []
    copy_id = pk(payload["samples"][0]["copy"])
    assert dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == copy_id)).all()) == {"open": "seen"}


def test_a_clone_that_would_reveal_a_restricted_value_is_refused(graphql, testapp, factories,
                                                                  db):
    """The owner reads the restricted field; cloning it into a project where a member
    would read it, while the source keeps it from them, is refused (nothing cloned)."""
    owner = factories.user(username="owner")
    colleague = factories.user(username="colleague")
    source = factories.project(owner=owner, name="Source",
                               members=[(colleague, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=source.id, name="secret", restriction="LEVEL_4"))
    db.commit()
    target = factories.project(owner=owner, name="Target",
                               members=[(colleague, ProjectRole.USER, "LEVEL_1")])
    sample = factories.sample(source, name="S-1")
    testapp.put_json(f"/api/samples/{sample.id}/metadata", {"secret": {"value": "hidden"}},
                     headers=factories.headers(owner))
    samples_before = db.scalar(select(func.count()).select_from(Sample))
    graphql.as_user(owner)
    payload = clone(graphql, source, target, sample)
    assert payload["samples"] == []
    [error] = payload["errors"]
    assert error["message"].startswith(
        "Cloning sample S-1 would let 1 account(s) read the field(s) secret,")
    assert error["path"] == ["samples", gid("Sample", sample.id)]
    assert db.scalar(select(func.count()).select_from(Sample)) == samples_before
    # Once the target restricts the field as the source does, the clone goes through.
    db.add(MetadataField(project_id=target.id, name="secret", restriction="LEVEL_4"))
    db.commit()
    assert clone(graphql, source, target, sample)["errors"] == []


def test_who_may_clone(graphql, factories, lab, db):
    """Reading the source and each sample, creating samples in the target: a caller
    without rights on the target gets an error and nothing changes."""
    member = factories.user(username="member")
    outsider = factories.user(username="outsider")
    theirs = factories.project(owner=outsider, name="Theirs")
    readable = factories.project(owner=outsider, name="Readable",
                                 members=[(member, ProjectRole.USER)])
    source = factories.project(owner=lab["owner"], name="Their source",
                               members=[(member, ProjectRole.USER)])
    sample = factories.sample(source, name="M-1", metadata={"a": "b"})
    counts = (db.scalar(select(func.count()).select_from(Sample)),
              db.scalar(select(func.count()).select_from(Attachment)))
    graphql.as_user(member)
    # A target the caller cannot read is not found; one it reads but may not add to says so.
    assert clone(graphql, source, theirs, sample)["errors"] == [
        {"message": "Project not found by provided ID", "path": ["new_project"]}]
    assert clone(graphql, source, readable, sample)["errors"] == [
        {"message": "You are not authorized to copy samples into project Readable.",
         "path": ["new_project"]}]
    # A source (and its samples) the caller cannot read is not found either.
    graphql.as_user(outsider)
    assert clone(graphql, lab["source"], theirs, lab["sample"])["errors"] == [
        {"message": "Project not found by provided ID", "path": ["project"]}]
    assert (db.scalar(select(func.count()).select_from(Sample)),
            db.scalar(select(func.count()).select_from(Attachment))) == counts


def test_the_trash_keeps_bytes_a_trashed_clone_may_take_back(graphql, testapp, factories, lab,
                                                              db, app_config, build_app):
    """With retention, the original and then its clone go to the trash; the original's
    entry expiring first keeps the bytes the clone's entry still holds, so the clone comes
    back whole; once the clone is deleted for good the bytes go."""
    from datetime import timedelta

    from sqlalchemy import update

    from seqcore.db import utcnow
    from seqcore.governance.trash import TrashWorker
    from seqcore.models.trash import TrashEntry

    # The trash keeps sequencing objects (restored with their files), not attachments.
    files = {name: data for name, data in downloads(
        graphql, testapp, factories, lab["owner"], lab["sample"].id).items()
        if name.startswith("pair ")}
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    paths = {root / f.path for o in db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == lab["sample"].id)) for f in o.files}
    payload = clone(graphql, lab["source"], lab["target"], lab["sample"])
    copy_id = pk(payload["samples"][0]["copy"])
    app = build_app(**{"seqcore.retention.days": "7"})
    headers = factories.headers(lab["owner"])
    app.delete(f"/api/projects/{lab['source'].id}/samples/{lab['sample'].id}", headers=headers)
    app.delete(f"/api/projects/{lab['target'].id}/samples/{copy_id}", headers=headers)
    entries = {e.sample_id: e.id for e in db.scalars(select(TrashEntry))}
    db.execute(update(TrashEntry).where(TrashEntry.id == entries[copy_id]).values(
        expires=utcnow() + timedelta(days=30)))
    db.commit()
    worker = TrashWorker(app_config.registry)
    assert worker.run_once(now=utcnow() + timedelta(days=8)) == 1  # the original's entry
    app.post(f"/api/projects/{lab['target'].id}/trash/{entries[copy_id]}/restore",
             headers=headers)
    assert {name: data for name, data in downloads(
        graphql, testapp, factories, lab["owner"], copy_id).items()
        if name.startswith("pair ")} == files
    app.delete(f"/api/projects/{lab['target'].id}/samples/{copy_id}", headers=headers)
    assert all(path.exists() for path in paths)
    assert worker.run_once(now=utcnow() + timedelta(days=40)) == 1
    assert not any(path.exists() for path in paths)


def test_bytes_a_trashed_clone_keeps_survive_the_originals_deletion(
        graphql, testapp, factories, lab, db, app_config, build_app):
    """A clone in the trash may come back: deleting its original for good (here on an
    install without retention, which removes bytes at once) leaves the bytes the clone's
    entry holds, and the restored clone reads them whole."""
    files = {name: data for name, data in downloads(
        graphql, testapp, factories, lab["owner"], lab["sample"].id).items()
        if name.startswith("pair ")}
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    paths = {root / f.path for o in db.scalars(select(SequencingObject).where(
        SequencingObject.sample_id == lab["sample"].id)) for f in o.files}
    copy_id = pk(clone(graphql, lab["source"], lab["target"], lab["sample"])["samples"][0][
        "copy"])
    keeping = build_app(**{"seqcore.retention.days": "7"})
    headers = factories.headers(lab["owner"])
    keeping.delete(f"/api/projects/{lab['target'].id}/samples/{copy_id}", headers=headers)
    testapp.delete(f"/api/projects/{lab['source'].id}/samples/{lab['sample'].id}",
                   headers=headers)
    assert all(path.exists() for path in paths)
    from seqcore.models.trash import TrashEntry

    entry = db.scalar(select(TrashEntry).where(TrashEntry.sample_id == copy_id))
    keeping.post(f"/api/projects/{lab['target'].id}/trash/{entry.id}/restore", headers=headers)
    assert {name: data for name, data in downloads(
        graphql, testapp, factories, lab["owner"], copy_id).items()
        if name.startswith("pair ")} == files
