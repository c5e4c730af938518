"""``launchAnalysis``: REST's launch over GraphQL, problems in the payload."""

from seqcore.analysis.worker import AnalysisWorker
from seqcore.models.analysis import AnalysisSubmission

LAUNCH = """
mutation($input: LaunchAnalysisInput!) {
  launchAnalysis(input: $input) {
    submission { id name analysisType state parameters }
    errors { message path }
  }
}
"""

NODE = "query($id: ID!) { node(id: $id) { ... on AnalysisSubmission { id state } } }"


def test_launch_and_follow(graphql, factories, app_config, db):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    factories.sequencing_object(sample, "pairs")
    graphql.as_user(owner)
    data = graphql(LAUNCH, {"input": {"analysisType": "readcount", "name": "from graphql",
                                      "sampleIds": [f"gid://seqcore/Sample/{sample.id}"],
                                      "parameters": {"min_length": 10}}})["data"]
    payload = data["launchAnalysis"]
    assert payload["errors"] == []
    submission = payload["submission"]
    assert (submission["name"], submission["analysisType"], submission["state"]) == (
        "from graphql", "readcount", "NEW")
    assert submission["parameters"]["min_length"] == "10"
    AnalysisWorker(app_config.registry).run_until_idle(timeout=60)
    node = graphql(NODE, {"id": submission["id"]})["data"]["node"]
    assert node["state"] == "COMPLETED"
    # Another account cannot see it.
    graphql.as_user(factories.user())
    assert graphql(NODE, {"id": submission["id"]}).get("data", {}).get("node") is None


def test_problems_come_back_in_the_payload(graphql, factories, db):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    factories.sequencing_object(sample, "pairs")
    graphql.as_user(owner)
    payload = graphql(LAUNCH, {"input": {
        "analysisType": "readcount", "sampleIds": [f"gid://seqcore/Sample/{sample.id}"],
        "parameters": {"min_length": "many"}}})["data"]["launchAnalysis"]
    assert payload["submission"] is None
    assert payload["errors"] == [{"message": "'min_length' must be a whole number.",
                                  "path": ["parameters", "min_length"]}]
    payload = graphql(LAUNCH, {"input": {"analysisType": "nothing", "sampleIds": []}})[
        "data"]["launchAnalysis"]
    assert payload["errors"][0]["path"] == ["analysisType"]
    assert db.query(AnalysisSubmission).count() == 0


def test_read_api_tokens_cannot_launch(graphql, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    graphql.as_user(owner, scopes=("read_api",))
    body = graphql(LAUNCH, {"input": {"analysisType": "readcount",
                                      "sampleIds": [f"gid://seqcore/Sample/{sample.id}"]}})
    assert body["errors"][0]["extensions"]["code"] == "unauthorized"
