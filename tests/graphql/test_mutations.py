"""Every mutation: success payloads, error payloads that change nothing, REST's rules."""

import pytest
from sqlalchemy import func, select

from seqcore.models.project import Project, ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.user import SystemRole
from tests.graphql.conftest import gid


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    outsider = factories.user(username="outsider")
    project = factories.project(owner=owner, name="Source project",
                                members=[(member, ProjectRole.USER)])
    target = factories.project(owner=owner, name="Target project")
    foreign = factories.project(owner=outsider, name="Foreign project")
    sample = factories.sample(project, name="sample-1", metadata={"country": "Canada",
                                                                  "age": "40"})
    return dict(owner=owner, member=member, outsider=outsider, project=project, target=target,
                foreign=foreign, sample=sample)


def count(db, model):
    return db.scalar(select(func.count()).select_from(model))


# -- createProject ---------------------------------------------------------------------------

CREATE_PROJECT = """mutation($input: CreateProjectInput!) { createProject(input: $input) {
  project { id name description fullPath } errors { message path } clientMutationId } }"""


def test_create_project(graphql, world, db):
    body = graphql.as_user(world["owner"])(CREATE_PROJECT, {"input": {
        "name": "Bacillus outbreak", "description": "2022", "clientMutationId": "m1"}})
    payload = body["data"]["createProject"]
    assert payload["errors"] == []
    assert payload["clientMutationId"] == "m1"
    assert payload["project"]["fullPath"] == "owner/bacillus-outbreak"
    assert payload["project"]["description"] == "2022"
    _, pk = payload["project"]["id"].rsplit("/", 1)
    project = db.get(Project, int(pk))
    assert project.members[0].user_id == world["owner"].id
    assert project.members[0].role == ProjectRole.OWNER
    # The same name again gets the next free path.
    again = graphql(CREATE_PROJECT, {"input": {"name": "Bacillus outbreak"}})
    assert again["data"]["createProject"]["project"]["fullPath"] == "owner/bacillus-outbreak-2"


def test_create_project_with_a_path(graphql, world):
    graphql.as_user(world["owner"])
    body = graphql(CREATE_PROJECT, {"input": {"name": "Anthrax 2024", "path": "anthrax"}})
    assert body["data"]["createProject"]["project"]["fullPath"] == "owner/anthrax"
    body = graphql(CREATE_PROJECT, {"input": {"name": "Anthrax again", "path": "anthrax"}})
    assert body["data"]["createProject"] == {"project": None, "clientMutationId": None,
                                             "errors": [{"message": "Path has already been "
                                                         "taken", "path": ["project", "path"]}]}


def test_create_project_validation_is_rest_s(graphql, world, db):
    before = count(db, Project)
    body = graphql.as_user(world["owner"])(CREATE_PROJECT, {"input": {
        "name": "a/b", "path": "Not A Path"}})
    errors = body["data"]["createProject"]["errors"]
    assert {"message": "Project name must be at least 5 characters long.",
            "path": ["project", "name"]} in errors
    assert any(e["path"] == ["project", "name"] and "'/' character" in e["message"]
               for e in errors)
    assert any(e["path"] == ["project", "path"] for e in errors)
    assert count(db, Project) == before


def test_sequencer_accounts_cannot_create_projects(graphql, factories):
    sequencer = factories.user(SystemRole.SEQUENCER)
    body = graphql.as_user(sequencer)(CREATE_PROJECT, {"input": {"name": "Not allowed"}})
    assert body["data"]["createProject"]["errors"] == [
        {"message": "You are not authorized to create projects.", "path": ["project"]}]


# -- createSample ----------------------------------------------------------------------------

CREATE_SAMPLE = """mutation($input: CreateSampleInput!) { createSample(input: $input) {
  sample { id name description metadata project { fullPath } } errors { message path } } }"""


def test_create_sample(graphql, world):
    body = graphql.as_user(world["owner"])(CREATE_SAMPLE, {"input": {
        "projectId": gid("Project", world["project"].id), "name": "new-sample",
        "description": "from GraphQL"}})
    payload = body["data"]["createSample"]
    assert payload["errors"] == []
    assert payload["sample"]["name"] == "new-sample"
    assert payload["sample"]["metadata"] == {}
    assert payload["sample"]["project"]["fullPath"] == world["project"].full_path


@pytest.mark.parametrize(("name", "message"), [
    ("ab", "Sample name must be at least 3 characters long."),
    ("x" * 256, "Sample name must be at most 255 characters long."),
    ("    ", "Sample name can't be blank."),
    ("tab\there", "Sample name must not contain control characters"),
    ("sample-1", "An entity already exists with that identifier: Sample with the name "
                 "'sample-1' already exists in project"),
])
def test_create_sample_errors_are_rest_s(graphql, world, db, name, message):
    before = count(db, Sample)
    body = graphql.as_user(world["owner"])(CREATE_SAMPLE, {"input": {
        "projectId": gid("Project", world["project"].id), "name": name}})
    payload = body["data"]["createSample"]
    assert payload["sample"] is None
    assert payload["errors"][0]["message"].startswith(message)
    assert payload["errors"][0]["path"] == ["sample", "name"]
    assert count(db, Sample) == before


@pytest.mark.parametrize("name", ["Outbreak 2022 Sample 1", "2024.001", "Ünïcode (b) & c"])
def test_irida_next_names_are_names_and_rest_still_serves_them(graphql, testapp, factories,
                                                                world, name):
    """GraphQL follows IRIDA Next's rule for the names it creates (3 to 255 characters);
    REST's stricter rule governs REST's writes only: the sample is read, found by name,
    listed, edited and given files through REST like any other."""
    owner, project = world["owner"], world["project"]
    body = graphql.as_user(owner)(CREATE_SAMPLE, {"input": {
        "projectId": gid("Project", project.id), "name": name}})
    payload = body["data"]["createSample"]
    assert payload["errors"] == [], payload
    assert payload["sample"]["name"] == name
    headers = factories.headers(owner)
    listed = testapp.get(f"/api/projects/{project.id}/samples", headers=headers).json
    (entry,) = [s for s in listed["resource"]["resources"] if s["sampleName"] == name]
    self_link = next(link["href"] for link in entry["links"] if link["rel"] == "self")
    assert testapp.get(self_link, headers=headers).json["resource"]["sampleName"] == name
    found = testapp.get(f"/api/projects/{project.id}/samples/bySampleName",
                        params={"sampleName": name}, headers=headers, status=302)
    assert found.location.endswith(self_link.rsplit("/api/", 1)[1])
    sample_id = entry["identifier"]
    # A client sending the whole sample back with one change keeps its name.
    changed = testapp.patch_json(f"/api/samples/{sample_id}", {
        "sampleName": name, "description": "edited over REST"}, headers=headers).json
    assert changed["resource"]["sampleName"] == name
    assert changed["resource"]["description"] == "edited over REST"
    # REST's rule still holds for a name REST would write.
    refused = testapp.patch_json(f"/api/samples/{sample_id}", {"sampleName": "a b c"},
                                 headers=headers, status=400).json
    assert "space character" in str(refused)
    # Files upload to it and download from it over REST.
    fastq = b"@r1\nACGT\n+\nIIII\n"
    uploaded = testapp.post(f"/api/samples/{sample_id}/sequenceFiles",
                            upload_files=[("file", "reads.fastq", fastq)], headers=headers,
                            status=201).json
    file_link = next(link["href"] for link in uploaded["resource"]["links"]
                     if link["rel"] == "self")
    download = testapp.get(file_link, headers={**headers, "Accept": "application/fastq"})
    assert download.body == fastq


def test_create_sample_permissions(graphql, world):
    project_id = gid("Project", world["project"].id)
    body = graphql.as_user(world["member"])(CREATE_SAMPLE, {"input": {
        "projectId": project_id, "name": "by-member"}})
    assert body["data"]["createSample"]["errors"] == [{
        "message": "You are not authorized to create samples in project Source project.",
        "path": ["project"]}]
    body = graphql.as_user(world["outsider"])(CREATE_SAMPLE, {"input": {
        "projectId": project_id, "name": "by-outsider"}})
    assert body["data"]["createSample"]["errors"] == [{
        "message": "Project not found by provided ID", "path": ["project"]}]


def test_a_malformed_id_is_a_top_level_error(graphql, world):
    body = graphql.as_user(world["owner"])(CREATE_SAMPLE, {"input": {
        "projectId": "42", "name": "whatever"}})
    assert body["data"] == {"createSample": None}
    assert body["errors"][0]["message"] == "42 is not a valid seqcore ID."


# -- updateSampleMetadata --------------------------------------------------------------------

UPDATE = """mutation($input: UpdateSampleMetadataInput!) { updateSampleMetadata(input: $input)
  { sample { metadata } status errors { message path } } }"""


def test_update_sample_metadata_reports_what_changed(graphql, world):
    body = graphql.as_user(world["owner"])(UPDATE, {"input": {
        "sampleId": gid("Sample", world["sample"].id),
        "metadata": {"country": "France", "age": "40", "host": "Homo sapiens", "gone": "",
                     "depth": 12}}})
    payload = body["data"]["updateSampleMetadata"]
    assert payload["errors"] == []
    assert payload["status"] == {"added": ["host", "depth"], "updated": ["country"],
                                 "deleted": [], "unchanged": ["age"], "not_found": ["gone"]}
    assert payload["sample"]["metadata"] == {"age": "40", "country": "France", "depth": "12",
                                             "host": "Homo sapiens"}
    body = graphql(UPDATE, {"input": {"sampleId": gid("Sample", world["sample"].id),
                                      "metadata": '{"host": null}'}})
    assert body["data"]["updateSampleMetadata"]["status"]["deleted"] == ["host"]


@pytest.mark.parametrize(("metadata", "error"), [
    ({}, {"message": "Metadata must not be empty.", "path": ["metadata"]}),
    ("{not json", None),
    ({"nested": {"a": "b"}}, {"message": "Unknown keys in a metadata entry: a; only 'value' and "
                                         "'type' are accepted.", "path": ["metadata", "nested"]}),
    ({"flag": True}, {"message": "Metadata values must be strings (numbers are accepted as "
                                 "text), not objects, lists or booleans.",
                      "path": ["metadata", "flag"]}),
    ({"x": {"value": "1", "type": "colour"}}, None),
])
def test_update_sample_metadata_errors_change_nothing(graphql, world, db, metadata, error):
    body = graphql.as_user(world["owner"])(UPDATE, {"input": {
        "sampleId": gid("Sample", world["sample"].id),
        "metadata": {**({"country": "Peru"} if isinstance(metadata, dict) and metadata
                        else {}), **metadata} if isinstance(metadata, dict) else metadata}})
    payload = body["data"]["updateSampleMetadata"]
    assert payload["sample"] is None
    if error is not None:
        assert payload["errors"] == [error]
    else:
        assert payload["errors"][0]["message"]
    values = dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == world["sample"].id)).all())
    assert values == {"country": "Canada", "age": "40"}


def test_update_sample_metadata_permissions(graphql, world):
    sample_id = gid("Sample", world["sample"].id)
    body = graphql.as_user(world["member"])(UPDATE, {"input": {"sampleId": sample_id,
                                                              "metadata": {"a": "b"}}})
    assert body["data"]["updateSampleMetadata"]["errors"] == [
        {"message": "You are not authorized to update sample sample-1.", "path": ["sample"]}]
    body = graphql.as_user(world["outsider"])(UPDATE, {"input": {"sampleId": sample_id,
                                                                "metadata": {"a": "b"}}})
    assert body["data"]["updateSampleMetadata"]["errors"] == [
        {"message": "Sample not found by provided ID", "path": ["sample"]}]


# -- bulkUpdateSampleMetadata ----------------------------------------------------------------

BULK = """mutation($input: BulkUpdateSampleMetadataInput!) {
  bulkUpdateSampleMetadata(input: $input) { status overallStatus errors { message path } } }"""


def test_bulk_update_by_name_and_id(graphql, factories, world, db):
    second = factories.sample(world["project"], name="sample-2")
    body = graphql.as_user(world["owner"])(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"sample-1": {"country": "Chile"},
                     gid("Sample", second.id): {"country": "Peru", "age": "3"}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    assert payload["errors"] == []
    assert payload["overallStatus"] == "successful"
    assert payload["status"]["sample-1"]["updated"] == ["country"]
    assert payload["status"][gid("Sample", second.id)]["added"] == ["country", "age"]


def test_bulk_update_writes_the_valid_samples_and_reports_the_rest(graphql, factories,
                                                                   world, db):
    """IRIDA Next's per-sample semantics: what can be written is, the rest is reported, and
    ``overallStatus`` says which happened."""
    foreign_sample = factories.sample(world["foreign"], name="elsewhere")
    second = factories.sample(world["project"], name="sample-2", metadata={"age": "7"})
    body = graphql.as_user(world["owner"])(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"sample-1": {"country": "Chile"}, "no-such-sample": {"a": "b"},
                     gid("Sample", foreign_sample.id): {"a": "b"},
                     "sample-2": {"": "x"}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    assert payload["overallStatus"] == "successful with errors"
    assert list(payload["status"]) == ["sample-1"]
    assert payload["status"]["sample-1"]["updated"] == ["country"]
    paths = [e["path"][:2] for e in payload["errors"]]
    assert ["metadata", "no-such-sample"] in paths
    assert ["metadata", gid("Sample", foreign_sample.id)] in paths
    assert ["metadata", "sample-2"] in paths
    values = dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == world["sample"].id)).all())
    assert values["country"] == "Chile"
    assert dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == second.id)).all()) == {"age": "7"}


def test_bulk_update_with_nothing_valid_writes_nothing(graphql, factories, world, db):
    body = graphql.as_user(world["owner"])(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"no-such-sample": {"a": "b"}, "sample-1": {"": "x"}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    assert payload["overallStatus"] == "unsuccessful"
    assert payload["status"] is None
    assert len(payload["errors"]) == 2
    values = dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == world["sample"].id)).all())
    assert values == {"country": "Canada", "age": "40"}


def test_bulk_update_refusal_of_one_sample_rolls_back_only_that_sample(graphql, testapp,
                                                                       factories, world, db):
    """A sample whose changes the domain refuses (a value that is not of its declared type)
    keeps none of them, not even its valid fields; the other samples are written."""
    owner = world["owner"]
    testapp.post_json(f"/api/projects/{world['project'].id}/metadataFields",
                      {"name": "host", "type": "number"}, headers=factories.headers(owner))
    second = factories.sample(world["project"], name="sample-2")
    body = graphql.as_user(owner)(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"sample-1": {"country": "Peru", "host": "not a number"},
                     "sample-2": {"age": "9"}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    assert payload["overallStatus"] == "successful with errors"
    assert list(payload["status"]) == ["sample-2"]
    assert [e["path"][:2] for e in payload["errors"]] == [["metadata", "sample-1"]]
    first = dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == world["sample"].id)).all())
    assert first == {"country": "Canada", "age": "40"}
    assert dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == second.id)).all()) == {"age": "9"}


# -- copySamples (clones), shareSamples and transferSamples ---------------------------------

COPY = """mutation($input: CloneSamplesInput!) { copySamples(input: $input) {
  samples errors { message path } } }"""
SHARE = """mutation($input: ShareSamplesInput!) { shareSamples(input: $input) {
  samples errors { message path } } }"""
TRANSFER = """mutation($input: TransferSamplesInput!) { transferSamples(input: $input) {
  samples errors { message path } } }"""


def memberships(db, sample_id):
    return sorted((j.project_id, j.owner) for j in db.scalars(
        select(ProjectSample).where(ProjectSample.sample_id == sample_id)))


def test_copy_clones_the_sample_into_the_target(graphql, world, db):
    """IRIDA Next's copySamples: a new sample, owned by the target; the original stays
    where it was (tests/graphql/test_clones.py covers the clone's metadata and files)."""
    sample_id = gid("Sample", world["sample"].id)
    body = graphql.as_user(world["owner"])(COPY, {"input": {
        "projectId": gid("Project", world["project"].id),
        "newProjectId": gid("Project", world["target"].id), "sampleIds": [sample_id]}})
    [pair] = body["data"]["copySamples"]["samples"]
    assert body["data"]["copySamples"]["errors"] == []
    assert pair["original"] == sample_id and pair["copy"] != sample_id
    clone_id = int(pair["copy"].rsplit("/", 1)[1])
    assert memberships(db, world["sample"].id) == [(world["project"].id, True)]
    assert memberships(db, clone_id) == [(world["target"].id, True)]


def test_share_shares_the_sample_read_only(graphql, world, db):
    sample_id = gid("Sample", world["sample"].id)
    body = graphql.as_user(world["owner"])(SHARE, {"input": {
        "projectId": gid("Project", world["project"].id),
        "newProjectId": gid("Project", world["target"].id), "sampleIds": [sample_id]}})
    assert body["data"]["shareSamples"] == {"samples": [sample_id], "errors": []}
    assert memberships(db, world["sample"].id) == sorted(
        [(world["project"].id, True), (world["target"].id, False)])
    again = graphql(SHARE, {"input": {
        "projectId": gid("Project", world["project"].id),
        "newProjectId": gid("Project", world["target"].id), "sampleIds": [sample_id]}})
    assert again["data"]["shareSamples"]["errors"] == [{
        "message": "Sample sample-1 is already in project Target project.",
        "path": ["samples", sample_id]}]
    assert again["data"]["shareSamples"]["samples"] is None


def test_transfer_moves_the_membership(graphql, world, db):
    sample_id = gid("Sample", world["sample"].id)
    body = graphql.as_user(world["owner"])(TRANSFER, {"input": {
        "projectId": gid("Project", world["project"].id),
        "newProjectId": gid("Project", world["target"].id), "sampleIds": [sample_id]}})
    assert body["data"]["transferSamples"] == {"samples": [sample_id], "errors": []}
    assert memberships(db, world["sample"].id) == [(world["target"].id, True)]


def test_transfer_rules(graphql, factories, world, db):
    sample_id = gid("Sample", world["sample"].id)
    base = {"projectId": gid("Project", world["project"].id),
            "newProjectId": gid("Project", world["target"].id), "sampleIds": [sample_id]}
    # A member may read but not change the source project.
    body = graphql.as_user(world["member"])(TRANSFER, {"input": base})
    assert body["data"]["transferSamples"]["errors"] == [{
        "message": "You are not authorized to transfer samples from project Source project.",
        "path": ["project"]}]
    # A target the caller cannot read is not found.
    body = graphql.as_user(world["owner"])(TRANSFER, {"input": {
        **base, "newProjectId": gid("Project", world["foreign"].id)}})
    assert body["data"]["transferSamples"]["errors"] == [{
        "message": "Project not found by provided ID", "path": ["new_project"]}]
    # A name already taken in the target, and a sample not in the source: nothing moves.
    factories.sample(world["target"], name="sample-1")
    stray = factories.sample(world["target"], name="stray")
    body = graphql(TRANSFER, {"input": {**base, "sampleIds": [sample_id,
                                                              gid("Sample", stray.id)]}})
    errors = body["data"]["transferSamples"]["errors"]
    assert {"message": "A sample named sample-1 already exists in project Target project.",
            "path": ["samples", sample_id]} in errors
    assert {"message": "Sample stray is not in project Source project.",
            "path": ["samples", gid("Sample", stray.id)]} in errors
    assert memberships(db, world["sample"].id) == [(world["project"].id, True)]
    assert body["data"]["transferSamples"]["samples"] is None
    body = graphql(TRANSFER, {"input": {**base, "newProjectId": base["projectId"]}})
    assert body["data"]["transferSamples"]["errors"][0]["path"] == ["new_project"]
    body = graphql(TRANSFER, {"input": {**base, "sampleIds": []}})
    assert body["data"]["transferSamples"]["errors"] == [
        {"message": "Provide at least one sample.", "path": ["samples"]}]


def test_transfer_moves_what_can_move_and_reports_the_rest(graphql, factories, world, db):
    """IRIDA Next's semantics: the movable samples move, each other one is an error."""
    movable = factories.sample(world["project"], name="movable")
    clash = factories.sample(world["project"], name="clash")
    factories.sample(world["target"], name="clash")
    foreign = factories.sample(world["foreign"], name="theirs")
    ids = [gid("Sample", s.id) for s in (movable, clash, foreign)]
    body = graphql.as_user(world["owner"])(TRANSFER, {"input": {
        "projectId": gid("Project", world["project"].id),
        "newProjectId": gid("Project", world["target"].id), "sampleIds": ids}})
    payload = body["data"]["transferSamples"]
    assert payload["samples"] == [ids[0]]
    assert sorted(e["path"][1] for e in payload["errors"]) == sorted(ids[1:])
    assert memberships(db, movable.id) == [(world["target"].id, True)]
    assert memberships(db, clash.id) == [(world["project"].id, True)]
    assert memberships(db, foreign.id) == [(world["foreign"].id, True)]


# -- scopes ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mutation", [CREATE_PROJECT, CREATE_SAMPLE, UPDATE, BULK, COPY,
                                      SHARE, TRANSFER])
def test_a_read_api_token_cannot_mutate(graphql, world, db, mutation):
    graphql.as_user(world["owner"], scopes=("read_api",))
    inputs = {
        CREATE_PROJECT: {"name": "Read only project"},
        CREATE_SAMPLE: {"projectId": gid("Project", world["project"].id), "name": "ro-sample"},
        UPDATE: {"sampleId": gid("Sample", world["sample"].id), "metadata": {"a": "b"}},
        BULK: {"projectId": gid("Project", world["project"].id),
               "metadata": {"sample-1": {"a": "b"}}},
        COPY: {"projectId": gid("Project", world["project"].id),
               "newProjectId": gid("Project", world["target"].id),
               "sampleIds": [gid("Sample", world["sample"].id)]},
        SHARE: {"projectId": gid("Project", world["project"].id),
                "newProjectId": gid("Project", world["target"].id),
                "sampleIds": [gid("Sample", world["sample"].id)]},
        TRANSFER: {"projectId": gid("Project", world["project"].id),
                   "newProjectId": gid("Project", world["target"].id),
                   "sampleIds": [gid("Sample", world["sample"].id)]},
    }
    before = (count(db, Project), count(db, Sample), count(db, ProjectSample),
              count(db, MetadataEntry))
    body = graphql(mutation, {"input": inputs[mutation]})
    (field, value), = body["data"].items()
    assert value is None
    assert body["errors"] == [{"message": "You are not authorized to perform this action",
                               "locations": body["errors"][0]["locations"], "path": [field],
                               "extensions": {"code": "unauthorized"}}]
    assert (count(db, Project), count(db, Sample), count(db, ProjectSample),
            count(db, MetadataEntry)) == before


def test_mutations_need_post(testapp, factories, world):
    headers = factories.graphql_headers(world["owner"])
    response = testapp.get("/api/graphql", {"query": 'mutation { createProject(input: '
                                            '{name: "Via GET"}) { errors { message } } }'},
                           headers=headers, status=405)
    assert response.json["errors"][0]["message"] == "Mutations must be sent with POST."
