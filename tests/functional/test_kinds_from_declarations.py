"""Everything kind-specific comes from the registered FileKind declarations: the core runs
with no plugin, a third party's kind gets the same links, input listings and default
analysis inputs as the first-party ones, and the first-party answers are those clients
have always seen."""

import pytest
from pyramid.exceptions import ConfigurationError
from webtest import TestApp

import seqcore_sequencefiles.plugin as sequencefiles
from seqcore import hookimpl
from seqcore.config import configure
from seqcore.framework.contrib import AnalysisType, LinkSpec
from seqcore.framework.links import child_href
from seqcore.resources.analyses import SubmissionResource
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.analyses import AnalysisRunner, ReadsUploader
from seqcore.testing.factories import Factories
from tests.plugins import longreads, readcount


@pytest.fixture
def build(seqcore_settings, database_url, engine):
    def build(plugins):
        config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                            "seqcore.engine": engine}, plugins=plugins)
        testapp = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
        kinds = {k.name: k for k in config.registry.get("seqcore.file_kinds", {}).values()}
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings(), kinds)
        return config, testapp, factories

    return build


def rels(body):
    return [link["rel"] for link in body["resource"]["links"]]


def test_the_core_runs_without_any_plugin(build):
    config, testapp, factories = build([])
    assert config.registry.get("seqcore.file_kinds", {}) == {}
    owner = factories.user()
    headers = factories.headers(owner)
    sub = factories.submission(owner, [], "readcount")
    body = testapp.get(f"/api/analysisSubmissions/{sub.id}", headers=headers).json
    assert rels(body) == ["self"]
    testapp.get(f"/api/analysisSubmissions/{sub.id}/sequenceFiles/pairs", headers=headers,
                status=404)
    with pytest.raises(ValueError, match=r"no file kind 'pairs' is loaded \(loaded: none\)"):
        factories.sequencing_object(factories.sample(), "pairs")


def test_first_party_input_links_keep_their_place(build):
    """The kinds' input links directly follow the core's ``analysis`` link, where the core
    itself declared them before they were derived, whatever other plugins hang on
    submissions (plugins' links come before the core's)."""

    class HangsOnSubmissions:
        @hookimpl
        def register_links(self):
            return [LinkSpec(SubmissionResource, "analysis/extra", child_href("analysis"))]

    _, testapp, factories = build([HangsOnSubmissions(), sequencefiles, readcount])
    owner = factories.user()
    headers = factories.headers(owner)
    pair = factories.sequencing_object(factories.sample(factories.project(owner=owner)))
    assert pair.kind == "pairs"  # the default input kind
    sub = factories.submission(owner, [pair], "readcount", state="COMPLETED")
    body = testapp.get(f"/api/analysisSubmissions/{sub.id}", headers=headers).json
    assert rels(body) == ["self", "analysis/extra", "analysis", "input/unpaired",
                          "input/paired"]
    listed = testapp.get(f"/api/analysisSubmissions/{sub.id}/sequenceFiles/pairs",
                         headers=headers).json["resource"]["resources"]
    assert [entry["identifier"] for entry in listed] == [str(pair.id)]
    empty = testapp.get(f"/api/analysisSubmissions/{sub.id}/sequenceFiles/unpaired",
                        headers=headers).json["resource"]["resources"]
    assert empty == []


def test_types_without_inputs_take_the_default_kinds(build):
    _, testapp, factories = build([sequencefiles, readcount])
    headers = factories.headers(factories.user())
    needs_tool = testapp.get("/api/analysisTypes/needs-tool", headers=headers).json
    assert needs_tool["resource"]["inputs"] == ["pairs"]
    _, testapp, factories = build([longreads])
    lengths = testapp.get("/api/analysisTypes/lengths", headers=headers).json
    assert lengths["resource"]["inputs"] == ["longreads"]


def test_a_third_kind_is_uploaded_analysed_and_listed_as_input(build):
    config, testapp, factories = build([longreads])
    owner = factories.user()
    headers = factories.headers(owner)
    sample = factories.sample(factories.project(owner=owner))
    sample_links = testapp.get(f"/api/samples/{sample.id}", headers=headers).json
    assert "sample/sequenceFiles/longreads" in rels(sample_links)
    reads = ReadsUploader(testapp, config.registry)(sample, headers)
    assert reads.kind == "longreads"
    run = AnalysisRunner(testapp, config.registry)("lengths", [reads], headers)
    assert run.state == "COMPLETED", run.error
    assert run.outputs["outputFile/lengths"] == b"500\n" * 5
    assert "input/longreads" in rels({"resource": run.submission})
    links = {link["rel"]: link["href"] for link in run.submission["links"]}
    listed = testapp.get(links["input/longreads"], headers=headers).json["resource"]
    assert [entry["identifier"] for entry in listed["resources"]] == [str(reads.id)]
    built = factories.sequencing_object(sample)  # the kit builds it from the declaration
    assert built.kind == "longreads" and built.files[0].file_name == "long.fastq"


def test_a_type_without_inputs_needs_a_default_kind(build):
    class Inputless:
        @hookimpl
        def register_analysis_types(self):
            return [AnalysisType(name="inputless", label="No inputs", workflow_id="x-1",
                                 pipeline="tests.plugins.longreads:measure")]

    with pytest.raises(ConfigurationError, match="'inputless' declares no inputs and no "
                                                 "loaded plugin registers a default input"):
        build([Inputless()])


def test_an_sra_layout_ncbi_does_not_know_stops_the_start(build):
    from seqcore.framework.contrib import FileKind

    class Reads:
        @hookimpl
        def register_file_kinds(self):
            return [FileKind(name="reads", path_segment="reads",
                             collection_rel="sample/sequenceFiles/reads",
                             sra_layout="TRIPLE")]

    with pytest.raises(ConfigurationError, match="file kind 'reads': sra_layout 'TRIPLE' is "
                                                 "not one of '', 'SINGLE', 'PAIRED'"):
        build([Reads()])
