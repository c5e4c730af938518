"""A project's QC overview (``/-/projects/{id}/qc``) through WebTest: one row per sample
with its files' verdicts, reads, bases and coverage against the project's limits, a
coverage chart, REST's access rules, and a statement count that does not grow with the
page size."""

import random

import pytest

from seqcore.qc import FastQCCompatibleEngine
from tests.qc.fastq_data import random_quality, random_sequence, write_fastq

from .test_workbench import sign_in


def _report(tmp_path, name, reads, high=40):
    rng = random.Random(name)
    records = [(f"r{i}", random_sequence(rng, 50), random_quality(rng, 50, high=high))
               for i in range(reads)]
    return FastQCCompatibleEngine(processes=1).run(
        write_fastq(tmp_path / f"{name}.fastq", records)).to_dict()


@pytest.fixture
def qc_project(factories, tmp_path):
    owner = factories.user(username="owner")
    outsider = factories.user(username="outsider")
    # 10 kbp genome: coverage 5 to 40 is fine.
    project = factories.project(owner=owner, name="Coverage project", genome_size=10_000,
                                minimum_coverage=5, maximum_coverage=40)
    low = factories.sample(project, name="A-low")
    good = factories.sample(project, name="B-good")
    high = factories.sample(project, name="C-high")
    bare = factories.sample(project, name="D-no-files")
    pending = factories.sample(project, name="E-pending")
    # Objects of the default kind hold the kind's sample files; each file gets the record.
    low_object = factories.sequencing_object(low, qc=_report(tmp_path, "low", 200))
    good_object = factories.sequencing_object(good, qc=_report(tmp_path, "good", 1000))
    high_object = factories.sequencing_object(high, qc=_report(tmp_path, "high", 6000,
                                                                high=20))
    factories.sequencing_object(pending, state="QUEUED")
    return {"owner": owner, "outsider": outsider, "project": project,
            "objects": {"A-low": low_object, "B-good": good_object, "C-high": high_object},
            "bare": bare}


def _rows(page):
    return {row.find("td").get_text(strip=True): row
            for row in page.html.select("#sample-qc tbody tr")}


def test_one_row_per_sample_with_coverage_flags_and_verdicts(testapp, qc_project):
    sign_in(testapp, qc_project["owner"])
    project = qc_project["project"]
    page = testapp.get(f"/-/projects/{project.id}/qc")
    rows = _rows(page)
    assert sorted(rows) == ["A-low", "B-good", "C-high", "D-no-files", "E-pending"]
    objects = qc_project["objects"]
    for name, reads in (("A-low", 200), ("B-good", 1000), ("C-high", 6000)):
        files = objects[name].files
        cells = [cell.get_text(" ", strip=True) for cell in rows[name].find_all("td")]
        assert cells[2] == f"{reads * len(files):,}"
        assert cells[3] == f"{reads * 50 * len(files):,}"
        coverage = reads * 50 * len(files) / 10_000
        assert cells[4].startswith(f"{coverage:.1f}x")
        links = rows[name].select("li[data-file] a")
        assert [a["href"] for a in links] == [f"/-/files/{f.id}/qc" for f in files]
    assert rows["A-low"].select_one("[data-flag=low]")
    assert not rows["B-good"].select("[data-flag]")
    assert rows["C-high"].select_one("[data-flag=high]")
    assert rows["C-high"].select_one("li[data-file] .badge.fail")  # poor qualities
    assert rows["B-good"].select_one("li[data-file] .badge")
    assert "No files" in rows["D-no-files"].get_text()
    assert "No QC yet" in rows["E-pending"].get_text()
    chart = page.html.select_one("svg#plot-coverage")
    assert chart["role"] == "img"
    assert len(chart.select("circle.point")) == 3
    assert [rule.find("text").text for rule in chart.select("g.rule")] == [
        "Minimum coverage (5x)", "Maximum coverage (40x)"]
    assert "1 samples are below the minimum, 1 above the maximum" in chart.find("desc").text


def test_the_project_page_links_to_the_overview(testapp, qc_project):
    sign_in(testapp, qc_project["owner"])
    project = qc_project["project"]
    page = testapp.get(f"/-/projects/{project.id}")
    assert page.html.select_one("#project-qc")["href"] == f"/-/projects/{project.id}/qc"


def test_paging_and_filtering(testapp, qc_project):
    sign_in(testapp, qc_project["owner"])
    project = qc_project["project"]
    first = testapp.get(f"/-/projects/{project.id}/qc?per_page=25&sort=name&direction=desc")
    assert next(iter(_rows(first))) == "E-pending"
    filtered = testapp.get(f"/-/projects/{project.id}/qc?q=good")
    assert list(_rows(filtered)) == ["B-good"]
    assert len(filtered.html.select("svg#plot-coverage circle.point")) == 1
    testapp.get(f"/-/projects/{project.id}/qc?per_page=7", status=400)


def test_a_project_without_genome_size_has_no_coverage(testapp, factories, qc_project,
                                                       tmp_path):
    owner = qc_project["owner"]
    project = factories.project(owner=owner, name="No genome project")
    sample = factories.sample(project, name="S")
    factories.sequencing_object(sample, qc=_report(tmp_path, "s", 100))
    sign_in(testapp, owner)
    page = testapp.get(f"/-/projects/{project.id}/qc")
    assert page.html.select_one("#no-genome-size")
    assert not page.html.select("svg#plot-coverage")
    assert _rows(page)["S"].find_all("td")[4].get_text(strip=True) == "-"


def test_hidden_from_whoever_cannot_read_the_project(testapp, qc_project):
    project = qc_project["project"]
    url = f"/-/projects/{project.id}/qc"
    assert "/users/sign_in?next=" in testapp.get(url, status=302).location
    sign_in(testapp, qc_project["outsider"])
    page = testapp.get(url, status=404)
    assert "A-low" not in page.text and "Coverage project" not in page.text
    testapp.get("/-/projects/999999/qc", status=404)
    testapp.get("/-/projects/x/qc", status=404)


def test_statements_do_not_grow_with_the_page_size(testapp, qc_project, sql_counter):
    sign_in(testapp, qc_project["owner"])
    project = qc_project["project"]
    counts = []
    for size in (25, 50, 100):
        with sql_counter:
            page = testapp.get(f"/-/projects/{project.id}/qc?per_page={size}")
        assert len(_rows(page)) == 5
        counts.append(sql_counter.count)
    assert counts[0] == counts[1] == counts[2]


def test_the_overview_speaks_french(testapp, db, qc_project):
    from seqcore.models.user import User

    db.get(User, qc_project["owner"].id).locale = "fr"
    db.commit()
    sign_in(testapp, qc_project["owner"])
    page = testapp.get(f"/-/projects/{qc_project['project'].id}/qc")
    assert page.html.select_one("svg#plot-coverage title").text == "Couverture par échantillon"
    assert "sous le minimum" in _rows(page)["A-low"].get_text()
