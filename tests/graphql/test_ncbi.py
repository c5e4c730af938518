"""NCBI submissions in GraphQL: ``createNcbiSubmission`` checks as REST does (problems in the
payload at their input paths, nothing stored), ``Project.ncbiSubmissions`` and ``node(id:)``
show them to whoever reads the project."""

import pytest
from sqlalchemy import func, select

from seqcore.models.ncbi import NcbiSubmission
from seqcore.models.project import ProjectMember, ProjectRole
from tests.graphql.conftest import gid

CREATE = """
mutation($input: CreateNcbiSubmissionInput!) {
  createNcbiSubmission(input: $input) {
    submission { id state bioProject bioSamplePackage attributes
      samples { sampleName status spuid libraryStrategy instrumentModel attributes
                sample { name } runs { libraryLayout status sequencingObjectId } } }
    errors { message path }
  }
}"""

LIST = """
query($path: ID!) {
  project(fullPath: $path) {
    ncbiSubmissions(first: 10) { totalCount nodes { id state organization project { name } } }
  }
}"""


@pytest.fixture
def submittable(factories, outbreak):
    owner, project, samples = outbreak
    sample = samples[0]
    factories.sequencing_object(sample, kind="pairs")
    return owner, project, sample


def submission_input(project, sample, **extra):
    return {"projectId": gid("Project", project.id), "bioProject": "PRJNA77",
            "organization": "Lab", "namespace": "LAB", "bioSamplePackage": "Microbe.1.0",
            "attributes": {"collection_date": "collection_date", "geo_loc_name": "country",
                           "isolate": "age", "host": "country", "sample_type": "country",
                           "organism": "country"},
            "libraryStrategy": "WGS", "librarySource": "GENOMIC",
            "librarySelection": "RANDOM", "instrumentModel": "Illumina MiSeq",
            "samples": [{"sampleId": gid("Sample", sample.id), "libraryName": "L1"}],
            **extra}


def count(db):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(NcbiSubmission))


def test_create_and_read_back(graphql, submittable, factories, db):
    owner, project, sample = submittable
    data = graphql.as_user(owner)(CREATE, {"input": submission_input(project, sample)})
    payload = data["data"]["createNcbiSubmission"]
    assert payload["errors"] == []
    submission = payload["submission"]
    assert submission["state"] == "NEW"
    assert submission["bioSamplePackage"] == "Microbe.1.0"
    assert submission["samples"][0]["sample"] == {"name": sample.name}
    assert submission["samples"][0]["attributes"]["collection_date"] == "2024-01-15"
    assert submission["samples"][0]["runs"][0]["libraryLayout"] == "PAIRED"
    reader = factories.user(username="reader")
    db.add(ProjectMember(project_id=project.id, user_id=reader.id,
                         role=ProjectRole.USER.value))
    db.commit()
    listed = graphql.as_user(reader)(LIST, {"path": project.full_path})["data"]
    connection = listed["project"]["ncbiSubmissions"]
    assert connection["totalCount"] == 1
    assert connection["nodes"] == [{"id": submission["id"], "state": "NEW",
                                    "organization": "Lab", "project": {"name": project.name}}]
    node = graphql("query($id: ID!) { node(id: $id) { ... on NcbiSubmission { bioProject } } }",
                   {"id": submission["id"]})
    assert node["data"]["node"] == {"bioProject": "PRJNA77"}


def test_problems_come_back_at_their_input_paths_and_nothing_is_stored(graphql, submittable,
                                                                        db):
    owner, project, sample = submittable
    bad = submission_input(project, sample, bioProject="nope", attributes={})
    bad["samples"][0]["libraryStrategy"] = "GUESSING"
    payload = graphql.as_user(owner)(CREATE, {"input": bad})["data"]["createNcbiSubmission"]
    assert payload["submission"] is None
    paths = {tuple(error["path"]) for error in payload["errors"]}
    assert paths == {("bioProject",), ("samples", "0", "libraryStrategy"),
                     ("samples", "0", "attributes")}
    messages = [e["message"] for e in payload["errors"] if e["path"][-1] == "attributes"]
    assert any("'sample_type', mandatory in Microbe.1.0" in m for m in messages)
    assert count(db) == 0


def test_members_who_do_not_own_the_project_may_not_submit(graphql, submittable, factories,
                                                           db):
    owner, project, sample = submittable
    analyst = factories.user(username="analyst")
    outsider = factories.user(username="outsider")
    db.add(ProjectMember(project_id=project.id, user_id=analyst.id,
                         role=ProjectRole.USER.value))
    db.commit()
    payload = graphql.as_user(analyst)(CREATE, {"input": submission_input(project, sample)})
    assert payload["data"]["createNcbiSubmission"]["errors"] == [{
        "message": f"You are not authorized to submit to NCBI project {project.name}.",
        "path": ["projectId"]}]
    payload = graphql.as_user(outsider)(CREATE, {"input": submission_input(project, sample)})
    assert payload["data"]["createNcbiSubmission"]["errors"] == [{
        "message": "Project not found by provided ID", "path": ["projectId"]}]
    read_only = graphql.as_user(owner, scopes=("read_api",))(
        CREATE, {"input": submission_input(project, sample)})
    assert read_only["errors"][0]["extensions"]["code"] == "unauthorized"
    assert count(db) == 0


def test_node_of_a_project_the_caller_cannot_read_is_hidden(graphql, submittable, factories):
    owner, project, sample = submittable
    created = graphql.as_user(owner)(CREATE, {"input": submission_input(project, sample)})
    submission_id = created["data"]["createNcbiSubmission"]["submission"]["id"]
    stranger = factories.user(username="stranger")
    data = graphql.as_user(stranger)(
        "query($id: ID!) { node(id: $id) { id } }", {"id": submission_id})
    assert data["data"]["node"] is None
    assert data["errors"][0]["extensions"]["code"] == "not_found"


def test_a_client_mutation_id_is_echoed_not_taken_for_a_field(graphql, submittable):
    owner, project, sample = submittable
    payload = graphql.as_user(owner)(
        "mutation($input: CreateNcbiSubmissionInput!) { createNcbiSubmission(input: $input) "
        "{ clientMutationId errors { message } submission { state } } }",
        {"input": {**submission_input(project, sample), "clientMutationId": "n1"}})
    assert payload["data"]["createNcbiSubmission"] == {
        "clientMutationId": "n1", "errors": [], "submission": {"state": "NEW"}}


def test_cancel_analysis_takes_a_client_mutation_id_too(graphql, outbreak):
    """The fuzzer's finding: ``cancelAnalysis`` with a ``clientMutationId`` was an internal
    error (its resolver refused the argument)."""
    owner, _, _ = outbreak
    payload = graphql.as_user(owner)(
        "mutation($input: CancelAnalysisInput!) { cancelAnalysis(input: $input) "
        "{ clientMutationId errors { message path } } }",
        {"input": {"id": gid("AnalysisSubmission", 424242), "clientMutationId": "c1"}})
    assert payload["data"]["cancelAnalysis"] == {"clientMutationId": "c1", "errors": [
        {"message": "Analysis submission not found by provided ID", "path": ["id"]}]}
