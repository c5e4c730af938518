"""The analysis page shows a serotyping as a result card: serovar, antigens, cgMLST and
SISTR's QC status with its messages."""

import json

import pytest

PREDICTION = [{"genome": "SAL_1", "serovar": "Typhimurium", "serogroup": "B",
               "o_antigen": "1,4,[5],12", "h1": "i", "h2": "1,2",
               "serovar_antigen": "Typhimurium", "serovar_cgmlst": "Typhimurium",
               "cgmlst_ST": 1468400426, "cgmlst_matching_alleles": 328,
               "qc_status": "WARNING",
               "qc_messages": "WARNING: Only matched 328 cgMLST loci|INFO: fine otherwise"}]


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


@pytest.fixture
def typed(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    obj = factories.sequencing_object(sample, kind="pairs")
    submission = factories.submission(
        owner, [obj], analysis_type="serotyper", state="COMPLETED", projects=[project],
        outputs={"serotyper-predictions": ("sistr-predictions.json",
                                           json.dumps(PREDICTION).encode()),
                 "serotyper-log": ("sistr.log", b"ok\n")})
    return owner, submission


def test_the_calls_are_a_result_card(testapp, typed):
    owner, submission = typed
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    card = page.html.select_one("article.result-card")
    assert card.select_one(".serovar").text == "Typhimurium"
    assert card.select_one(".badge.warn").text == "WARNING"
    calls = {dd["data-call"]: dd.text for dd in card.select("dd")}
    assert calls["o_antigen"] == "1,4,[5],12" and calls["h1"] == "i" and calls["h2"] == "1,2"
    assert calls["cgmlst_ST"] == "1468400426" and calls["cgmlst_matching_alleles"] == "328"
    assert [li.text for li in card.select(".qc-messages li")] == [
        "WARNING: Only matched 328 cgMLST loci", "INFO: fine otherwise"]
    assert [li.find("code").text for li in page.html.select("#analysis-outputs li")] == [
        "serotyper-log"]


def test_the_card_speaks_french_from_the_plugins_catalogue(testapp, db, typed):
    owner, submission = typed
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    sign_in(testapp, owner)
    card = testapp.get(f"/-/analyses/{submission.id}").html.select_one("article.result-card")
    assert card.find("h3").text.startswith("Sérovar")
    assert [dt.text for dt in card.select("dt")][:4] == [
        "Sérogroupe", "Antigène O", "Antigène H1", "Antigène H2"]


def test_every_message_of_the_card_is_translated():
    from pathlib import Path

    import seqcore_serotyper
    from seqcore.testing.catalogues import stale_catalogues, untranslated

    package = Path(seqcore_serotyper.__file__).parent
    assert untranslated(package, "serotyper") == {}
    assert stale_catalogues(package, "serotyper") == []
