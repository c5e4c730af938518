"""Pipeline descriptors: IRIDA Next's own file loads unchanged, each version is an analysis
type (REST) and a ``Pipeline`` (GraphQL), and a broken descriptor stops the start-up naming
the file and the problem."""

from __future__ import annotations

import json
import shutil

import pytest
from irida_next_descriptors import FILE as IRIDA_NEXT
from pyramid.exceptions import ConfigurationError

from seqcore.plugin import AnalysisSubmission, pipeline_descriptors

READCOUNT = "seqcore-readcount-1.0.0"
PIPELINES = """query($type: String) { pipelines(workflowType: $type) {
  pipelineId name version description automatable executable analysisType } }"""
PIPELINE = """query($id: String!, $v: String!) { pipeline(pipelineId: $id, workflowVersion: $v)
  { pipelineId name version executable automatable workflowParams analysisType } }"""


def test_irida_next_descriptor_loads_unchanged(app_config):
    # The file is IRIDA Next's config/pipelines/pipelines.json as published, contributed by
    # a plugin through register_pipeline_descriptors.
    data = json.loads(IRIDA_NEXT.read_text())
    assert set(data) == {"phac-nml/iridanextexample", "phac-nml/iridanextexample2"}
    loaded = {name: d for name, d in pipeline_descriptors(app_config.registry).items()
              if d.source == IRIDA_NEXT.resolve()}
    assert sorted(loaded) == ["phac-nml-iridanextexample-1.0.0", "phac-nml-iridanextexample-1.0.1",
                              "phac-nml-iridanextexample-1.0.2", "phac-nml-iridanextexample-1.0.3",
                              "phac-nml-iridanextexample2-0.1.1"]
    v102 = loaded["phac-nml-iridanextexample-1.0.2"]
    assert (v102.engine, v102.engine_version, v102.workflow_url) == (
        "NFL", "DSL2", "https://github.com/phac-nml/iridanextexample")
    assert v102.automatable is True and v102.executable is True
    assert loaded["phac-nml-iridanextexample-1.0.0"].executable is False
    assert (loaded["phac-nml-iridanextexample-1.0.3"].min_samples,
            loaded["phac-nml-iridanextexample-1.0.3"].max_samples) == (2, 5)
    params = {p.name: p for p in v102.parameters()}
    assert "input" not in params and "outdir" not in params
    assert params["assembler"].type == "choice"
    assert params["assembler"].choices == ("default", "stub", "experimental")
    assert (params["random_seed"].type, params["random_seed"].minimum) == ("int", 1)
    # The 2020-12 schema ($defs) of the second pipeline reads the same way.
    assert loaded["phac-nml-iridanextexample2-0.1.1"].parameters()


def test_descriptor_types_are_listed_over_rest(testapp, factories):
    headers = factories.headers(factories.user())
    types = {t["name"]: t for t in testapp.get("/api/analysisTypes", headers=headers).json[
        "resource"]["resources"]}
    readcount = types[READCOUNT]
    assert readcount["ready"] is True
    params = {p["name"]: p for p in readcount["parameters"]}
    assert params["mode"]["choices"] == ["fast", "careful"]  # IRIDA Next's [label, value]
    assert params["min_length"]["minimum"] == 0
    assert params["label"]["description"] == "A label written into the summary."  # override
    assert {o["rel"] for o in readcount["outputs"]} == {"outputFile/iridanext-output",
                                                        "outputFile/samplesheet"}
    nextflow = types["phac-nml-iridanextexample-1.0.2"]
    assert nextflow["ready"] is False
    assert "does not support NFL" in json.dumps(nextflow["tools"])


def test_a_nextflow_pipeline_is_not_ready_on_a_cwl_server(testapp, factories, upload_reads, db):
    owner = factories.user()
    headers = factories.headers(owner)
    sample = factories.sample(factories.project(owner=owner))
    reads = upload_reads(sample, headers)
    res = testapp.post_json("/api/analysisSubmissions/analysisType/"
                            "phac-nml-iridanextexample-1.0.2",
                            {"sequencingObjects": [reads.id]}, headers=headers, status=409)
    assert "does not support NFL" in res.json["message"]
    assert db.query(AnalysisSubmission).count() == 0


def test_pipelines_in_graphql(graphql, factories):
    client = graphql.as_user(factories.user())
    listed = client(PIPELINES, {"type": None})["data"]["pipelines"]
    by_key = {(p["pipelineId"], p["version"]): p for p in listed}
    assert ("phac-nml/iridanextexample", "1.0.0") not in by_key  # executable: false
    assert by_key[("seqcore/readcount", "1.0.0")]["analysisType"] == READCOUNT
    every = client(PIPELINES, {"type": "available"})["data"]["pipelines"]
    assert ("phac-nml/iridanextexample", "1.0.0") in {(p["pipelineId"], p["version"])
                                                      for p in every}
    automatable = client(PIPELINES, {"type": "automatable"})["data"]["pipelines"]
    assert {(p["pipelineId"], p["version"]) for p in automatable} == {
        ("phac-nml/iridanextexample", "1.0.2"), ("seqcore/readcount", "1.0.0")}
    one = client(PIPELINE, {"id": "phac-nml/iridanextexample", "v": "1.0.2"})["data"][
        "pipeline"]
    assert one["name"] == "phac-nml/iridanextexample" and one["automatable"] is True
    section = one["workflowParams"]["input_output_options"]
    assert section["properties"]["input"]["required"] is True
    assert section["properties"]["input"]["schema"]["items"]["required"] == ["sample",
                                                                              "fastq_1"]
    assert "outdir" not in section["properties"] and "email" not in section["properties"]
    assert "institutional_config_options" not in one["workflowParams"]  # all hidden
    assert client(PIPELINE, {"id": "phac-nml/iridanextexample", "v": "9"})["data"] == {
        "pipeline": None}
    refused = client(PIPELINES, {"type": "everything"})
    assert "workflowType must be one of" in refused["errors"][0]["message"]


def _copy(tmp_path, mutate):
    """A copy of the readcount descriptors with the pipelines file changed by ``mutate``
    (which edits the parsed file, or returns ``("raw", text)`` to write text instead)."""
    from conftest import READCOUNT as SOURCE

    target = tmp_path / "pipelines"
    shutil.copytree(SOURCE, target)
    path = target / "pipelines.json"
    data = json.loads(path.read_text())
    raw = mutate(data)
    path.write_text(raw[1] if isinstance(raw, tuple) else json.dumps(data))
    return target, path


@pytest.mark.parametrize(("mutate", "problem"), [
    (lambda d: ("raw", "{ not json"), "is not JSON"),
    (lambda d: d["seqcore/readcount"].pop("url"), "missing url"),
    (lambda d: d["seqcore/readcount"].update(versions=[]), "'versions' must be a non-empty"),
    (lambda d: d["seqcore/readcount"]["versions"].append({"name": "2.0.0"}),
     "the parameter schema"),
    (lambda d: d["seqcore/readcount"].update(workflow_url="missing.cwl"),
     "workflow_url 'missing.cwl' names no file"),
    (lambda d: d["seqcore/readcount"]["versions"][0].update(executable="yes"),
     "'executable' must be true or false"),
    (lambda d: d["seqcore/readcount"].update(settings={"max_samples": "many"}),
     "settings.max_samples must be a whole number"),
    (lambda d: d["seqcore/readcount"].update(samplesheet_schema_overrides=[]),
     "'samplesheet_schema_overrides' must be an object"),
])
def test_a_bad_descriptor_stops_the_start_up(tmp_path, build_app, mutate, problem):
    directory, path = _copy(tmp_path, mutate)
    with pytest.raises(ConfigurationError) as failed:
        build_app(**{"seqcore.pipelines.dir": str(directory)})
    assert str(path) in str(failed.value)
    assert problem in str(failed.value)


def test_a_parameter_schema_that_is_not_json_schema_stops_the_start_up(tmp_path, build_app):
    directory, path = _copy(tmp_path, lambda d: None)
    schema_path = directory / "seqcore" / "readcount" / "1.0.0" / "nextflow_schema.json"
    schema = json.loads(schema_path.read_text())
    schema["definitions"]["options"]["properties"]["min_length"]["minimum"] = "zero"
    schema_path.write_text(json.dumps(schema))
    with pytest.raises(ConfigurationError, match="not valid JSON Schema at "
                                                 "properties/min_length/minimum") as failed:
        build_app(**{"seqcore.pipelines.dir": str(directory)})
    assert str(path) in str(failed.value)


def test_a_pipeline_version_declared_twice_names_both_files(tmp_path, build_app):
    directory, path = _copy(tmp_path, lambda d: None)
    shutil.copy(path, directory / "again.json")
    with pytest.raises(ConfigurationError, match="declared twice") as failed:
        build_app(**{"seqcore.pipelines.dir": str(directory)})
    assert str(path) in str(failed.value) and "again.json" in str(failed.value)
