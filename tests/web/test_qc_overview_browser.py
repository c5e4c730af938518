"""The QC pages in real Chromium against a live server, checked by axe-core (no serious or
critical violation): a project's QC overview with its coverage chart, reached from the
project page, and a file's QC report with the duplication, adapter and per-tile plots,
reached from the overview. Screenshots go to ``test-artifacts/``."""

import pytest

from tests.web.test_browser import ARTIFACTS, CHROMIUM
from tests.web.test_journeys import (  # noqa: F401
    AXE,
    browser_page,
    check_accessibility,
    chromium,
    sign_in,
)
from tests.web.test_qc_pages import _tiled_report

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (apt-get install chromium)"),
    pytest.mark.skipif(not AXE.is_file(), reason="axe-core not installed (npm ci)"),
]


def test_project_qc_overview_and_file_report_are_accessible(live_server, factories,
                                                            browser_page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    page = browser_page
    owner = factories.user(username="reader")
    project = factories.project(owner=owner, name="Tile survey", genome_size=20_000,
                                minimum_coverage=10, maximum_coverage=100)
    stored = _tiled_report(tmp_path)
    for name in ("S-1", "S-2"):
        sample = factories.sample(project, name=name)
        factories.sequencing_object(sample, qc=stored)
    sign_in(page, live_server, owner)

    page.goto(f"{live_server}/-/projects/{project.id}")
    page.get_by_role("link", name="QC overview of the samples").click()
    expect(page.get_by_role("heading", name="QC of Tile survey")).to_be_visible()
    expect(page.locator("svg#plot-coverage circle.point")).to_have_count(2)
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-qc-overview.png", full_page=True)

    page.locator("#sample-qc li[data-file] a").first.click()
    expect(page.locator("svg#plot-per-tile-quality")).to_be_visible()
    expect(page.locator("svg#plot-adapter-content")).to_be_visible()
    expect(page.locator("svg#plot-duplication-levels")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-qc-modules.png", full_page=True)
