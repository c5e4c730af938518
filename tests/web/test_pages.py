"""Sign-in, sign-out, the profile's Access Tokens, and GraphiQL, through WebTest."""

import base64
import re
from datetime import timedelta

import pytest
from pyramid.exceptions import ConfigurationError

from seqcore.config import configure
from seqcore.db import utcnow


def sign_in(testapp, user, password="Password1!", status=303):
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = password
    return page.form.submit(status=status)


def test_sign_in_page_is_plain_and_labelled(testapp):
    page = testapp.get("/users/sign_in")
    assert page.headers["Cache-Control"] == "no-store"
    assert page.html.find("label", {"for": "username"})
    assert page.html.find("label", {"for": "password"})
    assert page.html.find("input", {"name": "csrf_token"})["value"]
    assert "seqcore_session" in page.headers["Set-Cookie"]
    assert "HttpOnly" in page.headers["Set-Cookie"]
    assert "SameSite=Lax" in page.headers["Set-Cookie"]


def test_sign_in_then_profile_then_sign_out(testapp, factories):
    user = factories.user(email="ada@example.org")
    response = sign_in(testapp, user)
    assert response.location.endswith("/-/profile")
    profile = response.follow()
    assert profile.html.find(id="email").text == "ada@example.org"
    profile.forms[0].submit(status=303)  # the header's sign-out form
    testapp.get("/-/profile", status=302)


def test_sign_in_by_email_and_next(testapp, factories):
    user = factories.user(email="Grace@Example.org")
    page = testapp.get("/users/sign_in?next=/graphiql")
    page.form["username"] = "grace@example.org"
    page.form["password"] = "Password1!"
    assert page.form.submit(status=303).location.endswith("/graphiql")
    assert user


def test_next_cannot_leave_the_site(testapp, factories):
    user = factories.user()
    page = testapp.get("/users/sign_in?next=//evil.example/x")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    assert page.form.submit(status=303).location.endswith("/-/profile")


def test_wrong_password_and_missing_csrf(testapp, factories):
    user = factories.user()
    page = sign_in(testapp, user, password="wrong", status=400)
    assert page.html.find(role="alert").text == "The username or password is not correct."
    testapp.post("/users/sign_in", {"username": user.username, "password": "Password1!"},
                 status=400)
    testapp.get("/-/profile", status=302)


def test_failed_sign_ins_are_rate_limited(testapp, factories):
    user = factories.user()
    for _ in range(5):
        sign_in(testapp, user, password="wrong", status=400)
    page = sign_in(testapp, user, status=429)  # even the right password, for a while
    assert "Too many failed sign-ins" in page.html.find(role="alert").text
    other = factories.user()
    sign_in(testapp, other)


def test_a_disabled_account_cannot_sign_in(testapp, factories):
    user = factories.user(enabled=False)
    sign_in(testapp, user, status=400)


def test_graphiql_needs_a_session(testapp, factories):
    response = testapp.get("/graphiql", status=302)
    assert response.location.endswith("/users/sign_in?next=%2Fgraphiql")
    sign_in(testapp, factories.user())
    page = testapp.get("/graphiql")
    scripts = [s["src"] for s in page.html.find_all("script") if s.get("src")]
    assert all(src.startswith("/") for src in scripts)  # served here: no CDN
    for src in scripts:
        assert testapp.get(src).content_type.endswith("javascript")
    css = page.html.find_all("link", rel="stylesheet")
    for link in css:
        assert testapp.get(link["href"]).status_int == 200
    testapp.get("/-/graphiql/unknown.js", status=404)


def create_token(testapp, name="ci", scopes=("read_api",), expires="", status=201):
    page = testapp.get("/-/profile/personal_access_tokens")
    form = page.forms[1]
    form["name"] = name
    form["expires_at"] = expires
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    return form.submit(status=status)


def test_create_list_and_revoke_tokens(testapp, factories):
    user = factories.user()
    sign_in(testapp, user)
    page = create_token(testapp, name="laptop", scopes=("read_api", "api"))
    secret = page.html.find(id="new-token")["value"]
    assert secret.startswith("sqc_")
    auth = base64.b64encode(f"{user.email}:{secret}".encode()).decode()
    headers = {"Authorization": f"Basic {auth}"}
    body = testapp.post_json("/api/graphql", {"query": "{ currentUser { email } }"},
                             headers=headers).json
    assert body == {"data": {"currentUser": {"email": user.email}}}
    # Shown once: the list never shows it again.
    listing = testapp.get("/-/profile/personal_access_tokens")
    assert secret not in listing.text
    row = listing.html.find("tbody").find("tr")
    cells = [td.text.strip() for td in row.find_all("td")]
    assert cells[0] == "laptop" and cells[1] == "read_api, api" and cells[5] == "Active"
    assert cells[3] != "Never"  # last used just now
    listing.forms[2].submit(status=303)  # header sign-out, create, then revoke
    testapp.post_json("/api/graphql", {"query": "{ currentUser { email } }"}, headers=headers,
                      status=401)
    row = testapp.get("/-/profile/personal_access_tokens").html.find("tbody").find("tr")
    assert row.find_all("td")[5].text.strip() == "Revoked"


@pytest.mark.parametrize(("name", "scopes", "expires", "problem"), [
    ("", ("api",), "", "Give the token a name."),
    ("x", (), "", "Choose at least one scope."),
    ("x", ("api",), "2001-01-01", "The expiry date must be in the future."),
    ("x", ("api",), "soon", "The expiry date must be a date (YYYY-MM-DD)."),
])
def test_token_form_problems(testapp, factories, name, scopes, expires, problem):
    sign_in(testapp, factories.user())
    page = create_token(testapp, name=name, scopes=scopes, expires=expires, status=400)
    assert problem in page.html.find(role="alert").text
    assert page.html.find(id="new-token") is None


def test_expiry_date(testapp, factories):
    user = factories.user()
    sign_in(testapp, user)
    tomorrow = (utcnow() + timedelta(days=1)).date().isoformat()
    page = create_token(testapp, expires=tomorrow)
    assert page.html.find("tbody").find_all("td")[4].text.strip() == tomorrow


def test_users_revoke_only_their_own_tokens(testapp, factories, db):
    from seqcore.models.access_token import PersonalAccessToken

    owner = factories.user()
    factories.access_token(owner)
    token_id = db.query(PersonalAccessToken.id).scalar()
    sign_in(testapp, factories.user())
    csrf = testapp.get("/-/profile").html.find("input", {"name": "csrf_token"})["value"]
    testapp.post(f"/-/profile/personal_access_tokens/{token_id}/revoke",
                 {"csrf_token": csrf}, status=404)
    testapp.post("/-/profile/personal_access_tokens/abc/revoke", {"csrf_token": csrf},
                 status=404)
    assert db.get(PersonalAccessToken, token_id).revoked is False


def test_token_pages_need_a_session(testapp):
    testapp.get("/-/profile/personal_access_tokens", status=302)
    # Without a session, / is the landing page, whose one way in is the sign-in page.
    landing = testapp.get("/", status=200)
    assert landing.html.find("a", class_="button")["href"] == "/users/sign_in"


def test_production_needs_a_session_secret(database_url, tmp_path, monkeypatch):
    monkeypatch.delenv("SEQCORE_SESSION_SECRET", raising=False)
    with pytest.raises(ConfigurationError, match=r"seqcore\.session\.secret"):
        configure({"sqlalchemy.url": "postgresql+psycopg://nobody@127.0.0.1:1/none"},
                  plugins=[])
    url = f"sqlite:///{tmp_path / 'dev.sqlite'}"
    configure({"sqlalchemy.url": url}, plugins=[])
    secret = (tmp_path / "seqcore-session-secret").read_text()
    configure({"sqlalchemy.url": url}, plugins=[])
    assert (tmp_path / "seqcore-session-secret").read_text() == secret


def test_every_page_links_to_graphiql_and_the_rest_reference(testapp, factories):
    """The profile, token, GraphiQL and Redoc pages each lead to GraphiQL and to Redoc, and
    every word on Redoc's navy bar is white (the bar's own rule, not the body's dark text)."""
    sign_in(testapp, factories.user())
    for path in ("/-/profile", "/-/profile/personal_access_tokens", "/graphiql", "/redoc"):
        page = testapp.get(path)
        hrefs = {a["href"] for a in page.html.find_all("a") if a.get("href")}
        assert {"/graphiql", "/redoc"} - {path} <= hrefs, (path, hrefs)
    page = testapp.get("/redoc")
    sheets = [link["href"] for link in page.html.find_all("link", rel="stylesheet")]
    rules = "".join(testapp.get(href).text for href in sheets)
    header_rule = re.search(r"(?m)^\.graphiql-bar \{([^}]*)\}", rules).group(1)
    assert "background: #12355b" in header_rule and "color: #fff" in header_rule
