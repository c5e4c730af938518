"""Journeys through the workbench in real Chromium (Debian's, never downloaded) against a live
server: sign in, create a group and a project in it, filter the samples table by a metadata
value, select samples across pages and export their line list as XLSX (opened with
openpyxl), a member with a lower metadata level who sees the restricted column nowhere, and
a sample's QC verdict leading to the file's QC report.
axe-core (from ``node_modules``, injected into the page) checks every page visited: no
serious or critical violation. Screenshots go to ``test-artifacts/`` (``docs/web.md``)."""

import io
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from tests.web.test_browser import ARTIFACTS, CHROMIUM, FLAGS

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (apt-get install chromium)"),
    pytest.mark.skipif(not AXE.is_file(), reason="axe-core not installed (npm ci)"),
]


def check_accessibility(page):
    """No serious or critical axe-core violation on the page as it is now."""
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [{"id": v["id"], "impact": v["impact"], "nodes": [n["html"] for n in v["nodes"][:3]]}
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"{page.url}: {json.dumps(bad, indent=1)}"


def sign_in(page, server, user):
    page.goto(f"{server}/users/sign_in")
    check_accessibility(page)
    page.get_by_label("Username or e-mail").fill(user.username)
    page.get_by_label("Password").fill("Password1!")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/-/profile")


@pytest.fixture
def browser_page():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=FLAGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900},
                                      accept_downloads=True)
        page = context.new_page()
        try:
            yield page
        except Exception:
            page.screenshot(path=ARTIFACTS / "workbench-failure.png", full_page=True)
            raise
        finally:
            browser.close()


def test_group_project_filter_select_export(live_server, factories, db, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    user = factories.user(username="scientist")
    sign_in(page, live_server, user)

    page.goto(f"{live_server}/")
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-1-dashboard.png")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Groups").click()
    page.get_by_label("Group name").fill("Enteric lab")
    check_accessibility(page)
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", name="Enteric lab")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-2-group.png")

    page.get_by_role("link", name="Create a project here").click()
    page.get_by_label("Project name").fill("Salmonella survey")
    page.get_by_label("Genome size (bases)").fill("4800000")
    check_accessibility(page)
    page.get_by_role("button", name="Create project").click()
    expect(page.get_by_role("heading", name="Salmonella survey")).to_be_visible()
    project_url = page.url
    project_id = int(project_url.rstrip("/").rsplit("/", 1)[1])

    # Samples arrive (through the API in real life); 60 of them, a third Enteritidis.
    from seqcore.models.project import Project

    project = db.get(Project, project_id)
    for n in range(60):
        factories.sample(project, name=f"SAL-{n:03d}", metadata={
            "serovar": "Enteritidis" if n % 3 == 0 else "Typhimurium", "host": "human"})
    page.goto(project_url)
    expect(page.get_by_text("Rows 1-25 of 60")).to_be_visible()
    check_accessibility(page)

    page.get_by_label("Metadata field").select_option("serovar")
    page.get_by_label("holding").fill("Enteritidis")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("Rows 1-20 of 20")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "web-3-filtered-samples.png", full_page=True)
    check_accessibility(page)

    # Select two rows on this page, one on the next (25 per page): the selection follows.
    page.get_by_label("Rows per page").select_option("25")
    page.get_by_role("button", name="Apply").click()
    page.get_by_label("Select SAL-000").check()
    page.get_by_label("Select SAL-003").check()
    page.goto(project_url + "?per_page=25&page=2")
    page.get_by_label("Select SAL-027").check()
    expect(page.locator("[data-selection-target=count]")).to_have_text("3")
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Export line list (XLSX)").click()
    download = download_info.value
    sheet = load_workbook(io.BytesIO(Path(download.path()).read_bytes())).active
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == ["sample_puid", "sample_name", "host", "serovar"]
    assert sorted(row[1] for row in rows[1:]) == ["SAL-000", "SAL-003", "SAL-027"]


def test_lower_metadata_level_sees_no_restricted_column(live_server, factories, db,
                                                        browser_page):
    page = browser_page
    owner = factories.user(username="lead")
    member = factories.user(username="student")
    project = factories.project(owner=owner, name="Listeria outbreak",
                                members=[(member, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=project.id, name="patient_id", restriction="LEVEL_4"))
    db.commit()
    sample = factories.sample(project, name="LIS-001",
                              metadata={"patient_id": "PX-4471", "st": "ST6"})
    sign_in(page, live_server, member)
    for path in (f"/-/projects/{project.id}", f"/-/samples/{sample.id}", "/"):
        page.goto(live_server + path)
        content = page.content()
        assert "ST6" in content or path == "/"
        assert "patient_id" not in content and "PX-4471" not in content
        check_accessibility(page)
        if path == f"/-/projects/{project.id}":
            # What docs/web.md shows: the member's project page, without the column.
            page.screenshot(path=ARTIFACTS / "web-4-member-view.png")
    # Sorting on it is refused in the same words as on a field that does not exist.
    hidden = page.goto(f"{live_server}/-/projects/{project.id}?sort=m:patient_id")
    hidden_text = page.locator("[role=alert]").inner_text()
    missing = page.goto(f"{live_server}/-/projects/{project.id}?sort=m:nonesuch")
    assert hidden.status == missing.status == 400
    assert hidden_text.replace("patient_id", "X") == page.locator(
        "[role=alert]").inner_text().replace("nonesuch", "X")


def test_sample_page_verdicts_lead_to_the_qc_report(live_server, factories, tmp_path,
                                                    browser_page):
    from playwright.sync_api import expect

    from tests.web.test_qc_pages import _report

    page = browser_page
    owner = factories.user(username="reader")
    project = factories.project(owner=owner, name="QC survey")
    sample = factories.sample(project, name="SAL-QC")
    bad = factories.sequencing_object(sample, qc=_report(tmp_path, "bad", high=20,
                                                         repeated_share=0.05))
    sign_in(page, live_server, owner)
    page.goto(f"{live_server}/-/samples/{sample.id}")
    summary = page.locator(f'.qc-summary[data-file="{bad.files[0].id}"]')
    expect(summary.locator(".badge.fail")).to_have_text("Fail")
    check_accessibility(page)
    summary.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("QC of")
    expect(page.locator("#qc-worst .badge.fail")).to_be_visible()
    expect(page.get_by_role("img", name="Quality scores across all bases")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-5-qc-report.png", full_page=True)
