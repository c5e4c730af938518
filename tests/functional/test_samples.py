"""Samples: creation, validation, sharing, deletion, name lookup, listing."""

import pytest

from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.user import SystemRole

SPACE = ("The name you have supplied contains a space character. Names must NOT include the "
         "space character and the following: ? ( ) [ ] / \\ = + < > : ; \" ' , * ^ | & .")


def char_message(char):
    return (f"The name you have supplied contains a '{char}' character. Names must NOT include "
            "the space character and the following: ? ( ) [ ] / \\ = + < > : ; \" ' , * ^ | & .")


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner, name="Listeria survey")


@pytest.fixture
def headers(factories, owner):
    return factories.headers(owner)


def post_sample(testapp, project, headers, status=201, **body):
    return testapp.post_json(f"/api/projects/{project.id}/samples", body, headers=headers,
                             status=status)


def test_create_sample(testapp, project, headers):
    res = post_sample(testapp, project, headers, sampleName="LM-2026-001",
                      description="clinical", organism="Listeria monocytogenes",
                      collectionDate="2026-03-01", latitude="45.42", longitude="-75.69",
                      geographicLocationName="Canada:Ontario:Ottawa")
    body = res.json["resource"]
    assert res.headers["Location"] == f"http://localhost/api/samples/{body['identifier']}"
    assert body["sampleName"] == body["label"] == "LM-2026-001"
    assert body["collectionDate"] == "2026-03-01"
    assert body["latitude"] == "45.42"
    assert body["strain"] is None
    # The answer is the sample as its project lists it (issue 18): the same body as a GET
    # through the project; the canonical sample (Location) has the same fields and links
    # but the two project links.
    through_project = f"/api/projects/{project.id}/samples/{body['identifier']}"
    assert testapp.get(through_project, headers=headers).json["resource"] == body
    canonical = testapp.get(res.headers["Location"], headers=headers).json["resource"]
    assert canonical == {**body, "links": body["links"][:-2]}
    assert [link["rel"] for link in body["links"]] == [
        "self", "sample/metadata", "sample/sequenceFiles", "sample/sequenceFiles/unpaired",
        "sample/sequenceFiles/pairs", "sample/project", "project/sample"]
    assert body["links"][-2:] == [
        {"rel": "sample/project", "href": f"http://localhost/api/projects/{project.id}"},
        {"rel": "project/sample", "href": f"http://localhost{through_project}"}]


VALID_NAME = {"sampleName": "good-name"}


@pytest.mark.parametrize(("body", "field", "message"), [
    ({}, "sampleName", "You must provide a sample name."),
    ({"sampleName": None}, "sampleName", "You must provide a sample name."),
    ({"sampleName": "ab"}, "sampleName", "Sample name must be at least 3 characters long."),
    ({"sampleName": "has space"}, "sampleName", SPACE),
    ({"sampleName": "tab\there"}, "sampleName", SPACE),
    ({"sampleName": "it's"}, "sampleName", char_message("'")),
    ({"sampleName": "a.b.c"}, "sampleName", char_message(".")),
    *[({"sampleName": f"x{c}yz"}, "sampleName", char_message(c)) for c in '?()[]/\\=+<>:;",*^|&'],
    ({**VALID_NAME, "organism": "ab"}, "organism",
     "The organism description that you provided is too short. The organism description must "
     "have at least 3 characters."),
    ({**VALID_NAME, "isolate": "ab"}, "isolate",
     "The isolate name that you provided is too short. The isolate name must have at least 3 "
     "characters."),
    ({**VALID_NAME, "strain": "ab"}, "strain",
     "The strain name that you provided is too short. The strain name must have at least 3 "
     "characters."),
    ({**VALID_NAME, "collectedBy": "ab"}, "collectedBy",
     "The collected by name that you provided is too short. The collected by name must have "
     "at least 3 characters."),
    ({**VALID_NAME, "geographicLocationName": "ab"}, "geographicLocationName",
     "The geographic location name that you provided is too short. The geographic location "
     "name must have at least 3 characters."),
    ({**VALID_NAME, "geographicLocationName": "Canada: Ontario"}, "geographicLocationName",
     "The geographic location name does not match the pattern {term}:{term}:{text}."),
    ({**VALID_NAME, "geographicLocationName": "a:b:c:d"}, "geographicLocationName",
     "The geographic location name does not match the pattern {term}:{term}:{text}."),
    ({**VALID_NAME, "collectionDate": "2026-02-30"}, "collectionDate",
     "'collectionDate' must be in the format yyyy-MM-dd"),
    ({**VALID_NAME, "collectionDate": "01/03/2026"}, "collectionDate",
     "'collectionDate' must be in the format yyyy-MM-dd"),
    ({**VALID_NAME, "collectionDate": 20260301}, "collectionDate",
     "'collectionDate' must be in the format yyyy-MM-dd"),
    ({**VALID_NAME, "latitude": "91"}, "latitude", "Not a valid latitude coordinate."),
    ({**VALID_NAME, "latitude": "-90.5"}, "latitude", "Not a valid latitude coordinate."),
    ({**VALID_NAME, "latitude": "100"}, "latitude", "Not a valid latitude coordinate."),
    ({**VALID_NAME, "latitude": "north"}, "latitude", "Not a valid latitude coordinate."),
    ({**VALID_NAME, "latitude": "45."}, "latitude", "Not a valid latitude coordinate."),
    ({**VALID_NAME, "longitude": "180.1"}, "longitude", "Not a valid longitude coordinate."),
    ({**VALID_NAME, "longitude": "1000"}, "longitude", "Not a valid longitude coordinate."),
    ({**VALID_NAME, "longitude": "east"}, "longitude", "Not a valid longitude coordinate."),
])
def test_sample_validation_on_post_and_patch(testapp, factories, project, headers, db, body,
                                              field, message):
    res = testapp.post_json(f"/api/projects/{project.id}/samples", body, headers=headers,
                            status=400)
    assert message in res.json[field], res.json
    assert db.query(Sample).count() == 0
    existing = factories.sample(project, name="existing")
    patch = {k: v for k, v in body.items() if k != "sampleName" or field == "sampleName"}
    if patch:
        res = testapp.patch_json(f"/api/samples/{existing.id}", patch, headers=headers,
                                 status=400)
        assert message in res.json[field], res.json


@pytest.mark.parametrize(("field", "value"), [
    ("latitude", "90"), ("latitude", "-90"), ("latitude", "0.000001"),
    ("longitude", "-180"), ("longitude", "179.99"), ("geographicLocationName", "Canada"),
    ("geographicLocationName", "Canada:Ontario:Ottawa"),
])
def test_valid_edge_values(testapp, project, headers, field, value):
    post_sample(testapp, project, headers, sampleName="edge-case", **{field: value})


def test_all_bad_fields_reported_at_once(testapp, project, headers):
    res = post_sample(testapp, project, headers, status=400, sampleName="a b", organism="x",
                      latitude="99", collectionDate="yesterday")
    assert set(res.json) == {"sampleName", "organism", "latitude", "collectionDate"}


def test_duplicate_name_in_project_is_409(testapp, factories, project, headers):
    factories.sample(project, name="LM-1")
    res = post_sample(testapp, project, headers, status=409, sampleName="LM-1")
    assert res.json["message"] == (f"An entity already exists with that identifier: Sample "
                                   f"with the name 'LM-1' already exists in project {project.id}")
    other = factories.project(owner=None)
    factories.sample(other, name="LM-2")  # the same name elsewhere is fine
    post_sample(testapp, project, headers, sampleName="LM-2")


def test_unknown_fields_strict_and_lenient(testapp, factories, owner, project, headers):
    res = post_sample(testapp, project, headers, status=400, sampleName="LM-1",
                      File_Forward="x_R1.fastq")
    assert "sampleName" in res.json["acceptable-properties"]
    uploader = factories.headers(owner, client=factories.client(lenient=True))
    # What the IRIDA uploader sends for a new sample.
    post_sample(testapp, project, uploader, sampleName="LM-1", description="",
                File_Forward="x_R1.fastq", File_Reverse="x_R2.fastq", sample_project="1")


def test_patch_sample(testapp, factories, project, headers):
    sample = factories.sample(project, name="before")
    res = testapp.patch_json(f"/api/samples/{sample.id}", {"sampleName": "after",
                                                           "strain": "ST-1"}, headers=headers)
    body = res.json["resource"]
    assert (body["sampleName"], body["strain"]) == ("after", "ST-1")
    assert body == testapp.get(f"/api/samples/{sample.id}", headers=headers).json["resource"]
    res = testapp.get(f"/api/projects/{project.id}/samples/bySampleName?sampleName=after",
                      headers=headers, status=302)
    assert res.headers["Location"] == f"http://localhost/api/samples/{sample.id}"


def test_rename_clash_in_any_project_is_409(testapp, factories, project, headers, db):
    sample = factories.sample(project, name="one")
    factories.sample(project, name="two")
    testapp.patch_json(f"/api/samples/{sample.id}", {"sampleName": "two"}, headers=headers,
                       status=409)
    assert db.get(Sample, sample.id).name == "one"


def test_sample_delete_is_not_allowed_directly(testapp, factories, project, headers):
    sample = factories.sample(project)
    testapp.delete(f"/api/samples/{sample.id}", headers=headers, status=405)


def test_project_sample_links(testapp, factories, project, headers):
    sample = factories.sample(project, name="linked")
    body = testapp.get(f"/api/projects/{project.id}/samples/{sample.id}",
                       headers=headers).json["resource"]
    assert body["links"] == [
        {"rel": "self", "href": f"http://localhost/api/samples/{sample.id}"},
        {"rel": "sample/metadata", "href": f"http://localhost/api/samples/{sample.id}/metadata"},
        {"rel": "sample/sequenceFiles",
         "href": f"http://localhost/api/samples/{sample.id}/sequenceFiles"},
        {"rel": "sample/sequenceFiles/unpaired",
         "href": f"http://localhost/api/samples/{sample.id}/unpaired"},
        {"rel": "sample/sequenceFiles/pairs",
         "href": f"http://localhost/api/samples/{sample.id}/pairs"},
        {"rel": "sample/project", "href": f"http://localhost/api/projects/{project.id}"},
        {"rel": "project/sample",
         "href": f"http://localhost/api/projects/{project.id}/samples/{sample.id}"},
    ]
    # A sample of another project is not found through this one.
    elsewhere = factories.sample(factories.project(owner=None))
    testapp.get(f"/api/projects/{project.id}/samples/{elsewhere.id}", headers=headers,
                status=404)


def test_by_sample_name(testapp, factories, project, headers):
    sample = factories.sample(project, name="LM-9")
    res = testapp.get(f"/api/projects/{project.id}/samples/bySampleName?sampleName=LM-9",
                      headers=headers, status=302)
    assert res.headers["Location"] == f"http://localhost/api/samples/{sample.id}"
    followed = res.follow(headers=headers).json["resource"]
    assert (followed["sampleName"], followed["identifier"]) == ("LM-9", str(sample.id))
    assert "description" in followed
    testapp.get(f"/api/projects/{project.id}/samples/bySampleName?sampleName=LM-10",
                headers=headers, status=404)
    res = testapp.get(f"/api/projects/{project.id}/samples/bySampleName", headers=headers,
                      status=400)
    assert "sampleName" in res.json


def test_delete_from_only_project_deletes_sample(testapp, factories, project, headers, db):
    sample = factories.sample(project, metadata={"serovar": "Typhi"})
    res = testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    assert [link["rel"] for link in res.json["resource"]["links"]] == ["project/samples",
                                                                        "project"]
    assert db.get(Sample, sample.id) is None
    assert db.query(MetadataEntry).count() == 0
    testapp.get(f"/api/samples/{sample.id}", headers=headers, status=404)


def test_delete_from_one_of_two_projects_keeps_sample(testapp, factories, project, headers,
                                                      db):
    other = factories.project(owner=None)
    sample = factories.sample(project, also_in=[other])
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    assert db.get(Sample, sample.id) is not None
    assert [j.project_id for j in db.query(ProjectSample)] == [other.id]


def test_deleting_a_project_deletes_its_unshared_samples(testapp, factories, project,
                                                         headers, db):
    other = factories.project(owner=None)
    alone = factories.sample(project)
    shared = factories.sample(project, also_in=[other])
    testapp.delete(f"/api/projects/{project.id}", headers=headers)
    assert db.get(Sample, alone.id) is None
    assert db.get(Sample, shared.id) is not None


# -- sharing ----------------------------------------------------------------------------------


def share(testapp, project, ids, headers, status=201, ownership=None):
    url = f"/api/projects/{project.id}/samples"
    if ownership is not None:
        url += f"?ownership={'true' if ownership else 'false'}"
    return testapp.post(url, __import__("json").dumps(ids), headers=headers,
                        content_type="application/idcollection+json", status=status)


def test_share_samples_without_ownership(testapp, factories, owner, project, headers, db):
    source = factories.sample(project, name="shared-one")
    target = factories.project(owner=owner, name="Target project")
    res = share(testapp, target, [source.id], headers)
    assert res.headers.getall("Location") == [
        f"http://localhost/api/projects/{target.id}/samples/{source.id}"]
    (entry,) = res.json["resource"]["resources"]
    assert entry["resource"]["owner"] is False
    assert entry["resource"]["object"]["sampleName"] == "shared-one"
    assert entry["resource"]["subject"]["name"] == "Target project"
    assert "warnings" not in res.json
    join = db.query(ProjectSample).filter_by(project_id=target.id).one()
    assert join.owner is False
    # Owners of the target project may read the shared sample, but not change it there.
    target_owner = factories.user()
    db.add(__import__("seqcore.models.project", fromlist=["ProjectMember"]).ProjectMember(
        project_id=target.id, user_id=target_owner.id, role="PROJECT_OWNER"))
    db.commit()
    their = factories.headers(target_owner)
    testapp.get(f"/api/samples/{source.id}", headers=their)
    testapp.patch_json(f"/api/samples/{source.id}", {"strain": "ST-5"}, headers=their,
                       status=403)


def test_share_with_ownership_lets_target_owners_write(testapp, factories, owner, project,
                                                       headers, db):
    from seqcore.models.project import ProjectMember

    source = factories.sample(project)
    target = factories.project(owner=owner)
    res = share(testapp, target, [source.id], headers, ownership=True)
    assert res.json["resource"]["resources"][0]["resource"]["owner"] is True
    target_owner = factories.user()
    db.add(ProjectMember(project_id=target.id, user_id=target_owner.id, role="PROJECT_OWNER"))
    db.commit()
    testapp.patch_json(f"/api/samples/{source.id}", {"strain": "ST-5"},
                       headers=factories.headers(target_owner))


def test_share_duplicates_come_back_as_warnings(testapp, factories, owner, project, headers):
    target = factories.project(owner=owner)
    already = factories.sample(project, name="already", also_in=[target])
    clash = factories.sample(project, name="clash")
    factories.sample(target, name="clash")
    fresh = factories.sample(project, name="fresh")
    res = share(testapp, target, [already.id, clash.id, fresh.id], headers)
    assert res.json["warnings"] == [
        f"Cannot add sample id {already.id} (already) as this sample already exists in the "
        "project.",
        f"Cannot add sample id {clash.id} (clash) as a sample with this name already exists in "
        "the project.",
    ]
    names = [e["resource"]["object"]["sampleName"] for e in res.json["resource"]["resources"]]
    assert names == ["already", "fresh"]


def test_share_needs_read_on_samples_and_ownership_of_target(testapp, factories, owner,
                                                             project, headers, db):
    stranger_sample = factories.sample(factories.project(owner=None))
    target = factories.project(owner=owner)
    res = share(testapp, target, [stranger_sample.id], headers, status=404)
    assert str(stranger_sample.id) in res.json["message"]
    share(testapp, target, [999999], headers, status=404)
    member = factories.user()
    mine = factories.sample(project)
    read_only = factories.project(owner=None, members=[(member, ProjectRole.USER)])
    share(testapp, read_only, [mine.id], factories.headers(member), status=403)
    assert db.query(ProjectSample).filter_by(project_id=target.id).count() == 0


def test_ownership_needs_write_on_the_sample(testapp, factories, owner, headers, db):
    reader_project = factories.project(owner=None, members=[(owner, ProjectRole.USER)])
    readable = factories.sample(reader_project)
    target = factories.project(owner=owner)
    share(testapp, target, [readable.id], headers, status=403, ownership=True)
    share(testapp, target, [readable.id], headers, ownership=False)


@pytest.mark.parametrize("body", ["[]", "{}", "[\"abc\"]", "[true]", "not json", "[1.5]"])
def test_share_bad_bodies(testapp, factories, owner, headers, body):
    target = factories.project(owner=owner)
    testapp.post(f"/api/projects/{target.id}/samples", body, headers=headers,
                 content_type="application/idcollection+json", status=400)


# -- roles ------------------------------------------------------------------------------------


def test_sequencer_creates_samples_and_writes_metadata_anywhere(testapp, factories, project):
    sequencer = factories.headers(factories.user(role=SystemRole.SEQUENCER))
    res = post_sample(testapp, project, sequencer, sampleName="from-uploader")
    sample_id = res.json["resource"]["identifier"]
    testapp.put_json(f"/api/samples/{sample_id}/metadata", {"run": {"value": "R1"}},
                     headers=sequencer)


def test_members_read_but_do_not_write(testapp, factories, project):
    member = factories.user()
    shared = factories.project(owner=None, members=[(member, ProjectRole.USER)])
    sample = factories.sample(shared)
    headers = factories.headers(member)
    testapp.get(f"/api/samples/{sample.id}", headers=headers)
    testapp.get(f"/api/projects/{shared.id}/samples", headers=headers)
    post_sample(testapp, shared, headers, status=403, sampleName="nope-sample")
    testapp.patch_json(f"/api/samples/{sample.id}", {"strain": "x12"}, headers=headers,
                       status=403)
    testapp.delete(f"/api/projects/{shared.id}/samples/{sample.id}", headers=headers,
                   status=403)


def test_others_see_nothing(testapp, factories, project):
    sample = factories.sample(project)
    headers = factories.headers(factories.user())
    testapp.get(f"/api/samples/{sample.id}", headers=headers, status=404)
    testapp.get(f"/api/samples/{sample.id}/metadata", headers=headers, status=404)
    testapp.patch_json(f"/api/samples/{sample.id}", {"strain": "x12"}, headers=headers,
                       status=404)
    post_sample(testapp, project, headers, status=404, sampleName="intruder")


def test_admin_does_everything(testapp, factories, project):
    admin = factories.headers(factories.user(role=SystemRole.ADMIN))
    res = post_sample(testapp, project, admin, sampleName="admin-made")
    sample_id = res.json["resource"]["identifier"]
    testapp.patch_json(f"/api/samples/{sample_id}", {"strain": "x12"}, headers=admin)
    testapp.delete(f"/api/projects/{project.id}/samples/{sample_id}", headers=admin)


# -- issue 18: answers as IRIDA gives them -----------------------------------------------------


def test_created_sample_answers_as_its_project_lists_it(testapp, factories, project, headers):
    """The POST answer is the GET through the project, project links included, for the
    uploader's sequencer account as for an owner."""
    sequencer = factories.headers(factories.user(role=SystemRole.SEQUENCER))
    for n, who in enumerate((headers, sequencer)):
        res = post_sample(testapp, project, who, sampleName=f"made-by-{n}")
        body = res.json["resource"]
        sid = body["identifier"]
        assert testapp.get(f"/api/projects/{project.id}/samples/{sid}",
                           headers=who).json["resource"] == body
        links = {link["rel"]: link["href"] for link in body["links"]}
        assert links["sample/project"] == f"http://localhost/api/projects/{project.id}"
        assert links["project/sample"] == (f"http://localhost/api/projects/{project.id}"
                                           f"/samples/{sid}")
        # The entry of the project's collection carries the same links.
        listed = {e["identifier"]: e for e in testapp.get(
            f"/api/projects/{project.id}/samples", headers=who).json["resource"]["resources"]}
        assert listed[sid]["links"] == body["links"]


def test_copy_entries_have_the_spec_shape(testapp, factories, owner, project, headers):
    """Each entry of a copy answer: the join (subject project, object sample) and the links
    of a sample in the project's collection, ``sample/sequenceFiles`` included."""
    source = factories.sample(project, name="copied")
    target = factories.project(owner=owner, name="Copy target")
    res = share(testapp, target, [source.id], headers)
    (entry,) = res.json["resource"]["resources"]
    sid, tid = source.id, target.id
    assert entry["links"] == [
        {"rel": "self", "href": f"http://localhost/api/samples/{sid}"},
        {"rel": "project/sample", "href": f"http://localhost/api/projects/{tid}/samples/{sid}"},
        {"rel": "sample/sequenceFiles",
         "href": f"http://localhost/api/samples/{sid}/sequenceFiles"},
        {"rel": "sample/project", "href": f"http://localhost/api/projects/{tid}"},
    ]
    assert set(entry) == {"label", "resource", "identifier", "links"}
    assert (entry["label"], entry["identifier"]) == ("Copy target", str(sid))
    assert set(entry["resource"]) == {"subject", "object", "timestamp", "createdDate", "owner",
                                      "label", "identifier"}
    assert entry["resource"]["object"] == testapp.get(
        f"/api/samples/{sid}", headers=headers).json["resource"]
    assert entry["resource"]["subject"] == testapp.get(
        f"/api/projects/{tid}", headers=headers).json["resource"]
    # Every link leads somewhere.
    for link in entry["links"]:
        testapp.get(link["href"].replace("http://localhost", ""), headers=headers)


def test_by_sequencer_id_is_the_deprecated_alias_of_by_sample_name(testapp, factories, project,
                                                                     headers):
    sample = factories.sample(project, name="LM-77")
    base = f"/api/projects/{project.id}/samples"
    by_name = testapp.get(f"{base}/bySampleName?sampleName=LM-77", headers=headers, status=302)
    alias = testapp.get(f"{base}/bySequencerId/LM-77", headers=headers, status=302)
    assert alias.headers["Location"] == by_name.headers["Location"] == (
        f"http://localhost/api/samples/{sample.id}")
    assert alias.follow(headers=headers).json == by_name.follow(headers=headers).json
    missing = testapp.get(f"{base}/bySequencerId/LM-78", headers=headers, status=404)
    assert missing.json == testapp.get(f"{base}/bySampleName?sampleName=LM-78",
                                       headers=headers, status=404).json
    # As private as the project.
    stranger = factories.headers(factories.user())
    testapp.get(f"{base}/bySequencerId/LM-77", headers=stranger, status=404)
    testapp.get(f"{base}/bySequencerId/LM-77", status=401)
