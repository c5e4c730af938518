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
    assert verdicts["Adapter Content"] == "Pass"
    assert verdicts["Sequence Duplication Levels"] == "Pass"
    # The reads' names ("r1", ...) carry no tile: FastQC leaves the module out.
    assert verdicts["Per tile sequence quality"] == "Not measured"
    assert "no Illumina tile number" in page.text
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
    assert not {"perBaseCounts", "lengthCounts", "gcDistribution", "duplicationLevels",
                "adapterContent", "perTileQuality"} & set(body["resource"])
    testapp.get(rest, headers=factories.headers(qc_lab["outsider"]), status=404)
    sign_in(testapp, qc_lab["outsider"])
    page = testapp.get(url, status=404)
    assert "S1" not in page.text and bad.file_name not in page.text
    testapp.get("/-/files/999999/qc", status=404)
    testapp.get("/-/files/x1/qc", status=404)


def _tiled_report(tmp_path):
    """2,000 reads of 60 bp on 4 tiles (tile 1103 10 points worse), a third of them
    with the Illumina universal adapter from offset 30, 40 % of them identical."""
    rng = random.Random(8)
    repeated = random_sequence(random.Random(9), 60)
    records = []
    for index in range(2000):
        sequence = repeated if index % 10 < 4 else random_sequence(rng, 60)
        if index % 3 == 0:
            sequence = (sequence[:30] + "AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC")[:60]
        tile = 1101 + index // 10 % 4
        high = 28 if tile == 1103 else 40
        records.append((f"M1:5:FC:1:{tile}:{index}:{index} 1:N:0:1", sequence,
                        random_quality(rng, 60, high=high)))
    return FastQCCompatibleEngine(processes=1).run(
        write_fastq(tmp_path / "tiled.fastq", records)).to_dict()


def test_duplication_adapter_and_tile_plots(testapp, factories, qc_lab, tmp_path):
    stored = _tiled_report(tmp_path)
    tiled = factories.sequencing_object(qc_lab["sample"], qc=stored).files[0]
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{tiled.id}/qc")
    verdicts = _verdicts(page)
    assert verdicts["Per tile sequence quality"] == "Fail"
    assert verdicts["Adapter Content"] == "Fail"
    assert verdicts["Sequence Duplication Levels"] == "Warn"
    assert "Not measured" not in verdicts.values()
    duplication = page.html.select_one("svg#plot-duplication-levels")
    assert [g.find("title").text for g in duplication.select(":scope > g.series")] == [
        "% Deduplicated sequences", "% Total sequences"]
    ticks = [text.text for text in duplication.select("g.axes text")]
    assert ">10" in ticks and ">10k" in ticks
    percentage = stored["duplicationLevels"]["totalDeduplicatedPercentage"]
    assert f"{percentage:.2f} %" in page.html.select_one("#deduplicated").text
    adapters = page.html.select_one("svg#plot-adapter-content")
    lines = adapters.select(":scope > g.series")
    assert lines[0].find("title").text == "Illumina Universal Adapter"
    assert len(lines) == 5
    assert "Illumina Universal Adapter" in adapters.find("desc").text
    heatmap = page.html.select_one("svg#plot-per-tile-quality")
    assert heatmap["role"] == "img"
    cells = heatmap.select("rect.cell")
    # One rectangle per run of same-coloured neighbours: every row spans the whole width.
    rows = {}
    for cell in cells:
        rows.setdefault(cell["y"], 0.0)
        rows[cell["y"]] += float(cell["width"])
    assert len(rows) == 4 and len({round(width) for width in rows.values()}) == 1
    assert len(cells) <= 4 * len(stored["perTileQuality"]["positions"])
    assert "tile 1103" in heatmap.find("desc").text
    assert cells[0].find("title").text.startswith("1101, 1")
    # The overrepresented sequences: the repeated read and the adapter reads.
    assert len(page.html.select("#overrepresented tbody tr")) >= 1


def test_records_made_before_the_three_modules_show_them_not_measured(
        testapp, factories, qc_lab, tmp_path):
    stored = _tiled_report(tmp_path)
    for key in ("duplicationLevels", "adapterContent", "perTileQuality"):
        del stored[key]
    old = factories.sequencing_object(qc_lab["sample"], qc=stored).files[0]
    sign_in(testapp, qc_lab["owner"])
    page = testapp.get(f"/-/files/{old.id}/qc")
    verdicts = _verdicts(page)
    for module in ("Per tile sequence quality", "Adapter Content",
                   "Sequence Duplication Levels"):
        assert verdicts[module] == "Not measured"
    assert not page.html.select("svg#plot-per-tile-quality, svg#plot-adapter-content, "
                                "svg#plot-duplication-levels")


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
    heat = charts.heatmap("h", "t", "d", [("<1>", [0.0, -12.0]), ("2", [3.0, -5.0])],
                          ["1", "2-3"], x_label="x", y_label="y", limit=10)
    assert heat.count('class="cell"') == 4 and "&lt;1&gt;" in heat
    # Same-coloured neighbours make one rectangle.
    runs = charts.heatmap("h", "t", "d", [("1", [0.1, 0.2, -0.1, -9.0])],
                          ["1", "2", "3", "4"], x_label="x", y_label="y", limit=10)
    assert runs.count('class="cell"') == 2 and "1, 1 - 3: -0.10 .. 0.20" in runs
    assert charts.heat_colour(0.0, 10) == "#2e6da4"
    assert charts.heat_colour(-10.0, 10) == charts.heat_colour(-50.0, 10) == "#c0392b"
    assert charts.heat_colour(-5.0, 10) == "#f0c419"
    assert charts.nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
