"""The analysis page shows a phylogenomic tree as a cladogram (tips coloured by a metadata
field the account may read), with the SNV matrix and the filter statistics; a field that
cannot be used is refused with 400."""

import pytest

from seqcore.plugin import ProjectRole
from seqcore_phylogenomics.views import parse_newick

NEWICK = "((alpha:0.1,beta_one:0.2)0.9:0.05,(gamma:0.3,(delta:0.1,reference:0.1):0.2):0.1);\n"
MATRIX = ("strain\talpha\tbeta_one\tgamma\tdelta\treference\t\n"
          "alpha\t0\t3\t7\t8\t9\t\nbeta_one\t3\t0\t6\t7\t8\t\ngamma\t7\t6\t0\t4\t5\t\n"
          "delta\t8\t7\t4\t0\t2\t\nreference\t9\t8\t5\t2\t0\t\n")
STATS = "Chromosome\tGenomes\nchromosome\tALL\talpha\nTotal number of unfiltered variants: 12\n"


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


@pytest.fixture
def tree(factories, testapp):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER, "LEVEL_1")])
    testapp.post_json(f"/api/projects/{project.id}/metadataFields",
                      {"name": "source", "restriction": "LEVEL_3"},
                      headers=factories.headers(owner), status=201)
    serovars = {"alpha": "Typhi", "beta one": "Typhi", "gamma": "Enteritidis", "delta": ""}
    objects = []
    for name, serovar in serovars.items():
        metadata = {"source": f"farm {name}"}
        if serovar:
            metadata["serovar"] = serovar
        sample = factories.sample(project, name=name, metadata=metadata)
        objects.append(factories.sequencing_object(sample, kind="pairs"))
    submission = factories.submission(
        owner, objects, analysis_type="phylogenomics", state="COMPLETED", projects=[project],
        outputs={"tree": ("phylogeneticTree.newick", NEWICK.encode()),
                 "matrix": ("snvMatrix.tsv", MATRIX.encode()),
                 "filter-stats": ("filterStats.txt", STATS.encode())})
    return {"owner": owner, "member": member, "submission": submission}


def _tips(page):
    return {tip["data-name"]: tip for tip in page.html.select("svg.tree g.tip")}


def test_the_tree_is_drawn_with_its_matrix_and_filter_stats(testapp, tree):
    sign_in(testapp, tree["owner"])
    page = testapp.get(f"/-/analyses/{tree['submission'].id}")
    drawing = page.html.select_one("svg.tree")
    assert drawing["role"] == "img" and drawing.find("title").text == "Phylogenetic tree"
    assert list(_tips(page)) == ["alpha", "beta_one", "gamma", "delta", "reference"]
    # A cladogram: every tip at the same x; three inner nodes below the root, each drawn.
    xs = {tip.find("circle")["cx"] for tip in _tips(page).values()}
    assert len(xs) == 1
    assert not drawing.select("g.legend")  # nothing chosen: no colours
    matrix = page.html.select("table.snv-matrix tbody tr")
    assert [row.find("th").text for row in matrix] == [
        "alpha", "beta_one", "gamma", "delta", "reference"]
    assert [td.text for td in matrix[0].find_all("td")] == ["0", "3", "7", "8", "9"]
    assert "Total number of unfiltered variants: 12" in page.html.select_one(
        "pre.filter-stats").text
    # The zoom and search tools wait for the controller (hidden without JavaScript).
    assert page.html.select_one('[data-controller="tree"] [data-tree-target="tools"]')[
        "hidden"] is not None
    # The tree's own file is not repeated in the plain list; the others are.
    listed = [li.find("code").text for li in page.html.select("#analysis-outputs li")]
    assert "tree" not in listed and "matrix" in listed


def test_tips_are_coloured_by_a_readable_field(testapp, tree):
    sign_in(testapp, tree["owner"])
    page = testapp.get(f"/-/analyses/{tree['submission'].id}?colour=serovar")
    tips = _tips(page)
    fill = {name: tip.find("circle")["fill"] for name, tip in tips.items()}
    assert fill["alpha"] == fill["beta_one"] != fill["gamma"]
    assert tips["alpha"]["data-category"] == "Typhi"
    assert "data-category" not in tips["delta"].attrs  # no value: grey, "no value"
    assert fill["delta"] == fill["reference"] == "#999999"
    legend = [t.text for t in page.html.select("svg.tree g.legend text")]
    assert legend == ["serovar", "Enteritidis", "Typhi", "no value"]
    options = [o["value"] for o in page.html.select('select[name="colour"] option')]
    assert options == ["", "serovar", "source"]


def test_a_restricted_or_unknown_field_is_refused_alike(testapp, tree):
    sign_in(testapp, tree["member"])
    page = testapp.get(f"/-/analyses/{tree['submission'].id}")
    assert [o["value"] for o in page.html.select('select[name="colour"] option')] == [
        "", "serovar"]
    restricted = testapp.get(f"/-/analyses/{tree['submission'].id}?colour=source", status=400)
    unknown = testapp.get(f"/-/analyses/{tree['submission'].id}?colour=nothing", status=400)
    assert "colour: No metadata field 'source'" in restricted.html.get_text()
    assert "farm" not in restricted.text
    assert "colour: No metadata field 'nothing'" in unknown.html.get_text()


def test_newick_is_parsed_into_the_cores_tree():
    root = parse_newick(NEWICK)
    assert [tip.name for tip in root.tips()] == ["alpha", "beta_one", "gamma", "delta",
                                                 "reference"]
    assert root.children[1].children[1].length == pytest.approx(0.2)


@pytest.fixture
def served(app, engine):
    """The test application on a loopback port, in this process (one database)."""
    import threading

    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=5)


def test_zoom_search_and_collapse_in_chromium_without_accessibility_violations(served, tree):
    from tests.web.test_browser import CHROMIUM, FLAGS
    from tests.web.test_journeys import AXE, check_accessibility

    if CHROMIUM is None or not AXE.is_file():
        pytest.skip("Chromium or axe-core missing")
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{served}/users/sign_in")
            page.get_by_label("Username or e-mail").fill("owner")
            page.get_by_label("Password").fill("Password1!")
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url("**/-/profile")
            page.goto(f"{served}/-/analyses/{tree['submission'].id}?colour=serovar")
            # With JavaScript the picture becomes a group of buttons (the clades' nodes).
            drawing = page.get_by_role("group", name="Phylogenetic tree")
            expect(drawing).to_be_visible()
            before = drawing.bounding_box()["width"]
            page.get_by_role("button", name="Zoom in").click()
            page.wait_for_function(
                f"document.querySelector('svg.tree').getBoundingClientRect().width > {before}")
            # "ph": alpha by its name, beta_one by its serovar (Typhi).
            page.get_by_label("Find tips").fill("ph")
            expect(page.locator("g.tip.match")).to_have_count(2)
            expect(page.get_by_role("status")).to_have_text("2 matching tips")
            # Collapse the clade of alpha and beta_one: its tips give way to a wedge.
            clade = page.get_by_role("button", name="Clade of 2 tips").first
            expect(clade).to_have_attribute("aria-expanded", "true")
            clade.click()
            expect(clade).to_have_attribute("aria-expanded", "false")
            expect(page.locator('g.tip[data-name="alpha"]')).to_be_hidden()
            expect(page.locator("g.clade.is-collapsed > g.collapsed")).to_be_visible()
            # The hidden match is shown on the wedge.
            expect(page.locator("g.clade.holds-match")).to_have_count(0)
            page.get_by_label("Find tips").fill("alph")
            expect(page.locator("g.clade.holds-match")).to_have_count(1)
            check_accessibility(page)
            # The keyboard does the same: focus the node, Enter expands it.
            clade.focus()
            page.keyboard.press("Enter")
            expect(clade).to_have_attribute("aria-expanded", "true")
            expect(page.locator('g.tip[data-name="alpha"]')).to_be_visible()
            page.keyboard.press(" ")
            expect(clade).to_have_attribute("aria-expanded", "false")
            page.get_by_role("button", name="Expand all clades").click()
            expect(page.locator('g.tip[data-name="alpha"]')).to_be_visible()
        finally:
            browser.close()


def test_the_view_speaks_french_from_the_plugins_catalogue(testapp, db, tree):
    owner = tree["owner"]
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{tree['submission'].id}?colour=serovar")
    assert page.html.select_one("svg.tree").find("title").text == "Arbre phylogénétique"
    assert page.html.select_one(f"#tree-{tree['submission'].outputs[0].id}") is not None
    assert "Colorer les feuilles selon" in page.html.select_one("form.tree-tools").text
    # A word of the plugin's and a word of the core's on the same page.
    assert [t.text for t in page.html.select("svg.tree g.legend text")][-1] == "sans valeur"
    assert page.html.select_one("#analysis-log-heading").text == "Journal"
    refused = testapp.get(f"/-/analyses/{tree['submission'].id}?colour=nothing", status=400)
    assert "Aucun champ de métadonnées 'nothing' pour colorer l\u2019arbre." in \
        refused.html.get_text()


def test_every_message_of_the_view_is_translated():
    from pathlib import Path

    import seqcore_phylogenomics
    from seqcore.testing.catalogues import stale_catalogues, untranslated

    package = Path(seqcore_phylogenomics.__file__).parent
    assert untranslated(package, "phylogenomics") == {}
    assert stale_catalogues(package, "phylogenomics") == []


def test_every_inner_node_is_a_clade_that_can_collapse(testapp, tree):
    sign_in(testapp, tree["owner"])
    page = testapp.get(f"/-/analyses/{tree['submission'].id}")
    drawing = page.html.select_one("svg.tree")
    clades = drawing.select("g.clade")
    # ((alpha,beta_one),(gamma,(delta,reference))): the root and three clades.
    assert [c.select_one(":scope > g.node")["data-tips"] for c in clades] == [
        "5", "2", "3", "2"]
    # Each clade holds its own tips, so hiding its children hides them.
    second = clades[1]
    assert [t["data-name"] for t in second.select("g.tip")] == ["alpha", "beta_one"]
    wedge = second.select_one(":scope > g.collapsed")
    assert wedge["display"] == "none" and wedge.find("text").text == "Clade of 2 tips"
    assert second.select_one(":scope > g.node").find("title").text == "Clade of 2 tips"
    assert second.select_one(":scope > g.node")["data-action"] == \
        "click->tree#toggle keydown->tree#key"
