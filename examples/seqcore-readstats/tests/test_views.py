"""The analysis page shows the histograms output with the example's own view: the core's
table of samples (sorted and paged by the query string), a bar chart per sample, the
plugin's stylesheet, and its words in English and French."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import seqcore_readstats

HISTOGRAMS = {"bin_width": 10, "samples": {
    "7": {"reads": 10, "mean_length": 46.7, "histogram": [[30, 7], [70, 3]]},
    "8": {"reads": 250, "mean_length": 101.0, "histogram": [[100, 250]]}}}


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


@pytest.fixture
def counted(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    obj = factories.sequencing_object(factories.sample(project), kind="unpaired")
    submission = factories.submission(
        owner, [obj], analysis_type="readstats", state="COMPLETED", projects=[project],
        outputs={"histograms": ("histograms.json", json.dumps(HISTOGRAMS).encode())})
    return owner, submission


def _view(page):
    return page.html.select_one('section.output-view[data-output="histograms"]')


def test_a_table_of_samples_and_a_histogram_each(testapp, counted):
    owner, submission = counted
    sign_in(testapp, owner)
    view = _view(testapp.get(f"/-/analyses/{submission.id}"))
    assert view.select_one(".readstats-summary").text == "260 reads; bins of 10 bases."
    rows = [[td.text for td in tr.find_all("td")] for tr in view.select("table tbody tr")]
    assert rows == [["Sample 7", "10", "46.7"], ["Sample 8", "250", "101.0"]]
    charts = view.select("svg.chart")
    assert [chart.find("title").text for chart in charts] == [
        "Read lengths of sample 7", "Read lengths of sample 8"]
    assert len(charts[0].select("rect.bar")) == 2
    # The plugin's stylesheet is served under its own prefix.
    sheet = view.find("link", rel="stylesheet")["href"]
    assert sheet.startswith("/-/plugins/readstats/")
    assert b".readstats-charts" in testapp.get(sheet).body


def test_the_table_sorts_and_pages_by_the_query_string(testapp, counted):
    owner, submission = counted
    sign_in(testapp, owner)
    view = _view(testapp.get(f"/-/analyses/{submission.id}?sort=reads&direction=desc"))
    assert [tr.find("td").text for tr in view.select("table tbody tr")] == [
        "Sample 8", "Sample 7"]
    page = testapp.get(f"/-/analyses/{submission.id}?sort=nothing", status=400)
    assert "cannot be sorted by" in page.text


def test_the_view_speaks_french(testapp, db, counted):
    owner, submission = counted
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    sign_in(testapp, owner)
    view = _view(testapp.get(f"/-/analyses/{submission.id}"))
    assert view.find("h3").text == "Longueurs des lectures"
    assert [th.find("a").text for th in view.select("table thead th")] == [
        "Échantillon", "Lectures", "Longueur moyenne des lectures"]
    assert view.select_one("svg.chart").find("title").text == \
        "Longueurs des lectures de l\u2019échantillon 7"
    # The core table's own words, from the core's catalogue.
    assert view.select_one("nav.pager span").text == "Lignes 1 à 2 sur 2"


def test_every_message_of_the_view_is_translated():
    from seqcore.testing.catalogues import stale_catalogues, untranslated

    package = Path(seqcore_readstats.__file__).resolve().parent
    assert untranslated(package, "readstats") == {}
    assert stale_catalogues(package, "readstats") == []
