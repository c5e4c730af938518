"""Data exports through REST: a bundle unpacks to exactly its manifest, downloads resume with
ranges, exports expire and are purged, bad selections are refused with every problem and
nothing stored, and only the requester (while a member) and administrators see one."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import zipfile
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from seqcore.db import utcnow
from seqcore.exports.worker import ExportWorker
from seqcore.models.export import DataExport
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.models.user import SystemRole
from seqcore.testing.uploads import fastq


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def member(factories):
    return factories.user(username="member")


@pytest.fixture
def project(factories, owner, member):
    return factories.project(owner=owner, members=[(member, ProjectRole.USER)])


@pytest.fixture
def world(factories, project, owner, upload_reads, run_analysis):
    """Two samples with metadata: one with a gzipped pair, one with a single-end file; a
    completed read-count analysis of both."""
    headers = factories.headers(owner)
    first = factories.sample(project, name="SAL 1/é", metadata={
        "serotype": "Typhimurium", "city": "=HYPERLINK(1)"})
    second = factories.sample(project, name="SAL-2", metadata={"serotype": "Enteritidis"})
    pair = upload_reads(first, headers, kind="pairs", files=[
        ("s1_R1.fastq.gz", gzip.compress(fastq(seed=1), 1)),
        ("s1_R2.fastq.gz", gzip.compress(fastq(seed=2), 1))])
    single = upload_reads(second, headers, kind="unpaired")
    analysis = run_analysis("readcount", [pair.id, single.id], headers)
    assert analysis.state == "COMPLETED", analysis.error
    return {"headers": headers, "samples": [first, second], "pair": pair, "single": single,
            "analysis": analysis}


def url(project):
    return f"/api/projects/{project.id}/exports"


def build(app_config):
    return ExportWorker(app_config.registry, "test-worker").run_once()


def count(db):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(DataExport))


def make(testapp, project, headers, **body):
    return testapp.post_json(url(project), body, headers=headers, status=201).json["resource"]


def links(resource):
    return {link["rel"]: link["href"] for link in resource["links"]}


def test_an_export_unpacks_to_exactly_its_manifest(testapp, app_config, factories, project,
                                                   world, db):
    headers = world["headers"]
    first, second = world["samples"]
    created = make(testapp, project, headers, name="For the partner lab",
                   samples=[first.id, second.id], analyses=[world["analysis"].id])
    assert created["state"] == "QUEUED" and created["status"] == "processing"
    assert "export/download" not in links(created)
    location = links(created)["self"]
    res = testapp.get(location + "/download", headers=headers, status=409)
    assert "being prepared" in res.json["message"]

    assert build(app_config) == 1
    export = testapp.get(location, headers=headers).json["resource"]
    assert export["state"] == "READY" and export["status"] == "ready"
    assert export["expiresDate"] - export["readyDate"] == 72 * 3600 * 1000
    download = links(export)["export/download"]
    body = testapp.get(download, headers=headers).body
    assert len(body) == export["size"]

    manifest = {entry["path"]: entry for entry in export["manifest"]}
    with zipfile.ZipFile(io.BytesIO(body)) as bundle:
        assert bundle.testzip() is None
        top = f"seqcore-export-{export['identifier']}"
        names = bundle.namelist()
        assert names[-1] == f"{top}/manifest.json"
        assert set(names) == set(manifest) | {f"{top}/manifest.json"}
        inside = {entry["path"]: entry for entry in
                  __import__("json").loads(bundle.read(f"{top}/manifest.json"))["entries"]}
        assert inside == manifest
        for name, entry in manifest.items():
            data = bundle.read(name)
            assert len(data) == entry["size"]
            assert hashlib.sha256(data).hexdigest() == entry["sha256"]
            info = bundle.getinfo(name)
            expected = zipfile.ZIP_STORED if name.endswith(".gz") else zipfile.ZIP_DEFLATED
            assert info.compress_type == expected, name
        kinds = sorted(name.split("/")[3] for name in names if "/samples/" in name)
        assert kinds == ["pairs", "pairs", "unpaired"]
        pair_files = sorted(name for name in names if "/pairs/" in name)
        assert [name.rsplit("/", 1)[1] for name in pair_files] == [
            "s1_R1.fastq.gz", "s1_R2.fastq.gz"]
        assert f"{top}/samples/{first.puid}_SAL_1/" in pair_files[0]
        assert gzip.decompress(bundle.read(pair_files[0])) == fastq(seed=1)
        outputs = [name for name in names if "/analyses/" in name]
        assert outputs and all(name.startswith(
            f"{top}/analyses/{world['analysis'].id}_") for name in outputs)
        rows = list(csv.reader(io.StringIO(bundle.read(f"{top}/linelist.csv").decode())))
    assert rows[0][:3] == ["SAMPLE ID", "SAMPLE NAME", "PROJECT ID"]
    header = rows[0]
    assert header[3:] == ["city", "serotype"]
    by_name = {row[1]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert by_name["SAL 1/é"]["serotype"] == "Typhimurium"
    assert by_name["SAL 1/é"]["city"] == "'=HYPERLINK(1)"  # never run as a formula
    assert by_name["SAL-2"]["SAMPLE ID"] == second.puid
    assert by_name["SAL-2"]["city"] == ""

    listed = testapp.get(url(project), headers=headers).json["resource"]["resources"]
    assert [item["identifier"] for item in listed] == [export["identifier"]]
    assert "manifest" not in listed[0]
    mine = testapp.get("/api/exports", headers=headers).json["resource"]["resources"]
    assert [item["identifier"] for item in mine] == [export["identifier"]]
    project_links = links(testapp.get(f"/api/projects/{project.id}",
                                      headers=headers).json["resource"])
    assert project_links["project/exports"].endswith(url(project))
    assert count(db) == 1


def test_a_selection_of_kinds_outputs_and_columns(testapp, app_config, project, world):
    headers = world["headers"]
    first, second = world["samples"]
    analysis = world["analysis"].id
    outputs = testapp.get(f"/api/analysisSubmissions/{analysis}/analysis",
                          headers=headers).json["resource"]
    keys = sorted({link["rel"].split("/", 1)[1] for link in outputs["links"]
                   if link["rel"].startswith("outputFile/")})
    created = make(testapp, project, headers, samples=[second.id, first.id],
                   fileKinds=["unpaired"], analyses=[analysis], analysisOutputs=[keys[0]],
                   metadataFields=["serotype", "nothing here"])
    build(app_config)
    export = testapp.get(links(created)["self"], headers=headers).json["resource"]
    paths = [entry["path"] for entry in export["manifest"]]
    assert not any("/pairs/" in path for path in paths)
    assert sum("/unpaired/" in path for path in paths) == 1
    assert sum("/analyses/" in path for path in paths) == 1
    body = testapp.get(links(export)["export/download"], headers=headers).body
    with zipfile.ZipFile(io.BytesIO(body)) as bundle:
        name = next(n for n in bundle.namelist() if n.endswith("linelist.csv"))
        rows = list(csv.reader(io.StringIO(bundle.read(name).decode())))
    assert rows == [["SAMPLE ID", "SAMPLE NAME", "PROJECT ID", "serotype", "nothing here"],
                    [second.puid, "SAL-2", project.puid, "Enteritidis", ""],
                    [first.puid, "SAL 1/é", project.puid, "Typhimurium", ""]]


def test_downloads_resume_with_ranges(testapp, app_config, project, world):
    headers = world["headers"]
    created = make(testapp, project, headers, samples=[s.id for s in world["samples"]])
    build(app_config)
    download = links(created)["self"] + "/download"
    whole = testapp.get(download, headers=headers)
    assert whole.headers["Accept-Ranges"] == "bytes"
    assert whole.headers["Content-Type"] == "application/zip"
    assert 'filename="seqcore-export-' in whole.headers["Content-Disposition"]
    etag = whole.headers["ETag"]
    size = len(whole.body)

    first = testapp.get(download, headers={**headers, "Range": "bytes=0-99"}, status=206)
    assert first.body == whole.body[:100]
    assert first.headers["Content-Range"] == f"bytes 0-99/{size}"
    rest = testapp.get(download, headers={**headers, "Range": "bytes=100-",
                                          "If-Range": etag}, status=206)
    assert first.body + rest.body == whole.body
    tail = testapp.get(download, headers={**headers, "Range": "bytes=-10"}, status=206)
    assert tail.body == whole.body[-10:]
    stale = testapp.get(download, headers={**headers, "Range": "bytes=100-",
                                           "If-Range": '"something-else"'}, status=200)
    assert stale.body == whole.body
    beyond = testapp.get(download, headers={**headers, "Range": f"bytes={size}-"},
                         status=416)
    assert beyond.headers["Content-Range"] == f"bytes */{size}"
    testapp.get(download, headers={**headers, "If-None-Match": etag}, status=304)
    head = testapp.head(download, headers=headers, status=200)
    assert int(head.headers["Content-Length"]) == size


def test_expired_exports_are_purged(testapp, app_config, project, world, db):
    headers = world["headers"]
    created = make(testapp, project, headers, samples=[world["samples"][1].id])
    build(app_config)
    db.expire_all()
    export = db.get(DataExport, int(created["identifier"]))
    stored = app_config.registry.settings["seqcore.storage.path"] + "/" + export.path
    assert __import__("os").path.isfile(stored)
    db.execute(update(DataExport).where(DataExport.id == export.id).values(
        expires_at=utcnow() - timedelta(seconds=1)))
    db.commit()
    assert build(app_config) == 1
    resource = testapp.get(links(created)["self"], headers=headers).json["resource"]
    assert resource["state"] == "EXPIRED" and resource["status"] == "expired"
    assert "export/download" not in links(resource)
    assert not __import__("os").path.exists(stored)
    testapp.get(links(created)["self"] + "/download", headers=headers, status=404)
    assert build(app_config) == 0  # nothing left to purge


def test_the_expiry_is_a_setting(build_app, factories, project, owner):
    client = build_app(**{"seqcore.exports.expire_hours": "0.5"})
    sample = factories.sample(project)
    factories.sequencing_object(sample, kind="unpaired")
    headers = factories.headers(owner)
    created = client.post_json(url(project), {"samples": [sample.id]}, headers=headers,
                               status=201).json["resource"]
    ExportWorker(client.app.app.registry, "w").run_once()
    export = client.get(links(created)["self"], headers=headers).json["resource"]
    assert export["expiresDate"] - export["readyDate"] == 1800 * 1000


def test_bad_selections_are_refused_with_every_problem(testapp, factories, project, world,
                                                       owner, db, run_analysis):
    headers = world["headers"]
    other = factories.project(owner=owner)
    stranger = factories.sample(other)
    running = factories.submission(owner, [], state="RUNNING", projects=[project])
    # Run on the project's reads by someone else and shared with no project of the caller.
    hidden = factories.submission(factories.user(), [world["pair"]], state="COMPLETED")
    res = testapp.post_json(url(project), {
        "name": "",
        "samples": [world["samples"][0].id, stranger.id, "x", world["samples"][0].id],
        "fileKinds": ["pairs", "reads"],
        "analyses": [running.id, hidden.id, 999999],
        "analysisOutputs": ["nope"],
        "metadataFields": ["ok", "", "ok"],
        "metadataTemplate": 7,
    }, headers=headers, status=400).json
    assert set(res) == {"name", "samples", "fileKinds", "analyses", "metadataFields",
                        "metadataTemplate"}
    assert f"No sample {stranger.id} in project {project.id}." in res["samples"]
    assert "'x' is not a sample id." in res["samples"]
    assert any("listed twice" in message for message in res["samples"])
    assert any("'reads' is not a file kind" in message for message in res["fileKinds"])
    assert any("RUNNING" in message for message in res["analyses"])
    # A hidden analysis reads exactly as one that does not exist.
    assert f"No analysis submission {hidden.id} of project {project.id}." in res["analyses"]
    assert f"No analysis submission 999999 of project {project.id}." in res["analyses"]
    assert "No metadata template 7" in res["metadataTemplate"][0]

    analysis = world["analysis"].id
    res = testapp.post_json(url(project), {"analyses": [analysis],
                                           "analysisOutputs": ["nope"]},
                            headers=headers, status=400).json
    assert "No analysis named has an output 'nope'" in res["analysisOutputs"][0]
    res = testapp.post_json(url(project), {"samples": []}, headers=headers, status=400).json
    assert "at least one sample or one analysis" in res["samples"][0]
    res = testapp.post_json(url(project), {"samples": [1], "format": "xlsx"},
                            headers=headers, status=400).json
    assert "format" in res["message"] and "samples" in res["acceptable-properties"]
    testapp.post_json(url(project), ["not", "an", "object"], headers=headers, status=400)
    testapp.post(url(project), "{", headers={**headers, "Content-Type": "application/json"},
                 status=400)
    assert count(db) == 0


def test_who_may_export_and_read_an_export(testapp, app_config, factories, project, world,
                                           owner, member, db):
    sample = world["samples"][1]
    body = {"samples": [sample.id]}
    outsider = factories.user(username="outsider")
    sequencer = factories.user(SystemRole.SEQUENCER, username="uploader")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    testapp.post_json(url(project), body, headers=factories.headers(outsider), status=404)
    testapp.post_json(url(project), body, headers=factories.headers(sequencer), status=403)
    testapp.post_json(url(project), body, headers=factories.headers(owner, ("read",)),
                      status=403)
    created = make(testapp, project, factories.headers(member), **body)
    assert created["requester"] == str(member.id)
    build(app_config)
    location = links(created)["self"]
    testapp.get(location, headers=factories.headers(member), status=200)
    testapp.get(location + "/download", headers=factories.headers(member), status=200)
    testapp.get(location, headers=factories.headers(admin), status=200)
    # Another member, even an owner, does not see it: an export is its requester's.
    for other in (owner, outsider, sequencer):
        testapp.get(location, headers=factories.headers(other), status=404)
        testapp.get(location + "/download", headers=factories.headers(other), status=404)
        testapp.delete(location, headers=factories.headers(other), status=404)
    assert testapp.get(url(project), headers=factories.headers(owner)).json[
        "resource"]["resources"] == []
    testapp.get(url(project), headers=factories.headers(outsider), status=404)
    # Removed from the project, the requester no longer reads what it exported from it.
    db.execute(update(ProjectMember).where(ProjectMember.user_id == member.id)
               .values(project_id=factories.project(owner=owner).id))
    db.commit()
    testapp.get(location, headers=factories.headers(member), status=404)
    assert testapp.get("/api/exports", headers=factories.headers(member)).json[
        "resource"]["resources"] == []


def test_deleting_an_export_purges_its_bundle(testapp, app_config, project, world, db):
    import os

    headers = world["headers"]
    created = make(testapp, project, headers, samples=[world["samples"][1].id])
    build(app_config)
    db.expire_all()
    stored = os.path.join(app_config.registry.settings["seqcore.storage.path"],
                          db.get(DataExport, int(created["identifier"])).path)
    assert os.path.isfile(stored)
    testapp.delete(links(created)["self"], headers=headers, status=200)
    assert not os.path.exists(stored)
    testapp.get(links(created)["self"], headers=headers, status=404)
    assert count(db) == 0

    # Deleted while it waits: the worker has nothing to build.
    queued = make(testapp, project, headers, samples=[world["samples"][1].id])
    testapp.delete(links(queued)["self"], headers=headers, status=200)
    assert build(app_config) == 0


def test_deleting_the_project_purges_its_exports(testapp, app_config, factories, owner, db):
    import os

    headers = factories.headers(owner)
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    factories.sequencing_object(sample, kind="unpaired")
    created = make(testapp, project, headers, samples=[sample.id])
    build(app_config)
    db.expire_all()
    stored = os.path.join(app_config.registry.settings["seqcore.storage.path"],
                          db.get(DataExport, int(created["identifier"])).path)
    testapp.delete(f"/api/projects/{project.id}", headers=headers, status=200)
    assert not os.path.exists(stored)
    assert count(db) == 0


def test_missing_stored_files_end_in_error(testapp, app_config, project, world, db):
    import os

    from seqcore.models.sequencing import SequenceFile

    headers = world["headers"]
    created = make(testapp, project, headers, samples=[world["samples"][1].id])
    db.expire_all()
    for stored in db.scalars(select(SequenceFile)):
        path = os.path.join(app_config.registry.settings["seqcore.storage.path"], stored.path)
        if stored.file_name == "x.fastq" and os.path.exists(path):
            os.remove(path)
    build(app_config)
    export = testapp.get(links(created)["self"], headers=headers).json["resource"]
    assert export["state"] == "ERROR" and "x.fastq" in export["error"]
    testapp.get(links(created)["self"] + "/download", headers=headers, status=404)


def test_bundles_are_not_stored_files_to_seqcore_check(testapp, app_config, project, world,
                                                       database_url):
    from seqcore.exports.backups import check

    created = make(testapp, project, world["headers"], samples=[world["samples"][1].id])
    build(app_config)
    assert testapp.get(links(created)["self"], headers=world["headers"]).json["resource"][
        "state"] == "READY"
    report = check(database_url, app_config.registry.settings["seqcore.storage.path"])
    assert not [path for path in report.unreferenced if path.startswith("exports/")]


def test_the_worker_builds_one_export_a_round_oldest_first(testapp, app_config, project,
                                                           world):
    headers = world["headers"]
    first = make(testapp, project, headers, samples=[world["samples"][1].id])
    second = make(testapp, project, headers, samples=[world["samples"][0].id])

    def state(created):
        return testapp.get(links(created)["self"], headers=headers).json["resource"]["state"]

    assert build(app_config) == 1
    assert (state(first), state(second)) == ("READY", "QUEUED")
    assert build(app_config) == 1
    assert state(second) == "READY"
    assert build(app_config) == 0


def test_an_export_deleted_while_it_is_built_leaves_no_bundle(testapp, app_config, project,
                                                              world, db):
    import os

    from seqcore.exports import jobs

    headers = world["headers"]
    created = make(testapp, project, headers, samples=[world["samples"][1].id])
    export_id = int(created["identifier"])
    worker = ExportWorker(app_config.registry, "slow-worker")
    with worker.session() as (session, _):
        assert jobs.take(session, export_id, worker.name, worker.lease)
    # The requester deletes it while the worker holds it: allowed, it is cancelled.
    testapp.delete(links(created)["self"], headers=headers, status=200)
    worker.build(export_id)
    directory = os.path.join(app_config.registry.settings["seqcore.storage.path"], "exports",
                             str(export_id))
    assert not os.path.exists(directory) or os.listdir(directory) == []
    assert count(db) == 0


def test_a_build_whose_worker_died_is_taken_over(testapp, app_config, project, world, db):
    import os

    headers = world["headers"]
    created = make(testapp, project, headers, samples=[world["samples"][1].id])
    export_id = int(created["identifier"])
    # A worker took it, wrote part of the bundle and died: its lease ran out.
    db.execute(update(DataExport).where(DataExport.id == export_id).values(
        state="RUNNING", worker="dead-worker", attempts=1,
        lease_until=utcnow() - timedelta(seconds=1)))
    db.commit()
    partial = os.path.join(app_config.registry.settings["seqcore.storage.path"], "exports",
                           str(export_id), f"seqcore-export-{export_id}.zip.part")
    os.makedirs(os.path.dirname(partial), exist_ok=True)
    with open(partial, "wb") as half:
        half.write(b"PK\x03\x04 half a bundle")
    assert build(app_config) == 1
    export = testapp.get(links(created)["self"], headers=headers).json["resource"]
    assert export["state"] == "READY"
    assert not os.path.exists(partial)
    body = testapp.get(links(export)["export/download"], headers=headers).body
    with zipfile.ZipFile(io.BytesIO(body)) as bundle:
        assert bundle.testzip() is None
    db.expire_all()
    assert db.get(DataExport, export_id).attempts == 2


def _linelist(testapp, headers, created):
    body = testapp.get(links(created)["self"] + "/download", headers=headers).body
    with zipfile.ZipFile(io.BytesIO(body)) as bundle:
        name = next(n for n in bundle.namelist() if n.endswith("linelist.csv"))
        return bundle.read(name).decode()


def test_a_restricted_field_never_leaves_in_a_members_export(testapp, app_config, factories,
                                                            project, owner, member):
    """A field above the requester's metadata role is not in its bundle's line list (header
    nor value, whether it asked for every field, named it, or named a template holding it);
    the owner's export of the same samples has it."""
    owner_headers, member_headers = factories.headers(owner), factories.headers(member)
    sample = factories.sample(project, name="SAL-9", metadata={
        "serotype": "Typhi", "patient": "Jane Roe"})
    testapp.post_json(f"/api/projects/{project.id}/metadataFields",
                      {"name": "patient", "restriction": "LEVEL_3"}, headers=owner_headers,
                      status=201)
    testapp.post_json(f"/api/projects/{project.id}/metadataFields",
                      {"name": "serotype"}, headers=owner_headers, status=201)
    testapp.post_json(f"/api/projects/{project.id}/metadataTemplates",
                      {"name": "Outbreak", "fields": ["patient", "serotype"]},
                      headers=owner_headers, status=201)
    asks = [{}, {"metadataFields": ["patient", "serotype"]}, {"metadataTemplate": "Outbreak"}]
    mine = [make(testapp, project, member_headers, samples=[sample.id], fileKinds=[], **ask)
            for ask in asks]
    theirs = [make(testapp, project, owner_headers, samples=[sample.id], fileKinds=[], **ask)
              for ask in asks]
    while build(app_config):
        pass
    for created in mine:
        text = _linelist(testapp, member_headers, created)
        assert "patient" not in text and "Jane Roe" not in text
        rows = list(csv.reader(io.StringIO(text)))
        assert rows == [["SAMPLE ID", "SAMPLE NAME", "PROJECT ID", "serotype"],
                        [sample.puid, "SAL-9", project.puid, "Typhi"]]
    for created in theirs:
        rows = list(csv.reader(io.StringIO(_linelist(testapp, owner_headers, created))))
        assert rows[0][3:] == ["patient", "serotype"]
        assert rows[1][3:] == ["Jane Roe", "Typhi"]


def test_a_template_chooses_the_columns_by_id_or_name(testapp, app_config, factories,
                                                     project, owner):
    headers = factories.headers(owner)
    sample = factories.sample(project, name="SAL-7", metadata={"a": "1", "b": "2", "c": "3"})
    for name in ("a", "b"):
        testapp.post_json(f"/api/projects/{project.id}/metadataFields", {"name": name},
                          headers=headers, status=201)
    template = testapp.post_json(f"/api/projects/{project.id}/metadataTemplates",
                                 {"name": "BA", "fields": ["b", "a"]}, headers=headers,
                                 status=201).json["resource"]
    by_id = make(testapp, project, headers, samples=[sample.id], fileKinds=[],
                 metadataTemplate=template["identifier"])
    by_name = make(testapp, project, headers, samples=[sample.id], fileKinds=[],
                   metadataTemplate="BA")
    while build(app_config):
        pass
    for created in (by_id, by_name):
        rows = list(csv.reader(io.StringIO(_linelist(testapp, headers, created))))
        assert rows[0][3:] == ["b", "a"] and rows[1][3:] == ["2", "1"]
    res = testapp.post_json(url(project), {"samples": [sample.id], "metadataTemplate": "BA",
                                           "metadataFields": ["a"]},
                            headers=headers, status=400).json
    assert "not both" in res["metadataTemplate"][0]
