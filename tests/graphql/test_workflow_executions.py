"""submitWorkflowExecution launches through the domain's launch; workflowExecutions shows the
caller's submissions in IRIDA Next's states, with their outputs as attachments; updateSamples
writes results back to the sample."""

from seqcore.testing.uploads import direct_upload, fastq
from tests.graphql.conftest import gid

ATTACH = """mutation($files: [String!]!, $sampleId: ID) {
  attachFilesToSample(input: {files: $files, sampleId: $sampleId}) { errors { message } } }"""
ATTACHMENT_IDS = """query($id: ID!) { node(id: $id) { ... on Sample { attachments {
  nodes { id filename metadata } } } } }"""
SUBMIT = """mutation($input: SubmitWorkflowExecutionInput!) {
  submitWorkflowExecution(input: $input) {
    workflowExecution { id name state metadata updateSamples
                        samplesWorkflowExecutions { sample { id } } }
    errors { message path } } }"""
EXECUTIONS = """{ workflowExecutions(first: 5) { totalCount nodes { id name state workflowParams
  submitter { email } project { fullPath }
  attachments(first: 5) { nodes { filename metadata } } } } }"""


def _pair_on(graphql, testapp, sample):
    files = [direct_upload(testapp, graphql, name, fastq(seed=n))
             for n, name in enumerate(["s_R1.fastq", "s_R2.fastq"], 1)]
    assert graphql(ATTACH, {"files": files, "sampleId": gid("Sample", sample.id)}
                   )["data"]["attachFilesToSample"]["errors"] == []
    nodes = graphql(ATTACHMENT_IDS, {"id": gid("Sample", sample.id)}
                    )["data"]["node"]["attachments"]["nodes"]
    return {n["metadata"]["direction"]: n["id"] for n in nodes}


def submit_input(project, sample, ids, **extra):
    return {"name": "Counting from GraphQL", "projectId": gid("Project", project.id),
            "pipelineId": "readcount", "workflowVersion": "1.0",
            "workflowParams": {"min_length": 0},
            "samplesWorkflowExecutionsAttributes": [{
                "sample_id": gid("Sample", sample.id),
                "samplesheet_params": {"sample": sample.puid, "fastq_1": ids["forward"],
                                       "fastq_2": ids["reverse"]}}], **extra}


def test_submit_run_and_read_back(graphql, testapp, outbreak, factories, run_analysis, db):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    ids = _pair_on(graphql, testapp, samples[0])
    body = graphql(SUBMIT, {"input": submit_input(project, samples[0], ids,
                                                  updateSamples=True)})
    assert "errors" not in body, body
    payload = body["data"]["submitWorkflowExecution"]
    assert payload["errors"] == []
    execution = payload["workflowExecution"]
    assert execution["name"] == "Counting from GraphQL"
    assert execution["state"] == "initial"
    assert execution["metadata"] == {"pipeline_id": "readcount", "workflow_version": "1.0"}
    assert execution["updateSamples"] is True
    assert execution["samplesWorkflowExecutions"] == [{"sample": {"id": gid("Sample",
                                                                            samples[0].id)}}]
    submission_id = int(execution["id"].rsplit("/", 1)[1])
    run = run_analysis.drive(submission_id, factories.headers(owner))
    assert run.state == "COMPLETED"
    listed = graphql(EXECUTIONS)
    assert "errors" not in listed, listed
    listed = listed["data"]["workflowExecutions"]
    assert listed["totalCount"] == 1
    node = listed["nodes"][0]
    assert node["state"] == "completed"
    assert node["submitter"] == {"email": "user0@email.com"}
    assert node["project"] == {"fullPath": project.full_path}
    assert node["workflowParams"]["min_length"] == "0"
    outputs = sorted(a["filename"] for a in node["attachments"]["nodes"])
    assert outputs == ["counts.tsv", "summary.json"]
    # updateSamples: the type's write-back (metadata); the sample's files are its own.
    sample = graphql("""query($id: ID!) { node(id: $id) { ... on Sample {
        metadata(keys: ["read count"]) attachments { nodes { filename } } } } }""",
                     {"id": gid("Sample", samples[0].id)})["data"]["node"]
    assert sample["metadata"] == {"read count": "40"}
    assert sorted(a["filename"] for a in sample["attachments"]["nodes"]) == [
        "s_R1.fastq", "s_R2.fastq"]


def test_problems_are_payload_errors(graphql, testapp, outbreak, factories, db):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    ids = _pair_on(graphql, testapp, samples[0])

    def errors(**extra):
        body = graphql(SUBMIT, {"input": submit_input(project, samples[0], ids, **extra)})
        assert body["data"]["submitWorkflowExecution"]["workflowExecution"] is None
        return body["data"]["submitWorkflowExecution"]["errors"]

    assert errors(pipelineId="nope") == [{
        "message": "Pipeline nope 1.0 was not found or cannot be run.",
        "path": ["workflow_execution", "metadata"]}]
    assert errors(workflowParams={"min_length": -1})[0]["path"] == [
        "workflow_execution", "parameters", "min_length"]
    other = factories.sample(project, name="Other-Sample")
    wrong_row = [{"sample_id": gid("Sample", other.id),
                  "samplesheet_params": {"fastq_1": ids["forward"]}}]
    assert errors(samplesWorkflowExecutionsAttributes=wrong_row) == [{
        "message": f"{ids['forward']} is not an attachment of the sample.",
        "path": ["samplesWorkflowExecutionsAttributes", "0", "samplesheet_params",
                 "fastq_1"]}]
    stranger = factories.user()
    hidden = graphql.as_user(stranger)(SUBMIT, {"input": submit_input(project, samples[0],
                                                                      ids)})
    assert hidden["data"]["submitWorkflowExecution"]["errors"] == [
        {"message": "Project not found by provided ID", "path": ["project"]}]
    assert graphql(EXECUTIONS)["data"]["workflowExecutions"]["totalCount"] == 0


def test_node_tells_workflow_executions_from_submissions(graphql, testapp, outbreak):
    owner, project, samples = outbreak
    graphql.as_user(owner)
    ids = _pair_on(graphql, testapp, samples[0])
    execution = graphql(SUBMIT, {"input": submit_input(project, samples[0], ids)})[
        "data"]["submitWorkflowExecution"]["workflowExecution"]
    pk = execution["id"].rsplit("/", 1)[1]
    body = graphql("""query($a: ID!, $b: ID!) {
      a: node(id: $a) { __typename ... on WorkflowExecution { state } }
      b: node(id: $b) { __typename ... on AnalysisSubmission { state } } }""",
                   {"a": execution["id"], "b": gid("AnalysisSubmission", pk)})
    assert body["data"] == {"a": {"__typename": "WorkflowExecution", "state": "initial"},
                            "b": {"__typename": "AnalysisSubmission", "state": "NEW"}}


def test_deleting_the_execution_deletes_its_output_attachments(graphql, testapp, outbreak,
                                                          factories, run_analysis, db):
    from sqlalchemy import select

    from seqcore.models.attachment import Attachment

    owner, project, samples = outbreak
    graphql.as_user(owner)
    ids = _pair_on(graphql, testapp, samples[0])
    execution = graphql(SUBMIT, {"input": submit_input(project, samples[0], ids,
                                                       updateSamples=True)})[
        "data"]["submitWorkflowExecution"]["workflowExecution"]
    submission_id = int(execution["id"].rsplit("/", 1)[1])
    headers = factories.headers(owner)
    assert run_analysis.drive(submission_id, headers).state == "COMPLETED"
    outputs = list(db.scalars(select(Attachment).where(
        Attachment.submission_id == submission_id)))
    assert sorted(a.file.file_name for a in outputs) == ["counts.tsv", "summary.json"]
    summary = next(a for a in outputs if a.file.file_name == "summary.json")
    url = f"/api/attachments/{summary.id}/download?key={summary.download_key}"
    assert b'"samples"' in testapp.get(url).body
    testapp.delete(f"/api/analysisSubmissions/{submission_id}", headers=headers)
    db.expire_all()
    assert db.scalars(select(Attachment).where(Attachment.submission_id.is_not(None))
                      ).first() is None
    testapp.get(url, status=404)
    kept = list(db.scalars(select(Attachment).where(Attachment.sample_id == samples[0].id)))
    assert sorted(a.file.file_name for a in kept) == ["s_R1.fastq", "s_R2.fastq"]


def test_group_is_null_for_a_project_in_a_group(graphql, testapp, factories):
    """IRIDA Next's ``group`` is the execution's namespace when that is a group; an
    execution launched in a project has none, whatever the project's namespace."""
    owner = factories.user()
    lab = factories.group(owner, name="Lab", path="lab")
    project = factories.project(owner=owner, name="In lab", path="in-lab", group=lab)
    sample = factories.sample(project, name="LAB-1")
    graphql.as_user(owner)
    ids = _pair_on(graphql, testapp, sample)
    execution = graphql(SUBMIT, {"input": submit_input(project, sample, ids)})[
        "data"]["submitWorkflowExecution"]["workflowExecution"]
    body = graphql(NAMESPACE, {"id": execution["id"]})
    assert body["data"]["node"] == {"group": None, "project": {"fullPath": "lab/in-lab"}}


NAMESPACE = """query($id: ID!) { node(id: $id) { ... on WorkflowExecution {
    group { id } project { fullPath } } } }"""


def group_input(group, rows):
    return {"name": "Across the lab", "groupId": gid("Group", group.id),
            "pipelineId": "readcount", "workflowVersion": "1.0",
            "workflowParams": {"min_length": 0},
            "samplesWorkflowExecutionsAttributes": [{
                "sample_id": gid("Sample", sample.id),
                "samplesheet_params": {"sample": sample.puid, "fastq_1": ids["forward"],
                                       "fastq_2": ids["reverse"]}} for sample, ids in rows]}


def test_a_group_launch_analyses_the_samples_of_its_projects_and_subgroups(
        graphql, testapp, factories, run_analysis, db):
    """``groupId`` launches in the group's namespace, as IRIDA Next's group samples page
    does: samples of the group's projects and of its subgroups' projects, the execution's
    ``group`` the group and its ``project`` null."""
    from seqcore.models.analysis import AnalysisSubmission

    owner = factories.user()
    lab = factories.group(owner, name="Lab", path="lab")
    bench = factories.group(owner, name="Bench", path="bench", parent=lab)
    top = factories.project(owner=owner, name="Top", path="top", group=lab)
    deep = factories.project(owner=owner, name="Deep", path="deep", group=bench)
    samples = [factories.sample(top, name="TOP-1"), factories.sample(deep, name="DEEP-1")]
    graphql.as_user(owner)
    rows = [(sample, _pair_on(graphql, testapp, sample)) for sample in samples]
    payload = graphql(SUBMIT, {"input": group_input(lab, rows)})["data"][
        "submitWorkflowExecution"]
    assert payload["errors"] == []
    execution = payload["workflowExecution"]
    assert sorted(s["sample"]["id"] for s in execution["samplesWorkflowExecutions"]) == sorted(
        gid("Sample", s.id) for s in samples)
    assert graphql(NAMESPACE, {"id": execution["id"]})["data"]["node"] == {
        "group": {"id": gid("Group", lab.id)}, "project": None}
    submission = db.get(AnalysisSubmission, int(execution["id"].rsplit("/", 1)[1]))
    assert submission.group_id == lab.id
    # No project holds both samples, so it is shared with none: a project's members never
    # read results made from samples their project does not hold.
    assert submission.projects == []
    run = run_analysis.drive(submission.id, factories.headers(owner))
    assert run.state == "COMPLETED"
    # A launch whose samples one project holds is shared with that project.
    alone = graphql(SUBMIT, {"input": group_input(lab, rows[1:])})["data"][
        "submitWorkflowExecution"]["workflowExecution"]
    shared = db.get(AnalysisSubmission, int(alone["id"].rsplit("/", 1)[1]))
    assert [p.project_id for p in shared.projects] == [deep.id]


def test_a_group_launch_takes_only_the_groups_samples_the_caller_reads(
        graphql, testapp, factories, db):
    from seqcore.models.analysis import AnalysisSubmission

    owner, stranger = factories.user(), factories.user()
    lab = factories.group(owner, name="Lab", path="lab")
    inside = factories.sample(factories.project(owner=owner, name="In", path="in", group=lab),
                              name="IN-1")
    outside = factories.sample(factories.project(owner=owner, name="Out"), name="OUT-1")
    graphql.as_user(owner)
    rows = [(inside, _pair_on(graphql, testapp, inside)),
            (outside, _pair_on(graphql, testapp, outside))]
    payload = graphql(SUBMIT, {"input": group_input(lab, rows)})["data"][
        "submitWorkflowExecution"]
    assert payload["workflowExecution"] is None
    assert payload["errors"] == [{
        "message": f"Sample {outside.id} is in no project of group lab.",
        "path": ["workflow_execution", "samples"]}]
    # A group the caller cannot read is no group, the same answer as an unknown one.
    graphql.as_user(stranger)
    for group_id in (gid("Group", lab.id), gid("Group", 999_999)):
        refused = graphql(SUBMIT, {"input": {**group_input(lab, rows[:1]),
                                             "groupId": group_id}})
        assert refused["data"]["submitWorkflowExecution"]["errors"] == [{
            "message": "Group not found by provided ID",
            "path": ["workflow_execution", "groupId"]}]
    assert db.query(AnalysisSubmission).count() == 0


def test_an_automated_execution_is_submitted_by_the_projects_automation_bot(
        graphql, testapp, outbreak, factories, app_config, db):
    """seqcore launches automated analyses itself; each is recorded as submitted by the
    project's automation bot (made the first time automation launches there), as IRIDA Next
    records them: ``submitter`` names it, never null, never an internal error. The bot is
    not one of the project's bots to manage."""
    from seqcore.analysis.worker import AnalysisWorker
    from seqcore.models.analysis import AnalysisSubmission
    from seqcore.models.user import User
    from seqcore.qc.processing import Worker
    from seqcore.testing.uploads import multipart

    owner, project, samples = outbreak
    headers = factories.headers(owner)
    testapp.put_json(f"/api/projects/{project.id}/automatedAnalyses",
                     {"analysisTypes": ["readcount"]}, headers=headers)
    body, content_type = multipart([("file1", "a_R1.fastq", fastq(seed=5), None),
                                    ("file2", "a_R2.fastq", fastq(seed=6), None)])
    testapp.post(f"/api/samples/{samples[0].id}/pairs", body,
                 headers={**headers, "Content-Type": content_type})
    Worker(app_config.registry).run_until_idle()
    submission = db.query(AnalysisSubmission).one()
    bot = db.get(User, submission.submitter_id)
    assert submission.automated and bot.account_type == "project_automation_bot"
    assert bot.username == f"{project.puid.lower()}_automation_bot"
    AnalysisWorker(app_config.registry).run_until_idle(timeout=120)
    graphql.as_user(owner)
    body = graphql("""query($id: ID!) { node(id: $id) { ... on WorkflowExecution {
        name state submitter { email userType } submitterId } } }""",
                   {"id": gid("WorkflowExecution", submission.id)})
    assert "errors" not in body, body
    assert body["data"]["node"] == {
        "name": submission.name, "state": "completed",
        "submitter": {"email": bot.email, "userType": "project_automation_bot"},
        "submitterId": gid("User", bot.id)}
    listed = testapp.get(f"/api/projects/{project.id}/bots", headers=headers).json
    assert listed["resource"]["resources"] == []
