"""A client script written for IRIDA Next runs against seqcore: it uploads a FASTQ pair the
documented way (createDirectUpload, PUT to the URL with the given headers, then
attachFilesToSample), launches an assembly with submitWorkflowExecution, and once it has
completed finds the outputs as attachments of the execution. Real FLASH and MEGAHIT run on
simulated reads."""

import base64
import hashlib
import json

from simulate import random_genome, simulate_reads

from seqcore.testing.workers import AnalysisWorker


class Script:
    """What an IRIDA Next client does, over HTTP and JSON only."""

    def __init__(self, http, headers):
        self.http, self.headers = http, headers

    def graphql(self, query, variables=None):
        body = self.http.post_json("/api/graphql", {"query": query,
                                                    "variables": variables or {}},
                                   headers=self.headers).json
        assert "errors" not in body, body
        return body["data"]

    def upload(self, path):
        data = path.read_bytes()
        checksum = base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()
        upload = self.graphql("""mutation($f: String!, $c: String!, $s: BigInt!) {
          createDirectUpload(input: {filename: $f, contentType: "application/octet-stream",
                                     checksum: $c, byteSize: $s}) {
            directUpload { url headers signedBlobId } } }""",
                              {"f": path.name, "c": checksum, "s": len(data)}
                              )["createDirectUpload"]["directUpload"]
        # The PUT carries only the headers given: the URL is the credential.
        self.http.put(upload["url"], data, headers=json.loads(upload["headers"]), status=204)
        return upload["signedBlobId"]

    def attach(self, sample_puid, blobs):
        result = self.graphql("""mutation($p: ID, $files: [String!]!) {
          attachFilesToSample(input: {samplePuid: $p, files: $files}) {
            status errors { path message } } }""", {"p": sample_puid, "files": blobs})
        assert result["attachFilesToSample"]["errors"] == []

    def sample_files(self, project_path):
        return self.graphql("""query($p: ID!) { project(fullPath: $p) { id
          samples(first: 1) { nodes { id puid attachments(first: 20) {
            nodes { id filename metadata attachmentUrl } } } } } }""", {"p": project_path}
                            )["project"]

    def submit(self, project_id, sample, pipeline):
        files = {a["metadata"].get("direction"): a["id"]
                 for a in sample["attachments"]["nodes"]}
        result = self.graphql("""mutation($input: SubmitWorkflowExecutionInput!) {
          submitWorkflowExecution(input: $input) {
            workflowExecution { id state } errors { message path } } }""", {"input": {
            "name": "assembly from a script", "projectId": project_id,
            "pipelineId": pipeline["pipelineId"], "workflowVersion": pipeline["version"],
            "workflowParams": {"assembler": "megahit"}, "updateSamples": True,
            "samplesWorkflowExecutionsAttributes": [{
                "sample_id": sample["id"], "samplesheet_params": {
                    "sample": sample["puid"], "fastq_1": files["forward"],
                    "fastq_2": files["reverse"]}}]}})["submitWorkflowExecution"]
        assert result["errors"] == []
        return result["workflowExecution"]

    def execution(self, execution_id):
        return self.graphql("""query($id: ID!) { workflowExecution(id: $id) { state error
          attachments(first: 20) { nodes { filename metadata attachmentUrl } } } }""",
                            {"id": execution_id})["workflowExecution"]


def test_an_irida_next_script_uploads_a_pair_and_assembles_it(testapp, app_config, factories,
                                                              tmp_path):
    owner = factories.user()
    project = factories.project(owner=owner, name="Script project")
    sample = factories.sample(project, name="isolate-script")
    genome = random_genome(30_000, seed=41, families=())
    r1, r2 = tmp_path / "isolate_S1_L001_R1_001.fastq", tmp_path / "isolate_S1_L001_R2_001.fastq"
    simulate_reads(genome.sequence, 30.0, r1, r2, seed=141)
    script = Script(testapp, factories.graphql_headers(owner))

    script.attach(sample.puid, [script.upload(r1), script.upload(r2)])
    found = script.sample_files(project.full_path)
    on_sample = found["samples"]["nodes"][0]
    directions = sorted(a["metadata"]["direction"] for a in on_sample["attachments"]["nodes"])
    assert directions == ["forward", "reverse"]
    pipelines = script.graphql('{ pipelines(workflowType: "available") { pipelineId name '
                               'version } }')["pipelines"]
    assembly = next(p for p in pipelines if p["pipelineId"] == "assembly")
    execution = script.submit(found["id"], on_sample, assembly)
    assert execution["state"] == "initial"

    AnalysisWorker(app_config.registry).run_until_idle(timeout=240)

    done = script.execution(execution["id"])
    assert done["state"] == "completed", done["error"]
    outputs = {a["filename"]: a for a in done["attachments"]["nodes"]}
    assert {"contigs-with-repeats.fasta", "genome.gbk", "spades.log"} <= set(outputs)
    contigs = outputs["contigs-with-repeats.fasta"]
    assert contigs["metadata"] == {"format": "fasta", "type": "assembly",
                                   "compression": "none"}
    fasta = testapp.get(contigs["attachmentUrl"]).text
    assert fasta.startswith(">")
    # updateSamples: the type's write-back made the filtered assembly the sample's.
    (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies",
                              headers=factories.headers(owner)).json["resource"]["resources"]
    assert assembly["fileName"] == "contigs-with-repeats.fasta"
