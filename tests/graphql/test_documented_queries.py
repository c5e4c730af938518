"""The queries of IRIDA Next's GraphQL documentation (docs-site/docs/extend/graphql.md,
graphql_sample_filter.md, graphql_workflow_submission.md) that are valid against IRIDA Next
return the documented shapes."""

import base64

from seqcore.testing.uploads import direct_upload, fastq
from tests.graphql.conftest import gid


def test_current_user(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)("query { currentUser { email } }")
    assert body == {"data": {"currentUser": {"email": "user0@email.com"}}}


def test_samples_first_five(graphql, outbreak):
    owner, _, samples = outbreak
    body = graphql.as_user(owner)("query { samples(first: 5) { nodes { name id } } }")
    assert body == {"data": {"samples": {"nodes": [
        {"name": s.name, "id": gid("Sample", s.id)} for s in samples]}}}


def test_sample_detail_through_node(graphql, outbreak):
    owner, project, samples = outbreak
    sample = samples[0]
    sample_id = gid("Sample", sample.id)
    body = graphql.as_user(owner)(
        f'query {{ node(id: "{sample_id}") {{ ... on Sample {{ id, name description metadata '
        "project { id, fullPath } } } }")
    assert body == {"data": {"node": {
        "id": gid("Sample", sample.id),
        "name": "Outbreak-2022-Sample-1",
        "description": "Sample 1",
        "metadata": {"age": "31", "collection_date": "2024-01-15", "country": "Canada"},
        "project": {"id": gid("Project", project.id), "fullPath": "user0/outbreak-2022"},
    }}}


def test_curl_token_example_with_the_brace_corrected(testapp, factories, outbreak):
    """The documented curl call: Basic base64(email:token), JSON body; the documentation's
    body has one closing brace too many, corrected here."""
    owner, _, _ = outbreak
    token = factories.access_token(owner, scopes=("read_api",))
    encoded = base64.b64encode(f"user0@email.com:{token}".encode()).decode()
    response = testapp.post(
        "/api/graphql", '{"query": "query {currentUser{email}}"}',
        headers={"Authorization": f"Basic {encoded}", "Content-Type": "application/json"})
    assert response.status_int == 200
    assert response.json == {"data": {"currentUser": {"email": "user0@email.com"}}}


def test_the_documented_stray_brace_is_a_syntax_error(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)("query {currentUser{email}}}")
    assert "data" not in body
    assert body["errors"][0]["message"].startswith("Syntax Error")


# -- The other pages: graphql_sample_filter.md and graphql_workflow_submission.md ----------
# Each query as the page prints it. The workflow tutorial says its ids "are unique to your
# database": each test swaps in the ids of its own data (``replace``) and nothing else, and
# the pipeline (IRIDA Next's example pipeline, with its parameters) for the test deployment's.

SAMPLE_FILTER = """query {
  samples(
    orderBy: { field: name, direction: desc }
    filter: {
      name_or_puid_cont: "Sample Name"
      advanced_search: [
        [
          { field: "metadata.country", operator: EQUALS, value: "Canada" }
          {
            field: "metadata.collection_date"
            operator: GREATER_THAN_EQUALS
            value: "2024-01-01"
          }
          {
            field: "metadata.collection_date"
            operator: LESS_THAN_EQUALS
            value: "2024-12-31"
          }
        ]
        [
          {
            field: "metadata.outbreak_code"
            operator: IN
            value: ["2406MLGX6-1", "2406MLGX6-2"]
          }
        ]
      ]
    }
  ) {
    nodes {
      name
      description
      id
      puid
      createdAt
      metadata
    }
    totalCount
  }
}"""

GET_PIPELINES = """query getPipelines {
  pipelines(workflowType: "available") {
    pipelineId
    name
    version
  }
}"""

# Not valid against IRIDA Next itself (its Pipeline type has no `metadata`): not run.
GET_PIPELINE_INFO = """query getPipelineInfo {
  pipeline(pipelineId: "phac-nml/iridanextexample", workflowVersion: "1.0.3") {
    automatable
    description
    executable
    metadata
    name
    version
    workflowParams
  }
}"""

GET_PROJECTS = """query getProjects {
  projects(first: 1) {
    nodes {
      fullName
      id
      fullPath
    }
  }
}"""

GET_PROJECT_INFO = """query getProjectInfo {
  project(fullPath: "borrelia/borrelia-burgdorferi/outbreak-2024") {
    samples(first: 1) {
      nodes {
        id
        puid
        attachments {
          nodes {
            filename
            id
          }
        }
      }
    }
  }
}"""

SUBMIT = """mutation submitWorkflowExecution {
  submitWorkflowExecution(
    input: {
      name: "My Workflow Submission from GraphQL"
      projectId: "gid://irida/Project/2bd03791-2213-444d-8df3-fdda40fc262a"
      updateSamples: false
      emailNotification: false
      pipelineId: "phac-nml/iridanextexample"
      workflowVersion: "1.0.3"
      workflowParams: {
        assembler: "stub"
        random_seed: 1
        project_name: "assembly"
      }
      samplesWorkflowExecutionsAttributes: [
        {
          sample_id: "gid://irida/Sample/c9f3806d-4bf1-4462-bc46-7b547338cc11"
          samplesheet_params: {
            sample: "INXT_SAM_AZCMYRDHEJ"
            fastq_1: "gid://irida/Attachment/f2fad21f-f68f-4871-990f-b47880bed390"
            fastq_2: "gid://irida/Attachment/cad0ae33-0c82-4960-8580-92358686609f"
          }
        }
      ]
    }
  ) {
    workflowExecution {
      name
      state
      id
    }
    errors {
      message
      path
    }
  }
}"""

# Documented queries that need what the groups branch builds (Project.fullName); the lead
# empties this list when merging it, and each then runs like the others.
def test_the_documented_sample_filter(graphql, outbreak, factories):
    owner, project, _ = outbreak
    for n, code in enumerate(["2406MLGX6-1", "other"], 1):
        factories.sample(project, name=f"Sample Name {n}", description=f"Filtered {n}",
                         metadata={"country": "Canada", "collection_date": "2024-05-0{n}",
                                   "outbreak_code": code})
    factories.sample(project, name="Sample Name 3", metadata={"country": "Peru"})
    body = graphql.as_user(owner)(SAMPLE_FILTER)
    assert "errors" not in body, body
    found = body["data"]["samples"]
    assert found["totalCount"] == 2
    assert [n["name"] for n in found["nodes"]] == ["Sample Name 2", "Sample Name 1"]
    node = found["nodes"][0]
    assert set(node) == {"name", "description", "id", "puid", "createdAt", "metadata"}
    assert node["puid"].startswith("INXT_SAM_") and node["id"].startswith("gid://seqcore/")
    assert node["metadata"]["country"] == "Canada"


def test_the_documented_pipelines_listing(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)(GET_PIPELINES)
    assert "errors" not in body, body
    pipelines = body["data"]["pipelines"]
    assert pipelines and all(set(p) == {"pipelineId", "name", "version"} for p in pipelines)
    assert {"pipelineId": "readcount", "name": "Read count", "version": "1.0"} in pipelines


def test_the_pipeline_info_query_is_not_valid_against_irida_next_either(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)(GET_PIPELINE_INFO)
    assert "data" not in body
    assert "metadata" in body["errors"][0]["message"]


def test_the_documented_projects_query(graphql, outbreak):
    owner, project, _ = outbreak
    body = graphql.as_user(owner)(GET_PROJECTS)
    assert "errors" not in body, body
    assert body["data"]["projects"]["nodes"] == [{
        "fullName": body["data"]["projects"]["nodes"][0]["fullName"],
        "id": gid("Project", project.id), "fullPath": project.full_path}]


def _pair(graphql, testapp, sample):
    files = [direct_upload(testapp, graphql, f"08-5578-small_S1_L001_R{n}_001.fastq",
                           fastq(seed=n)) for n in (1, 2)]
    body = graphql("""mutation($files: [String!]!, $id: ID) { attachFilesToSample(input:
        {files: $files, sampleId: $id}) { errors { message } } }""",
                   {"files": files, "id": gid("Sample", sample.id)})
    assert body["data"]["attachFilesToSample"]["errors"] == []


def test_the_documented_project_samples_and_files(graphql, testapp, outbreak):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    _pair(graphql, testapp, samples[0])
    query = GET_PROJECT_INFO.replace("borrelia/borrelia-burgdorferi/outbreak-2024",
                                     project.full_path)
    body = graphql(query)
    assert "errors" not in body, body
    node = body["data"]["project"]["samples"]["nodes"][0]
    assert node["id"] == gid("Sample", samples[0].id)
    assert node["puid"] == samples[0].puid
    assert sorted(a["filename"] for a in node["attachments"]["nodes"]) == [
        "08-5578-small_S1_L001_R1_001.fastq", "08-5578-small_S1_L001_R2_001.fastq"]
    assert all(a["id"].startswith("gid://seqcore/Attachment/")
               for a in node["attachments"]["nodes"])


def test_the_documented_workflow_submission(graphql, testapp, outbreak):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    _pair(graphql, testapp, samples[0])
    files = graphql("""query($id: ID!) { node(id: $id) { ... on Sample { attachments {
        nodes { id metadata } } } } }""", {"id": gid("Sample", samples[0].id)})
    by_direction = {a["metadata"]["direction"]: a["id"]
                    for a in files["data"]["node"]["attachments"]["nodes"]}
    mutation = (SUBMIT
                .replace("gid://irida/Project/2bd03791-2213-444d-8df3-fdda40fc262a",
                         gid("Project", project.id))
                .replace("gid://irida/Sample/c9f3806d-4bf1-4462-bc46-7b547338cc11",
                         gid("Sample", samples[0].id))
                .replace("INXT_SAM_AZCMYRDHEJ", samples[0].puid)
                .replace("gid://irida/Attachment/f2fad21f-f68f-4871-990f-b47880bed390",
                         by_direction["forward"])
                .replace("gid://irida/Attachment/cad0ae33-0c82-4960-8580-92358686609f",
                         by_direction["reverse"])
                .replace('"phac-nml/iridanextexample"', '"readcount"')
                .replace('"1.0.3"', '"1.0"')
                .replace('assembler: "stub"\n        random_seed: 1\n        '
                         'project_name: "assembly"', "min_length: 1"))
    body = graphql(mutation)
    assert "errors" not in body, body
    payload = body["data"]["submitWorkflowExecution"]
    assert payload["errors"] == []
    assert payload["workflowExecution"]["name"] == "My Workflow Submission from GraphQL"
    assert payload["workflowExecution"]["state"] == "initial"
    assert payload["workflowExecution"]["id"].startswith("gid://seqcore/WorkflowExecution/")
