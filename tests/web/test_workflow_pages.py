"""Workflow executions of pipeline descriptors on the pages: the launch form made from the
pipeline's ``nextflow_schema.json`` (defaults, enums, bounds, patterns), refusing with the
words of the schema validation REST and GraphQL use; the detail page with the seqcore-wes
view of ``iridanext.output.json.gz`` (files with download links, metadata by sample), in
English and French."""

import gzip
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

seqcore_wes = pytest.importorskip("seqcore_wes")

import seqcore_sequencefiles.plugin as sequencefiles_plugin  # noqa: E402
import seqcore_wes.plugin as wes_plugin  # noqa: E402
from seqcore_wes import types as wes_types  # noqa: E402

from .test_workbench import bulk_form_launch, sign_in  # noqa: E402

READCOUNT = Path(seqcore_wes.__file__).resolve().parents[2] / "tests" / "data" / "readcount"
TYPE = "seqcore-readcount-1.0.0"


@pytest.fixture
def wes_app(build_app):
    return build_app([sequencefiles_plugin, wes_plugin],
                     **{"seqcore.pipelines.dir": str(READCOUNT), "seqcore.wes.url": ""})


@pytest.fixture
def lab(factories, upload_reads):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    samples = [factories.sample(project, name=f"isolate-{n}") for n in (1, 2)]
    objects = [upload_reads(sample, headers) for sample in samples]
    return {"owner": owner, "project": project, "samples": samples, "objects": objects,
            "headers": headers}


def _parameters_form(app, lab):
    choose = bulk_form_launch(app, lab["project"], [s.id for s in lab["samples"]])
    labels = [label.text for label in choose.html.select("fieldset label")]
    assert "seqcore/readcount 1.0.0" in labels
    form = choose.forms[1]
    form["analysis_type"] = TYPE
    return form.submit()


def test_the_launch_form_is_made_from_the_pipelines_schema(wes_app, lab):
    sign_in(wes_app, lab["owner"])
    page = _parameters_form(wes_app, lab)
    field = page.html.find
    assert field("input", {"name": "parameter.min_length"})["min"] == "0"
    assert field("input", {"name": "parameter.min_length"})["type"] == "number"
    assert field("input", {"name": "parameter.min_length"})["placeholder"] == "0"
    label = field("input", {"name": "parameter.label"})
    assert label["pattern"] == r"^\S+$" and label["placeholder"] == "run"
    mode = field("select", {"name": "parameter.mode"})
    # The schema's [label, value] pairs: the label shown, the value sent.
    assert [(o.text, o["value"]) for o in mode.find_all("option")] == [
        ("Fast counting", "fast"), ("Careful counting", "careful")]
    assert mode.find("option", selected=True)["value"] == "fast"
    # The schema's group titles head the fields; its hidden parameters are tucked away.
    options = page.html.find("legend", string="Options").parent
    assert [f["name"] for f in options.select("input, select")] == [
        "parameter.min_length", "parameter.label", "parameter.mode"]
    tucked = page.html.find("details")
    assert tucked.find("summary").text == "More parameters" and not tucked.has_attr("open")
    assert [f["name"] for f in tucked.select("input, select")] == [
        "parameter.fail", "parameter.sleep"]
    # The samplesheet and the output directory are the launch's own, never asked.
    assert not field("input", {"name": "parameter.input"})
    assert not field("input", {"name": "parameter.outdir"})


def test_bad_values_are_refused_with_the_schemas_words(wes_app, lab):
    sign_in(wes_app, lab["owner"])
    form = _parameters_form(wes_app, lab).forms[1]
    form["parameter.min_length"] = "-1"
    form["parameter.label"] = "two words"
    refused = form.submit(status=400)
    shown = {li.text.split(": ", 1)[0]: li.text.split(": ", 1)[1]
             for li in refused.html.select('[role="alert"] li')}
    # The REST launch of the same values answers the same words.
    rest = wes_app.post_json(f"/api/analysisSubmissions/analysisType/{TYPE}", {
        "name": "count", "sequencingObjects": [o.id for o in lab["objects"]],
        "parameters": {"min_length": "-1", "label": "two words"}},
        headers=lab["headers"], status=400).json
    assert shown == {key: " ".join(messages) for key, messages in rest.items()}
    assert shown["parameters.min_length"] == "'min_length' must be at least 0."
    assert "does not match" in shown["parameters.label"]
    assert refused.html.find("input", {"name": "parameter.label"})["aria-invalid"] == "true"
    # A refused value among the tucked parameters opens them.
    form = refused.forms[1]
    form["parameter.label"] = "fine"
    form["parameter.sleep"] = "-3"
    refused = form.submit(status=400)
    assert refused.html.find("details").has_attr("open")
    assert "'sleep' must be at least 0." in refused.html.select_one('[role="alert"]').text


def test_a_good_launch_makes_one_workflow_execution(wes_app, lab, monkeypatch, db):
    from seqcore.models.analysis import AnalysisSubmission

    monkeypatch.setattr(wes_types, "service_info", lambda settings: {
        "workflow_type_versions": {"CWL": {"workflow_type_version": ["v1.0"]}}})
    sign_in(wes_app, lab["owner"])
    form = _parameters_form(wes_app, lab).forms[1]
    form["parameter.label"] = "batch-7"
    form["name"] = "count from the page"
    detail = form.submit(status=303).follow()
    assert detail.html.find("h1").text == "count from the page"
    submission = db.query(AnalysisSubmission).one()
    assert submission.analysis_type == TYPE and submission.parameters["label"] == "batch-7"
    assert len(submission.inputs) == 2


MANIFEST = {"files": {"global": [{"path": "summary.txt"}],
                      "samples": {"PUID-1": [{"path": "reads/PUID-1.txt"}]}},
            "metadata": {"samples": {"PUID-1": {"reads": 12, "qc": {"passed": True}},
                                     "PUID-2": {"reads": 3}}}}


@pytest.fixture
def executed(factories, lab):
    return factories.submission(
        lab["owner"], [SimpleNamespace(id=o.id) for o in lab["objects"]], analysis_type=TYPE,
        state="COMPLETED", projects=[lab["project"]],
        outputs={"iridanext-output": ("iridanext.output.json.gz",
                                      gzip.compress(json.dumps(MANIFEST).encode())),
                 "samplesheet": ("samplesheet.csv", b"sample,fastq_1,fastq_2\n"),
                 "global-summary.txt": ("summary.txt", b"15 reads\n"),
                 "sample-PUID-1-reads-PUID-1.txt": ("PUID-1.txt", b"12 reads\n")})


def test_the_output_view_lists_files_and_metadata_with_downloads(wes_app, lab, executed):
    sign_in(wes_app, lab["owner"])
    page = wes_app.get(f"/-/analyses/{executed.id}")
    view = page.html.select_one('section.output-view[data-output="iridanext-output"]')
    rows = [[td.text for td in tr.find_all("td")]
            for tr in view.select("table.wes-files tbody tr")]
    assert rows == [["All samples", "summary.txt"], ["PUID-1", "reads/PUID-1.txt"]]
    link = view.select_one("table.wes-files tbody tr:nth-of-type(2) a")["href"]
    download = wes_app.get(link)
    assert download.body == b"12 reads\n"
    assert 'filename="PUID-1.txt"' in download.headers["Content-Disposition"]
    metadata = {tr.find("th").text: {td["data-field"]: td.text for td in tr.find_all("td")}
                for tr in view.select("table.wes-metadata tbody tr")}
    assert metadata == {"PUID-1": {"qc.passed": "true", "reads": "12"},
                        "PUID-2": {"qc.passed": "", "reads": "3"}}
    assert gzip.decompress(wes_app.get(view.select("p a")[0]["href"]).body) == json.dumps(
        MANIFEST).encode()
    # The files the view shows are not repeated in the plain list; the others are.
    listed = [li.find("code").text for li in page.html.select("#analysis-outputs li")]
    assert "iridanext-output" not in listed and "samplesheet" in listed


def test_a_stranger_cannot_download_an_output(wes_app, factories, lab, executed):
    sign_in(wes_app, lab["owner"])
    link = wes_app.get(f"/-/analyses/{executed.id}").html.select_one(
        "table.wes-files tbody a")["href"]
    sign_in(wes_app, factories.user(username="stranger"))
    assert b"15 reads" not in wes_app.get(link, status=404).body
    wes_app.reset()
    assert wes_app.get(link, status=302).location.startswith("http://localhost/users/sign_in")


def test_the_output_view_speaks_french(wes_app, db, lab, executed):
    owner = lab["owner"]
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    sign_in(wes_app, owner)
    view = wes_app.get(f"/-/analyses/{executed.id}").html.select_one(
        'section.output-view[data-output="iridanext-output"]')
    assert [h.text for h in view.find_all("h3")] == ["Fichiers de l\u2019exécution",
                                                     "Métadonnées par échantillon"]
    assert view.select_one("table.wes-files tbody td").text == "Tous les échantillons"


def test_every_message_of_the_view_is_translated():
    from seqcore.testing.catalogues import stale_catalogues, untranslated

    package = Path(seqcore_wes.__file__).resolve().parent
    assert untranslated(package, "wes") == {}
    assert stale_catalogues(package, "wes") == []


@pytest.fixture
def served(wes_app):
    """The WES-enabled application on a loopback port, in this process (one database)."""
    import threading

    from waitress.server import create_server

    server = create_server(wes_app.app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=5)


def test_the_execution_page_has_no_accessibility_violations(served, lab, executed, db,
                                                            tmp_path):
    from tests.web.test_browser import CHROMIUM, FLAGS
    from tests.web.test_journeys import AXE, check_accessibility, sign_in

    if CHROMIUM is None or not AXE.is_file():
        pytest.skip("Chromium or axe-core missing")
    from playwright.sync_api import expect, sync_playwright

    (tmp_path / "pipeline.log").write_text("starting\ncounting <reads>\ndone\n")
    db.get(type(executed), executed.id).work_dir = str(tmp_path)
    db.commit()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            sign_in(page, served, lab["owner"])
            page.goto(f"{served}/-/analyses/{executed.id}")
            expect(page.get_by_role("region", name="Log")).to_contain_text("counting <reads>")
            expect(page.get_by_role("link", name="reads/PUID-1.txt")).to_be_visible()
            check_accessibility(page)
        finally:
            browser.close()
