"""An analysis type's own launch field, launch check, record and job data, through the
generic launch of REST and GraphQL, run to completion by the worker."""

from dataclasses import replace

import pytest
from pyramid.exceptions import ConfigurationConflictError, ConfigurationError

import seqcore_sequencefiles.plugin as sequencefiles_plugin
from seqcore import hookimpl
from seqcore.analysis.worker import AnalysisWorker
from seqcore.config import configure
from seqcore.models.analysis import AnalysisSubmission
from seqcore.testing.fixtures import GraphQLClient
from seqcore.testing.uploads import fastq
from tests.plugins import baseline, readcount

LAUNCH = "/api/analysisSubmissions/analysisType/baseline"
GRAPHQL_LAUNCH = """
mutation($input: LaunchAnalysisInput!) {
  launchAnalysis(input: $input) {
    submission { id analysisType state }
    errors { message path }
  }
}
"""


@pytest.fixture
def baseline_app(build_app):
    return build_app([sequencefiles_plugin, readcount, baseline])


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    stranger = factories.user(username="stranger")
    project = factories.project(owner=owner)
    isolate = factories.sample(project, name="isolate")
    reference = factories.sample(project, name="reference-strain")
    hidden = factories.sample(factories.project(owner=stranger), name="hidden")
    for sample, reads in ((isolate, 12), (reference, 30), (hidden, 5)):
        factories.sequencing_object(sample, "pairs", files=[
            ("r_R1.fastq", fastq(reads=reads, seed=1)), ("r_R2.fastq", fastq(reads=reads, seed=2))])
    return {"owner": owner, "isolate": isolate, "reference": reference, "hidden": hidden,
            "headers": factories.headers(owner)}


def links(body):
    return {link["rel"]: link["href"] for link in body["links"]}


def test_a_declared_field_is_checked_recorded_and_reaches_the_pipeline(baseline_app, world):
    app = baseline_app
    res = app.post_json(LAUNCH, {"samples": [world["isolate"].id],
                                 "baseline": world["reference"].id},
                        headers=world["headers"], status=201)
    submission = res.json["resource"]
    AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
    body = app.get(res.headers["Location"], headers=world["headers"]).json["resource"]
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    analysis = app.get(links(body)["analysis"], headers=world["headers"]).json["resource"]
    report = app.get(links(analysis)["outputFile/report"],
                     headers={**world["headers"], "Accept": "text/plain"}).text
    assert report.splitlines() == ["baseline\treference-strain\t60", "input\tisolate\t24"]
    assert baseline.RECORDS[int(submission["identifier"])]["sample_id"] == world[
        "reference"].id


@pytest.mark.parametrize(("value", "message"), [
    (None, "'baseline' is required."),
    ("first", "'baseline' must be a sample id."),
    ("hidden", "There is no sample {hidden}."),
    ("isolate", "The baseline must not be one of the samples analysed."),
])
def test_the_check_answers_with_the_generic_problems(baseline_app, world, db, value, message):
    app = baseline_app
    body = {"samples": [world["isolate"].id, 999999], "priority": "URGENT"}
    if value is not None:
        body["baseline"] = world[value].id if value in world else value
    res = app.post_json(LAUNCH, body, headers=world["headers"], status=400)
    assert res.json == {"priority": ["'priority' must be LOW, MEDIUM or HIGH."],
                        "samples": ["No such sample(s): 999999."],
                        "baseline": [message.format(hidden=world["hidden"].id)]}
    assert db.query(AnalysisSubmission).count() == 0


def test_fields_no_type_declares_are_refused(baseline_app, world, db):
    app = baseline_app
    res = app.post_json(LAUNCH, {"samples": [world["isolate"].id], "baseline": 1,
                                 "reference": 2}, headers=world["headers"], status=400)
    assert res.json["message"] == "Unknown field(s): reference."
    assert "baseline" in res.json["acceptable-properties"]
    # Another type does not take this type's field.
    res = app.post_json("/api/analysisSubmissions/analysisType/readcount",
                        {"samples": [world["isolate"].id], "baseline": 1},
                        headers=world["headers"], status=400)
    assert res.json["message"] == "Unknown field(s): baseline."
    assert "baseline" not in res.json["acceptable-properties"]
    assert db.query(AnalysisSubmission).count() == 0


def test_graphql_takes_the_declared_fields(baseline_app, world, factories, db):
    app = baseline_app
    graphql = GraphQLClient(app, factories).as_user(world["owner"])
    gid = f"gid://seqcore/Sample/{world['isolate'].id}"
    payload = graphql(GRAPHQL_LAUNCH, {"input": {
        "analysisType": "baseline", "sampleIds": [gid],
        "launchFields": {"baseline": world["hidden"].id}}})["data"]["launchAnalysis"]
    assert payload["errors"] == [{"message": f"There is no sample {world['hidden'].id}.",
                                  "path": ["launchFields", "baseline"]}]
    payload = graphql(GRAPHQL_LAUNCH, {"input": {
        "analysisType": "baseline", "sampleIds": [gid],
        "launchFields": {"baseline": world["reference"].id, "colour": "red"}}})[
        "data"]["launchAnalysis"]
    assert payload["errors"] == [{"message": "Unknown field(s): colour.",
                                  "path": ["launchFields"]}]
    assert db.query(AnalysisSubmission).count() == 0
    payload = graphql(GRAPHQL_LAUNCH, {"input": {
        "analysisType": "baseline", "sampleIds": [gid],
        "launchFields": {"baseline": world["reference"].id}}})["data"]["launchAnalysis"]
    assert payload["errors"] == [] and payload["submission"]["state"] == "NEW"
    AnalysisWorker(app.app.registry).run_until_idle(timeout=120)
    assert db.query(AnalysisSubmission).one().state == "COMPLETED"


class _Declares:
    def __init__(self, analysis_type):
        self.analysis_type = analysis_type

    @hookimpl
    def register_analysis_types(self):
        return [self.analysis_type]


@pytest.mark.parametrize(("change", "message"), [
    ({"launch_fields": ("samples",)}, "launch field(s) 'samples' are generic launch fields"),
    ({"launch_fields": "baseline"}, "launch_fields must be a tuple of field names"),
    ({"launch_check": "tests.plugins.baseline:check_baseline"},
     "launch_check must be a callable"),
    ({"job_data": {"reference": 1}}, "job_data must be a callable"),
])
def test_launch_declarations_are_checked_at_start_up(seqcore_settings, database_url, engine,
                                                      change, message):
    broken = replace(baseline.BASELINE, **change)
    with pytest.raises(ConfigurationError, match=r"analysis type 'baseline': "
                       + message.replace("(", r"\(").replace(")", r"\)")):
        configure({**seqcore_settings, "sqlalchemy.url": database_url,
                   "seqcore.engine": engine},
                  plugins=[sequencefiles_plugin, _Declares(broken)]).commit()


class _ClaimsTypeRel:
    @hookimpl
    def register_links(self):
        from seqcore.framework.contrib import LinkSpec
        from seqcore.framework.links import api_href
        from seqcore.resources.analyses import SubmissionsCollection

        return [LinkSpec(SubmissionsCollection, "analysisSubmissions/baseline", api_href("x"))]


def test_a_rel_derived_from_a_type_cannot_be_claimed(seqcore_settings, database_url, engine):
    """The submissions collection's per-type rels are derived after the types register, and
    still conflict with a plugin's link of the same rel."""
    with pytest.raises(ConfigurationConflictError, match="analysisSubmissions/baseline"):
        configure({**seqcore_settings, "sqlalchemy.url": database_url,
                   "seqcore.engine": engine},
                  plugins=[sequencefiles_plugin, baseline, _ClaimsTypeRel()]).commit()


def test_each_type_and_alias_links_to_its_filter(baseline_app, world):
    app = baseline_app
    body = app.get("/api/analysisSubmissions", headers=world["headers"]).json["resource"]
    rels = links(body)
    for name in ("baseline", "readcount", "countreads"):
        assert rels[f"analysisSubmissions/{name}"] == (
            f"http://localhost/api/analysisSubmissions/analysisType/{name}")
