"""The management pages in real Chromium against a live server, checked by axe-core (no
serious or critical violation): sharing a project with a group from its Manage page with the
keyboard only, the group's shares, the data exports, the activity feed, and the
administrators' accounts and OAuth clients pages (the client's secret panel included)."""

import pytest

from seqcore.models.group import AccessLevel
from seqcore.models.user import SystemRole
from tests.web.test_browser import CHROMIUM
from tests.web.test_journeys import (  # noqa: F401
    AXE,
    browser_page,
    check_accessibility,
    chromium,
    sign_in,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (apt-get install chromium)"),
    pytest.mark.skipif(not AXE.is_file(), reason="axe-core not installed (npm ci)"),
]


def test_management_pages_are_accessible(live_server, factories, db,
                                         browser_page):  # noqa: F811
    from playwright.sync_api import expect

    from seqcore.models.group import GroupShare

    page = browser_page
    admin = factories.user(SystemRole.ADMIN, username="root")
    project = factories.project(owner=admin, name="Campylobacter 2026")
    factories.group(admin, name="Partners", path="partners",
                    members=[(factories.user(username="partner"), AccessLevel.GUEST)])
    for n in range(3):
        factories.sample(project, name=f"C{n}", metadata={"host": "chicken"})
    sign_in(page, live_server, admin)

    # Share the project with the keyboard only: the group, the level, then the button.
    page.goto(f"{live_server}/-/projects/{project.id}/manage")
    check_accessibility(page)
    page.get_by_label("Group", exact=True).focus()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Access level", exact=True)).to_be_focused()
    page.get_by_label("Access level", exact=True).select_option("20")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Share", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Shared with partners.")).to_be_visible()
    assert db.query(GroupShare).filter_by(project_id=project.id).one().access_level == 20
    check_accessibility(page)

    page.get_by_role("link", name="partners").first.click()
    expect(page.get_by_role("heading", name="Partners")).to_be_visible()
    check_accessibility(page)

    # A data export from the samples table, then its list.
    page.goto(f"{live_server}/-/projects/{project.id}")
    page.get_by_label("Select C0").check()
    page.get_by_role("button", name="Export data (bundle)").click()
    expect(page.get_by_role("heading", name="Data exports")).to_be_visible()
    expect(page.get_by_role("cell", name="Queued")).to_be_visible()
    check_accessibility(page)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Activity").click()
    expect(page.get_by_role("heading", name="Activity")).to_be_visible()
    check_accessibility(page)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Accounts").click()
    expect(page.get_by_role("heading", name="Accounts", exact=True)).to_be_visible()
    check_accessibility(page)
    page.get_by_role("button", name="Create account").click()  # the browser's own checks
    expect(page.get_by_role("heading", name="Accounts", exact=True)).to_be_visible()

    page.get_by_role("navigation", name="Main").get_by_role("link",
                                                            name="OAuth clients").click()
    page.get_by_label("Client id").fill("pipeline")
    check_accessibility(page)
    page.get_by_role("button", name="Create client").click()
    expect(page.get_by_label("Client secret")).to_be_visible()
    check_accessibility(page)
