"""Issue 33 points 6 and 9: the sign-in page redirects only to a plain local path (a CR or
LF in ``next`` was a 500 after a correct password), and no page with a password field or an
approve button can be framed by another site."""

from __future__ import annotations

import pytest

from seqcore.testing.factories import DEFAULT_PASSWORD

AUTHORIZE = ("/api/oauth/authorize?response_type=code&client_id=framing&scope=read"
             "&redirect_uri=https://client.example.org/callback&state=s")


def sign_in(testapp, user, next_value):
    page = testapp.get("/users/sign_in", params={"next": next_value})
    page.form["username"] = user.username
    page.form["password"] = DEFAULT_PASSWORD
    return page.form.submit(status=303)


@pytest.mark.parametrize("next_value", [
    "/-/projects\r\nSet-Cookie: evil=1", "/-/projects\nX: y", "/a\x7fb",
    "//evil.example.org/x", "/\\evil.example.org", "https://evil.example.org/",
    "javascript:alert(1)", "evil", "", "/\t/evil.example.org",
])
def test_anything_but_a_plain_local_path_falls_back_to_the_default(testapp, factories,
                                                                   next_value):
    user = factories.user()
    answer = sign_in(testapp, user, next_value)
    assert answer.headers["Location"].endswith("/-/profile")
    assert "evil" not in answer.headers["Location"]
    assert "Set-Cookie: evil" not in str(answer.headers)


def test_a_plain_local_path_is_kept(testapp, factories):
    answer = sign_in(testapp, factories.user(), "/-/projects?sort=name&page=2")
    assert answer.headers["Location"].endswith("/-/projects?sort=name&page=2")


def framed_headers_ok(response):
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


def test_pages_with_passwords_or_approve_buttons_forbid_framing(testapp, factories):
    factories.client(client_id="framing", secret="s", grant_types="authorization_code",
                     redirect_uris="https://client.example.org/callback")
    framed_headers_ok(testapp.get("/users/sign_in"))
    consent = testapp.get(AUTHORIZE, status=200)
    assert "approve" in consent.text
    framed_headers_ok(consent)
    user = factories.user()
    sign_in(testapp, user, "/-/profile")
    framed_headers_ok(testapp.get("/-/profile"))
    framed_headers_ok(testapp.get("/-/profile/personal_access_tokens"))
    framed_headers_ok(testapp.get("/graphiql"))
    # JSON answers are not pages: no page headers forced on them.
    assert "X-Frame-Options" not in testapp.get("/api/version", status=401).headers
