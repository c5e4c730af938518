"""Data exports in GraphQL: ``createDataExport`` checks as REST does (problems in the payload
at their input paths, nothing stored); ``dataExport``, ``dataExports``, ``Project.dataExports``
and ``node(id:)`` show an export to its requester (and administrators) only; the download
link is REST's; ``deleteDataExport`` removes it."""

import io
import zipfile

import pytest
from sqlalchemy import func, select

from seqcore.models.export import DataExport
from seqcore.models.user import SystemRole
from seqcore.testing.workers import ExportWorker
from tests.graphql.conftest import gid

CREATE = """
mutation($input: CreateDataExportInput!) {
  createDataExport(input: $input) {
    dataExport { id name status state exportParameters downloadUrl project { name } }
    errors { message path }
  }
}"""

ONE = """
query($id: ID!) {
  dataExport(id: $id) { id name status state manifest size downloadUrl expiresAt createdAt }
}"""

MINE = """
query($path: ID!) {
  dataExports(first: 10) { totalCount nodes { id state } }
  project(fullPath: $path) { dataExports(first: 10) { totalCount nodes { id name } } }
}"""

DELETE = """
mutation($id: ID!) {
  deleteDataExport(input: {id: $id}) { deletedId errors { message path } }
}"""


@pytest.fixture
def exportable(factories, outbreak):
    owner, project, samples = outbreak
    factories.sequencing_object(samples[0], kind="pairs")
    return owner, project, samples


def count(db):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(DataExport))


def test_create_build_read_download_and_delete(graphql, testapp, app_config, factories,
                                               exportable, db):
    owner, project, samples = exportable
    client = graphql.as_user(owner)
    payload = client(CREATE, {"input": {
        "projectId": gid("Project", project.id), "name": "Partner lab",
        "sampleIds": [gid("Sample", samples[0].id), gid("Sample", samples[1].id)],
        "metadataFields": ["country", "age"]}})["data"]["createDataExport"]
    assert payload["errors"] == []
    export = payload["dataExport"]
    assert (export["status"], export["state"], export["downloadUrl"]) == (
        "processing", "QUEUED", None)
    assert export["exportParameters"]["samples"] == [samples[0].id, samples[1].id]
    assert export["project"]["name"] == "Outbreak 2022"

    ExportWorker(app_config.registry, "w").run_once()
    ready = client(ONE, {"id": export["id"]})["data"]["dataExport"]
    assert ready["status"] == "ready" and ready["expiresAt"]
    assert ready["downloadUrl"].endswith(f"/api/exports/{export['id'].rsplit('/', 1)[1]}"
                                         "/download")
    body = testapp.get(ready["downloadUrl"], headers=factories.headers(owner)).body
    assert len(body) == ready["size"]
    with zipfile.ZipFile(io.BytesIO(body)) as bundle:
        listed = sorted(name for name in bundle.namelist()
                        if not name.endswith("manifest.json"))
    assert listed == sorted(entry["path"] for entry in ready["manifest"])
    node = client("query($id: ID!) { node(id: $id) { ... on DataExport { name } } }",
                  {"id": export["id"]})["data"]["node"]
    assert node == {"name": "Partner lab"}
    mine = client(MINE, {"path": project.full_path})["data"]
    assert mine["dataExports"]["totalCount"] == 1
    assert mine["project"]["dataExports"]["nodes"] == [{"id": export["id"],
                                                        "name": "Partner lab"}]

    deleted = client(DELETE, {"id": export["id"]})["data"]["deleteDataExport"]
    assert deleted == {"deletedId": export["id"], "errors": []}
    assert count(db) == 0


def test_problems_come_back_at_their_paths_and_nothing_is_stored(graphql, factories,
                                                                  exportable, db):
    owner, project, _ = exportable
    stranger = factories.sample(factories.project(owner=owner))
    payload = graphql.as_user(owner)(CREATE, {"input": {
        "projectId": gid("Project", project.id), "name": "",
        "sampleIds": [gid("Sample", stranger.id)], "fileKinds": ["reads"],
        "analysisIds": [gid("AnalysisSubmission", 99999)]}})["data"]["createDataExport"]
    assert payload["dataExport"] is None
    paths = {tuple(error["path"]): error["message"] for error in payload["errors"]}
    assert set(paths) == {("name",), ("sampleIds",), ("fileKinds",), ("analysisIds",)}
    assert paths[("sampleIds",)] == f"No sample {stranger.id} in project {project.id}."
    assert count(db) == 0


def test_only_the_requester_and_administrators_see_an_export(graphql, factories, exportable,
                                                             db):
    owner, project, samples = exportable
    outsider = factories.user(username="outsider")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    refused = graphql.as_user(outsider)(CREATE, {"input": {
        "projectId": gid("Project", project.id), "sampleIds": [gid("Sample", samples[0].id)]
    }})["data"]["createDataExport"]
    assert refused["errors"] == [{"message": "Project not found by provided ID",
                                  "path": ["projectId"]}]
    made = graphql.as_user(owner)(CREATE, {"input": {
        "projectId": gid("Project", project.id), "sampleIds": [gid("Sample", samples[0].id)]
    }})["data"]["createDataExport"]["dataExport"]
    hidden = graphql.as_user(outsider)(ONE, {"id": made["id"]})
    assert hidden["data"]["dataExport"] is None
    assert hidden["errors"][0]["extensions"]["code"] == "not_found"
    assert graphql.as_user(outsider)(MINE, {"path": project.full_path})["data"][
        "dataExports"]["totalCount"] == 0
    gone = graphql.as_user(outsider)(DELETE, {"id": made["id"]})["data"]["deleteDataExport"]
    assert gone["errors"] == [{"message": "Data export not found by provided ID",
                               "path": ["id"]}]
    assert graphql.as_user(admin)(ONE, {"id": made["id"]})["data"]["dataExport"]["id"] == \
        made["id"]
    read_only = graphql.as_user(owner, scopes=("read_api",))(CREATE, {"input": {
        "projectId": gid("Project", project.id), "sampleIds": [gid("Sample", samples[0].id)]
    }})
    assert read_only["errors"][0]["extensions"]["code"] == "unauthorized"
    assert count(db) == 1
