"""``pipelines`` and ``pipeline(pipelineId:, workflowVersion:)`` list every analysis type in
IRIDA Next's ``Pipeline`` shape; types written in Python show their parameters as one group.
(Types made from pipeline descriptors: ``plugins/seqcore-wes/tests/test_descriptors.py``.)"""

PIPELINES = "{ pipelines { pipelineId name version executable automatable analysisType } }"
PIPELINE = """query($id: String!, $v: String!) {
  pipeline(pipelineId: $id, workflowVersion: $v) { pipelineId description workflowParams } }"""


def test_python_analysis_types_are_pipelines(graphql, factories):
    client = graphql.as_user(factories.user())
    listed = {p["pipelineId"]: p for p in client(PIPELINES)["data"]["pipelines"]}
    assert listed["readcount"] == {"pipelineId": "readcount", "name": "Read count",
                                   "version": "1.0", "executable": True, "automatable": True,
                                   "analysisType": "readcount"}
    assert "needs-tool" in listed
    one = client(PIPELINE, {"id": "readcount", "v": "1.0"})["data"]["pipeline"]
    group = one["workflowParams"]["parameters"]
    assert group["properties"]["min_length"] == {
        "type": "integer", "description": "Only count reads at least this long.",
        "required": False, "default": 0, "minimum": 0}
    assert client(PIPELINE, {"id": "readcount", "v": "2.0"})["data"] == {"pipeline": None}


def test_pipelines_need_a_signed_in_caller(testapp):
    res = testapp.post_json("/api/graphql", {"query": PIPELINES}, status=401)
    assert res.json["errors"]
