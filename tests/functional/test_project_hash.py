"""``GET /api/projects/{id}/hash`` and the ``project/hash`` link (issue 18): the value IRIDA's
synchronisation client compares to skip unchanged projects. It changes with every change to
the project, its samples, their metadata or their files, and with nothing else: not with
reads, the worker's bookkeeping, other projects, or a restart."""

import json

import pytest

from seqcore.testing.uploads import fastq, gz, multipart
from seqcore.testing.workers import Worker


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner, name="Hashed project")


@pytest.fixture
def headers(factories, owner):
    return factories.headers(owner)


def hash_of(app, project, headers):
    return app.get(f"/api/projects/{project.id}/hash", headers=headers).json[
        "resource"]["projectHash"]


def upload_single(app, sample_id, headers, content=None, name="reads.fastq"):
    body, content_type = multipart([("file", name, content or fastq(), None)])
    res = app.post(f"/api/samples/{sample_id}/unpaired", body,
                   headers={**headers, "Content-Type": content_type}, status=201)
    return res


def test_hash_answers_as_irida_and_is_linked_from_the_project(testapp, factories, project,
                                                              headers):
    factories.sample(project, metadata={"serovar": "Typhi"})
    res = testapp.get(f"/api/projects/{project.id}/hash", headers=headers)
    value = res.json["resource"]["projectHash"]
    assert res.json == {"resource": {"projectHash": value, "links": [
        {"rel": "self", "href": f"http://localhost/api/projects/{project.id}/hash"},
        {"rel": "project", "href": f"http://localhost/api/projects/{project.id}"},
    ]}}
    assert isinstance(value, int) and -2**31 <= value < 2**31  # IRIDA reads a Java Integer
    for body in (testapp.get(f"/api/projects/{project.id}", headers=headers).json["resource"],
                 testapp.get("/api/projects", headers=headers).json["resource"]["resources"][0]):
        links = {link["rel"]: link["href"] for link in body["links"]}
        assert links["project/hash"] == f"http://localhost/api/projects/{project.id}/hash"


def test_hash_is_for_readers_only(testapp, factories, project, headers):
    reader = factories.user()
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": reader.username},
                      headers=headers, status=201)
    assert hash_of(testapp, project, factories.headers(reader)) == hash_of(testapp, project,
                                                                          headers)
    outsider = factories.headers(factories.user())
    testapp.get(f"/api/projects/{project.id}/hash", headers=outsider, status=404)
    testapp.get(f"/api/projects/{project.id}/hash", status=401)
    testapp.get("/api/projects/987654/hash", headers=headers, status=404)
    testapp.post_json(f"/api/projects/{project.id}/hash", {}, headers=headers, status=405)


def test_hash_changes_with_every_change(testapp, factories, owner, project, headers):
    """Each change gives a value not seen before."""
    sample = factories.sample(project, name="first")
    other = factories.project(owner=owner, name="Elsewhere")
    elsewhere = factories.sample(other, name="from-elsewhere")
    seen = [hash_of(testapp, project, headers)]

    def changed():
        value = hash_of(testapp, project, headers)
        assert value not in seen, f"change {len(seen)} left the hash at a value seen before"
        seen.append(value)

    created = testapp.post_json(f"/api/projects/{project.id}/samples",
                                {"sampleName": "second"}, headers=headers).json["resource"]
    changed()
    testapp.patch_json(f"/api/samples/{sample.id}", {"strain": "ST-1"}, headers=headers)
    changed()
    testapp.post_json(f"/api/samples/{sample.id}/metadata",
                      {"host": {"value": "human", "type": "text"}}, headers=headers)
    changed()
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {"host": {"value": "bovine", "type": "text"}}, headers=headers)
    changed()
    upload_single(testapp, sample.id, headers)
    changed()
    body, content_type = multipart([("file1", "x_R1.fastq", fastq(seed=2), None),
                                    ("file2", "x_R2.fastq", fastq(seed=3), None)])
    testapp.post(f"/api/samples/{created['identifier']}/pairs", body,
                 headers={**headers, "Content-Type": content_type}, status=201)
    changed()
    testapp.post(f"/api/projects/{project.id}/samples", json.dumps([elsewhere.id]),
                 headers=headers, content_type="application/idcollection+json", status=201)
    changed()
    testapp.delete(f"/api/projects/{project.id}/samples/{created['identifier']}",
                   headers=headers)
    changed()
    testapp.patch_json(f"/api/projects/{project.id}", {"name": "Renamed project"},
                       headers=headers)
    changed()


def test_hash_stays_put_on_reads_the_worker_and_other_projects(testapp, factories, owner,
                                                                project, headers,
                                                                upload_reads):
    sample = factories.sample(project, name="kept", metadata={"serovar": "Typhi"})
    reads = upload_reads(sample, headers, kind="unpaired", process=False)
    before = hash_of(testapp, project, headers)
    # The worker processes the file (state, lease, QC): no change to the data.
    Worker(testapp.app.registry).run_until_idle()
    assert hash_of(testapp, project, headers) == before
    # Reads of everything the sync client and others read.
    for path in (f"/api/projects/{project.id}", f"/api/projects/{project.id}/samples",
                 f"/api/projects/{project.id}/samples/{sample.id}",
                 f"/api/projects/{project.id}/samples/metadata",
                 f"/api/samples/{sample.id}", f"/api/samples/{sample.id}/metadata",
                 f"/api/samples/{sample.id}/sequenceFiles", f"/api/samples/{sample.id}/pairs",
                 f"/api/samples/{sample.id}/unpaired", reads.url,
                 f"/api/projects/{project.id}/hash"):
        testapp.get(path, headers=headers)
    file_url = reads.body["links"][0]["href"].replace("http://localhost", "")
    testapp.get(file_url, headers={**headers, "Accept": "application/fastq"})
    assert hash_of(testapp, project, headers) == before
    # Changes to another project, even one sharing this project's sample, are not this one's.
    other = factories.project(owner=owner, name="Another project")
    testapp.post(f"/api/projects/{other.id}/samples", json.dumps([sample.id]),
                 headers=headers, content_type="application/idcollection+json", status=201)
    their = testapp.post_json(f"/api/projects/{other.id}/samples", {"sampleName": "theirs"},
                              headers=headers).json["resource"]
    testapp.post_json(f"/api/samples/{their['identifier']}/metadata",
                      {"host": {"value": "human", "type": "text"}}, headers=headers)
    upload_single(testapp, their["identifier"], headers)
    testapp.patch_json(f"/api/projects/{other.id}", {"name": "Another name"}, headers=headers)
    assert hash_of(testapp, project, headers) == before


def test_hash_changes_when_the_worker_makes_a_new_revision(build_app, factories):
    """Decompression rewrites a file (new revision, name, size): its project's hash moves."""
    import seqcore_sequencefiles.plugin

    app = build_app([seqcore_sequencefiles.plugin], **{"seqcore.processing.decompress": True})
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    headers = factories.headers(owner)
    upload_single(app, sample.id, headers, gz(fastq(seed=5)), "c.fastq.gz")
    before = hash_of(app, project, headers)
    Worker(app.app.registry).run_until_idle()
    after = hash_of(app, project, headers)
    assert after != before
    assert hash_of(app, project, headers) == after


def test_hash_is_the_same_after_a_restart(testapp, build_app, factories, project, headers,
                                          upload_reads):
    sample = factories.sample(project, metadata={"mlst": "ST-8"})
    upload_reads(sample, headers, kind="pairs")
    value = hash_of(testapp, project, headers)
    restarted = build_app()  # a new application (configuration, engine) on the same database
    assert hash_of(restarted, project, headers) == value


def test_hash_costs_the_same_few_queries_for_any_number_of_samples(testapp, factories, project,
                                                                   headers, sql_counter):
    factories.sample(project, metadata={"a": "1"})
    hash_of(testapp, project, headers)  # the token's first check, before its cached ones
    with sql_counter:
        hash_of(testapp, project, headers)
    small = sql_counter.count
    for n in range(25):
        sample = factories.sample(project, metadata={"a": str(n), "b": "x"})
        factories.sequencing_object(sample, "unpaired")
    with sql_counter:
        hash_of(testapp, project, headers)
    assert sql_counter.count == small
    # One query each for the samples, their metadata, their sequencing objects with files,
    # and their attachments (GraphQL's; no plugin of this app attaches anything else).
    hashing = [s for s in sql_counter.statements if "project_sample" in s]
    assert len(hashing) == 4, hashing
