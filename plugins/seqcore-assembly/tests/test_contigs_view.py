"""The analysis page shows an assembly's contigs: statistics, a length/coverage plot with one
point per contig, and the longest contigs with their copy number."""

import random

import pytest


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


def _contigs():
    rng = random.Random(3)
    records = []
    for index, (length, coverage) in enumerate([(120_000, 40.2), (80_000, 39.0),
                                                 (5_000, 121.5), (1_500, 41.0)], start=1):
        sequence = "".join(rng.choices("ACGT", k=length))
        records.append(f">NODE_{index}_length_{length}_cov_{coverage}\n{sequence}\n")
    return "".join(records).encode()


@pytest.fixture
def assembled(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    obj = factories.sequencing_object(sample, kind="pairs")
    submission = factories.submission(
        owner, [obj], analysis_type="assembly", state="COMPLETED", projects=[project],
        outputs={"contigs-with-repeats": ("contigs-with-repeats.fasta", _contigs()),
                 "assembly-log": ("spades.log", b"done\n")})
    return owner, submission


def test_contig_statistics_plot_and_copy_numbers(testapp, assembled):
    owner, submission = assembled
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    stats = {dd["data-stat"]: dd.text for dd in page.html.select("dl.contig-stats dd")}
    assert stats["count"] == "4" and stats["total"] == "206,500"
    assert stats["n50"] == "120,000 (1)" and stats["longest"] == "120,000"
    plot = page.html.select_one("svg.chart")
    assert plot.find("title").text == "Contig length and coverage"
    points = plot.select("circle.point")
    assert len(points) == 4
    assert points[2].find("title").text == "NODE_3_length_5000_cov_121.5: 5000, 121.5"
    rows = page.html.select("table.contigs tbody tr")
    copies = {r.find("code").text: r.find_all("td")[-1].text for r in rows}
    assert copies["NODE_1_length_120000_cov_40.2"] == "1"
    assert copies["NODE_3_length_5000_cov_121.5"] == "3"  # a repeat, three copies
    listed = [li.find("code").text for li in page.html.select("#analysis-outputs li")]
    assert listed == ["assembly-log"]


def test_the_view_speaks_french_from_the_plugins_catalogue(testapp, db, assembled):
    owner, submission = assembled
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    assert page.html.select_one("svg.chart").find("title").text == \
        "Longueur et couverture des contigs"
    assert page.html.select_one("table.contigs caption").text == \
        "Les 4 contigs les plus longs"
    assert [th.text for th in page.html.select("table.contigs th")] == [
        "Contig", "Longueur", "Couverture", "Copies"]


def test_every_message_of_the_view_is_translated():
    from pathlib import Path

    import seqcore_assembly
    from seqcore.testing.catalogues import stale_catalogues, untranslated

    package = Path(seqcore_assembly.__file__).parent
    assert untranslated(package, "assembly") == {}
    assert stale_catalogues(package, "assembly") == []
