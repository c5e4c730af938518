"""Bot accounts over GraphQL: ``userType`` names them, member listings show them when asked,
and a bot's token acts at its level: an uploader creates samples, attaches their files and
writes their metadata, as IRIDA Next's uploader tokens do, and nothing more."""

import pytest

from seqcore.models.group import AccessLevel
from seqcore.models.project import Project
from seqcore.models.sample import Sample
from seqcore.projects.bots import create_bot, delete_bot
from seqcore.testing.uploads import direct_upload, fastq
from tests.graphql.conftest import gid

CREATE_SAMPLE = """mutation($input: CreateSampleInput!) { createSample(input: $input) {
  sample { id name } errors { message } } }"""
UPDATE = """mutation($input: UpdateSampleMetadataInput!) { updateSampleMetadata(input: $input)
  { sample { metadata } errors { message } } }"""
ATTACH = """mutation($files: [String!]!, $sampleId: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId}) {
    errors { message } } }"""
ARCHIVE = """mutation($p: ID!) { archiveProject(input: {projectId: $p}) {
  project { archived } errors { message } } }"""
READ_PROJECT = """query($path: ID!) { project(fullPath: $path) { name } }"""
MEMBERS = """query($path: ID!, $types: [String!]) { group(fullPath: $path) {
  members(userType: $types) { nodes { user { email userType } accessLevel } } } }"""
MEMBERS_DEFAULT = """query($path: ID!) { group(fullPath: $path) {
  members { nodes { user { email userType } } } } }"""


def _bot(factories, namespace, level):
    """A bot of ``namespace`` made by an administrator: its account's e-mail and Basic
    headers with its first token."""
    with factories.session_factory() as db:
        target = db.get_one(type(namespace), namespace.id)
        bot, token = create_bot(db, target, level, "bot", ["api"], actor_id=None)
        email = token.record.user.email
        db.commit()
        return bot.id, email, factories.basic(email, token.secret)


def _sample(graphql, headers, project, name):
    return graphql(CREATE_SAMPLE, {"input": {"projectId": gid("Project", project.id),
                                             "name": name}},
                   headers=headers)["data"]["createSample"]


def test_an_uploader_bot_creates_samples_attaches_files_and_writes_metadata(
        graphql, testapp, factories, outbreak, db):
    _, project, samples = outbreak
    _, _, headers = _bot(factories, project, "UPLOADER")
    made = _sample(graphql, headers, project, "uploaded-by-bot")
    assert made["errors"] == [] and made["sample"]["name"] == "uploaded-by-bot"
    sample_id = made["sample"]["id"]
    body = graphql(UPDATE, {"input": {"sampleId": sample_id, "metadata": {"host": "cow"}}},
                   headers=headers)
    assert body["data"]["updateSampleMetadata"]["errors"] == []
    assert body["data"]["updateSampleMetadata"]["sample"]["metadata"] == {"host": "cow"}
    graphql.headers = headers
    blob = direct_upload(testapp, graphql, "r_R1.fastq", fastq(seed=3))
    body = graphql(ATTACH, {"files": [blob], "sampleId": sample_id})
    assert body["data"]["attachFilesToSample"]["errors"] == [], body
    # The project's own samples too (the project owns them).
    body = graphql(UPDATE, {"input": {"sampleId": gid("Sample", samples[0].id),
                                      "metadata": {"host": "goat"}}}, headers=headers)
    assert body["data"]["updateSampleMetadata"]["errors"] == []


def test_an_uploader_bot_does_not_change_the_project(graphql, factories, outbreak, db):
    _, project, _ = outbreak
    _, _, headers = _bot(factories, project, "UPLOADER")
    body = graphql(ARCHIVE, {"p": gid("Project", project.id)}, headers=headers)
    assert body["data"]["archiveProject"]["project"] is None
    assert body["data"]["archiveProject"]["errors"]
    db.expire_all()
    assert db.get(Project, project.id).archived_at is None


@pytest.mark.parametrize("level", ["GUEST", "ANALYST"])
def test_only_the_uploader_level_uploads(graphql, factories, outbreak, db, level):
    """IRIDA Next gives sample creation to the uploader, not to the guest or the analyst
    (a maintainer writes the whole project)."""
    _, project, _ = outbreak
    _, _, headers = _bot(factories, project, level)
    before = db.query(Sample).count()
    made = _sample(graphql, headers, project, f"by-{level.lower()}")
    assert made["sample"] is None and made["errors"]
    assert db.query(Sample).count() == before
    # ...but it reads the project.
    body = graphql(READ_PROJECT, {"path": project.full_path}, headers=headers)
    assert body["data"]["project"]["name"] == project.name


def test_a_maintainer_bot_writes_like_a_maintainer(graphql, factories, outbreak):
    _, project, _ = outbreak
    _, _, headers = _bot(factories, project, "MAINTAINER")
    made = _sample(graphql, headers, project, "by-maintainer")
    assert made["errors"] == []
    body = graphql(UPDATE, {"input": {"sampleId": made["sample"]["id"],
                                      "metadata": {"host": "cow"}}}, headers=headers)
    assert body["data"]["updateSampleMetadata"]["errors"] == []


def test_a_group_maintainer_writes_metadata_of_the_projects_samples(graphql, factories):
    """Reaching a project only through groups is reaching it: the metadata write check
    counted direct members alone, and refused a group maintainer every field."""
    owner = factories.user(username="owner")
    maint = factories.user(username="maint")
    group = factories.group(owner, name="Lab", members=[(maint, AccessLevel.MAINTAINER)])
    project = factories.project(owner=owner, name="Grouped", group=group)
    sample = factories.sample(project, name="sample-1")
    body = graphql.as_user(maint)(UPDATE, {"input": {"sampleId": gid("Sample", sample.id),
                                                     "metadata": {"host": "cow"}}})
    assert body["data"]["updateSampleMetadata"]["errors"] == []
    assert body["data"]["updateSampleMetadata"]["sample"]["metadata"] == {"host": "cow"}


def test_a_human_uploader_of_a_group_uploads_too(graphql, factories, testapp, db):
    owner = factories.user(username="owner")
    uploader = factories.user(username="uploader")
    group = factories.group(owner, name="Upload lab", members=[(uploader, AccessLevel.UPLOADER)])
    project = factories.project(owner=owner, name="Uploads", group=group)
    graphql.as_user(uploader)
    made = _sample(graphql, graphql.headers, project, "by-uploader")
    assert made["errors"] == []
    body = graphql(UPDATE, {"input": {"sampleId": made["sample"]["id"],
                                      "metadata": {"host": "cow"}}})
    assert body["data"]["updateSampleMetadata"]["errors"] == []
    # ...but neither changes nor deletes the project, nor removes the sample from it.
    headers = factories.headers(uploader)
    testapp.patch_json(f"/api/projects/{project.id}", {"projectDescription": "x"},
                       headers=headers, status=403)
    testapp.delete(f"/api/projects/{project.id}", headers=headers, status=403)
    sample_id = made["sample"]["id"].rsplit("/", 1)[1]
    testapp.delete(f"/api/projects/{project.id}/samples/{sample_id}", headers=headers,
                   status=403)
    db.expire_all()
    assert db.get(Project, project.id) is not None


def test_a_deleted_bots_token_stops_at_once(graphql, factories, outbreak):
    _, project, _ = outbreak
    bot_id, _, headers = _bot(factories, project, "UPLOADER")
    graphql(READ_PROJECT, {"path": project.full_path}, headers=headers)
    with factories.session_factory() as db:
        delete_bot(db, db.get_one(Project, project.id), bot_id, actor_id=None)
        db.commit()
    graphql(READ_PROJECT, {"path": project.full_path}, headers=headers, status=401)


def test_user_type_names_bots_and_member_listings_show_them_when_asked(graphql, factories):
    owner = factories.user(username="owner", email="owner@example.org")
    group = factories.group(owner, name="Bot lab")
    _, bot_email, _ = _bot(factories, group, "ANALYST")
    graphql.as_user(owner)
    people = graphql(MEMBERS_DEFAULT, {"path": group.full_path})["data"]["group"]["members"]
    assert people["nodes"] == [{"user": {"email": "owner@example.org", "userType": "human"}}]
    bots = graphql(MEMBERS, {"path": group.full_path, "types": ["group_bot"]}
                   )["data"]["group"]["members"]["nodes"]
    assert bots == [{"user": {"email": bot_email, "userType": "group_bot"},
                     "accessLevel": "Analyst"}]
    both = graphql(MEMBERS, {"path": group.full_path, "types": ["human", "group_bot"]}
                   )["data"]["group"]["members"]["nodes"]
    assert {n["user"]["userType"] for n in both} == {"human", "group_bot"}
    everyone = graphql(MEMBERS, {"path": group.full_path, "types": None}
                       )["data"]["group"]["members"]["nodes"]
    assert len(everyone) == 2
