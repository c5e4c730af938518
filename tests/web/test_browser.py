"""A person's path through a real server in headless Chromium: sign in, create a token, copy
it, run ``currentUser`` in GraphiQL with it, sign out. Screenshots go to ``test-artifacts/``.

Debian's ``chromium`` is used (``./dev test`` installs it); Playwright never downloads a
browser. The test is skipped only when no Chromium can be found.
"""

import base64
import json
import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update"]


def find_chromium():
    for candidate in ("chromium", "chromium-browser"):
        path = shutil.which(candidate)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


CHROMIUM = find_chromium()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (apt-get install chromium)")
def test_sign_in_token_graphiql_sign_out(live_server, factories):
    from playwright.sync_api import expect, sync_playwright

    user = factories.user(username="browser", email="browser@example.org")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=FLAGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server)
        page = context.new_page()
        try:
            page.goto(f"{live_server}/users/sign_in")
            page.get_by_label("Username or e-mail").fill(user.username)
            page.get_by_label("Password").fill("Password1!")
            page.screenshot(path=ARTIFACTS / "browser-1-sign-in.png")
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url("**/-/profile")
            expect(page.locator("#email")).to_have_text("browser@example.org")

            page.get_by_role("link", name="Access Tokens").first.click()
            page.get_by_label("Token name").fill("from the browser")
            page.get_by_label("read_api").check()
            page.get_by_role("button", name="Create personal access token").click()
            secret = page.locator("#new-token").input_value()
            assert secret.startswith("sqc_")
            page.get_by_role("button", name="Copy token").click()
            expect(page.get_by_role("button", name="Copied")).to_be_visible()
            copied = page.evaluate("navigator.clipboard.readText()")
            assert copied == secret
            page.screenshot(path=ARTIFACTS / "browser-2-token-created.png", full_page=True)

            basic = base64.b64encode(f"{user.email}:{copied}".encode()).decode()
            query = "query {\n  currentUser {\n    email\n  }\n}"
            headers = json.dumps({"Authorization": f"Basic {basic}"})
            page.goto(f"{live_server}/graphiql?" + urlencode({"query": query,
                                                              "headers": headers}))
            page.locator(".graphiql-execute-button").click()
            result = page.locator(".result-window")
            expect(result).to_contain_text('"email": "browser@example.org"', timeout=15000)
            page.screenshot(path=ARTIFACTS / "browser-3-graphiql.png")

            page.get_by_role("button", name="Sign out").click()
            page.wait_for_url("**/users/sign_in")
            page.screenshot(path=ARTIFACTS / "browser-4-signed-out.png")
            page.goto(f"{live_server}/graphiql")
            assert "/users/sign_in" in page.url
        except Exception:
            page.screenshot(path=ARTIFACTS / "browser-failure.png", full_page=True)
            raise
        finally:
            browser.close()
