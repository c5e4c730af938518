"""A file's QC report page and the verdicts on the sample page, through WebTest: the
verdicts are FastQC's, each plot shows the stored numbers (one box per position group), and
the page is hidden from whoever the REST QC route hides it from."""

import random

import pytest

from seqcore.qc import FastQCCompatibleEngine
from seqcore.web import charts
from tests.qc.fastq_data import random_quality, random_sequence, write_fastq

from .test_workbench import sign_in


def _report(tmp_path, name, high, repeated_share=0.0):
    """The stored form of the engine's report on 2,000 generated 60 bp reads."""
    rng = random.Random(name)
    repeated = random_sequence(random.Random(5), 60)
    records = []
    for index in range(2000):
        sequence = repeated if index < 2000 * repeated_share else random_sequence(rng, 60)
        records.append((f"r{index}", sequence, random_quality(rng, 60, high=high)))
    path = write_fastq(tmp_path / f"{name}.fastq", records)
    return FastQCCompatibleEngine(processes=1).run(path).to_dict()


@pytest.fixture
def qc_lab(factories, tmp_path):
    owner = factories.user(username="owner")
    outsider = factories.user(username="outsider")
    project = factories.project(owner=owner, name="QC project")
    sample = factories.sample(project, name="S1")
    good = factories.sequencing_object(sample, qc=_report(tmp_path, "good", high=40))
    bad = factories.sequencing_object(sample, qc=_report(tmp_path, "bad", high=20,
                                                         repeated_share=0.05))
    pending = factories.sequencing_object(sample, state="QUEUED")
    return {"owner": owner, "outsider": outsider, "sample": sample, "good": good.files[0],
            "bad": bad.files[0], "pending": pending.files[0], "objects": (good, bad)}


def _verdicts(page):
    return {row["data-module"]: row.find_all("td")[1].get_text(strip=True)
            for row in page.html.select("#qc-verdicts tbody tr")}


def test_a_failing_file_shows_fastqcs_verdicts_and_its_plots(testapp, qc_lab):
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{qc_lab['bad'].id}/qc")
    assert page.html.select_one("#qc-worst .badge.fail").text == "Fail"
    verdicts = _verdicts(page)
    assert verdicts["Per base sequence quality"] == "Fail"
    assert verdicts["Per sequence quality scores"] == "Fail"
    assert verdicts["Overrepresented sequences"] == "Fail"
    assert verdicts["Sequence Length Distribution"] == "Pass"
    assert verdicts["Per base sequence content"] == "Pass"
    assert verdicts["Per base N content"] == "Pass"
    assert verdicts["Adapter Content"] == "Not measured"
    content = page.html.select_one("svg#plot-per-base-content")
    lines = content.select(":scope > g.series")
    assert [g.find("title").text for g in lines] == ["G", "A", "T", "C"]
    assert len(content.select(":scope > g.series-0 polyline")[0]["points"].split()) == 60
    assert page.html.select_one("svg#plot-per-base-n polyline")
    # 5% identical reads make a spike beside the fitted normal curve.
    assert verdicts["Per sequence GC content"] == "Warn"
    gc = page.html.select_one("svg#plot-per-sequence-gc")
    assert len(gc.select(":scope > g.series")) == 2
    assert gc.select_one(":scope > g.series.dashed title").text == "Theoretical distribution"
    assert len(gc.select_one(":scope > g.series-0 polyline")["points"].split()) == 101
    lengths = page.html.select_one("svg#plot-length-distribution")
    assert [bar.find("title").text for bar in lengths.select("rect.bar")] == ["60: 2000"]
    plot = page.html.select_one("svg#plot-per-base-quality")
    assert plot["role"] == "img"
    assert plot.find("title").text == "Quality scores across all bases"
    assert "quartile" in plot.find("desc").text
    # 60 bp reads: FastQC's default groups are the 60 positions, one box each.
    assert len(plot.select("g.box")) == 60
    assert len(plot.select("g.box rect")) == 60
    assert plot.select("rect.band-fail") and plot.select("rect.band-pass")
    assert page.html.select_one("svg#plot-per-sequence-quality polyline")
    rows = page.html.select("#overrepresented tbody tr")
    assert len(rows) == 1 and rows[0].find_all("td")[1].text == "100"


def test_a_good_file_passes(testapp, qc_lab):
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{qc_lab['good'].id}/qc")
    assert page.html.select_one("#qc-worst .badge.pass")
    assert set(_verdicts(page).values()) == {"Pass", "Not measured"}
    assert "Every read is 60 bases long." in page.text
    assert "No sequence makes up more than one read in a thousand." in page.text


def test_the_sample_page_shows_each_files_verdict_linking_to_its_report(testapp, qc_lab):
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/samples/{qc_lab['sample'].id}")
    summaries = {span["data-file"]: span for span in page.html.select(".qc-summary")}
    bad = summaries[str(qc_lab["bad"].id)]
    assert bad.select_one(".badge.fail")
    assert bad.find("a")["href"] == f"/-/files/{qc_lab['bad'].id}/qc"
    assert "3 failed" in bad.find("a").text
    assert summaries[str(qc_lab["good"].id)].select_one(".badge.pass")
    assert str(qc_lab["pending"].id) not in summaries
    assert "No QC yet" in page.text


def test_a_file_without_qc_says_so(testapp, qc_lab):
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{qc_lab['pending'].id}/qc")
    assert "no QC report yet" in page.text
    assert not page.html.select("svg.chart")


def test_the_report_is_hidden_as_the_rest_qc_route_hides_it(testapp, factories, qc_lab):
    bad, sample = qc_lab["bad"], qc_lab["sample"]
    url = f"/-/files/{bad.id}/qc"
    assert "/users/sign_in?next=" in testapp.get(url, status=302).location
    kind = factories.kind(qc_lab["objects"][1].kind)
    rest = (f"/api/samples/{sample.id}/{kind.path_segment}/{qc_lab['objects'][1].id}"
            f"/files/{bad.id}/qc")
    body = testapp.get(rest, headers=factories.headers(qc_lab["owner"]), status=200).json
    # REST answers IRIDA's record: the page's extra numbers stay out of it.
    assert "perSequenceQuality" in body["resource"]
    assert not {"perBaseCounts", "lengthCounts", "gcDistribution"} & set(body["resource"])
    testapp.get(rest, headers=factories.headers(qc_lab["outsider"]), status=404)
    sign_in(testapp, qc_lab["outsider"])
    page = testapp.get(url, status=404)
    assert "S1" not in page.text and bad.file_name not in page.text
    testapp.get("/-/files/999999/qc", status=404)
    testapp.get("/-/files/x1/qc", status=404)


def test_the_page_speaks_french(testapp, db, qc_lab):
    from seqcore.models.user import User

    db.get(User, qc_lab["owner"].id).locale = "fr"
    db.commit()
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{qc_lab['bad'].id}/qc")
    assert page.html.select_one("#qc-worst .badge.fail").text == "Échec"
    assert "Non mesuré" in page.text


def test_charts_escape_their_text_and_draw_what_they_are_given():
    svg = charts.bar_chart("c", "<b>title</b>", "desc & more", [("<x>", 3.0), ("y", 1.0)],
                           x_label="x", y_label="y")
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert svg.count('class="bar"') == 2
    line = charts.line_chart("l", "t", "d", [charts.Series("a", [(0, 1), (1, 2)]),
                                             charts.Series("b", [(0, 2), (1, 0)], dashed=True)],
                             x_label="x", y_label="y")
    assert line.count("<polyline") == 2 and 'class="legend"' in line
    assert charts.nice_ticks(0, 41) == [0, 10, 20, 30, 40]
    assert charts.nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
