"""Sessions end on the server; a password change needs the current password and ends the
account's other credentials; the production session cookie is Secure, HttpOnly, SameSite."""

from pathlib import Path

from webtest import TestApp

from seqcore.testing.factories import DEFAULT_PASSWORD

ROOT = Path(__file__).resolve().parents[2]
NEW_PASSWORD = "Changed-pass2!"
QUERY = {"query": "{ currentUser { email } }"}


def sign_in(app, user, password=DEFAULT_PASSWORD, status=303):
    page = app.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = password
    return page.form.submit(status=status)


def browser(app):
    return TestApp(app, extra_environ={"HTTP_HOST": "localhost"})


def copy_cookie(source, app):
    copy = browser(app)
    copy.set_cookie("seqcore_session", source.cookies["seqcore_session"])
    return copy


def test_sign_out_ends_the_session_on_the_server(app, testapp, factories):
    user = factories.user()
    sign_in(testapp, user)
    stolen = copy_cookie(testapp, app)
    stolen.get("/-/profile", status=200)
    testapp.get("/-/profile").forms[0].submit(status=303)  # sign out
    # The copied cookie is still correctly signed, but its session is gone.
    stolen.get("/-/profile", status=302)
    stolen.get("/graphiql", status=302)


def change_password(app, current=DEFAULT_PASSWORD, new=NEW_PASSWORD, confirm=None,
                    keep=False, status=200):
    form = app.get("/-/profile").forms[1]
    form["current_password"] = current
    form["new_password"] = new
    form["confirm_password"] = new if confirm is None else confirm
    form["keep_personal_tokens"] = keep
    return form.submit(status=status)


def test_password_change_needs_the_current_password(app, testapp, factories):
    user = factories.user()
    sign_in(testapp, user)
    page = change_password(testapp, current="Wrong-pass1", status=400)
    assert "The current password is not correct." in page.html.find(role="alert").text
    change_password(testapp, confirm="Something-else1!", status=400)
    other = browser(app)
    sign_in(other, user)  # nothing changed
    sign_in(browser(app), user, password=NEW_PASSWORD, status=400)


def test_password_change_ends_other_credentials(app, testapp, factories):
    user = factories.user()
    factories.client(client_id="uploader", secret="s3cret")
    sign_in(testapp, user)
    other = browser(app)
    sign_in(other, user)
    oauth = testapp.post("/api/oauth/token", {
        "grant_type": "password", "client_id": "uploader", "client_secret": "s3cret",
        "username": user.username, "password": DEFAULT_PASSWORD}).json
    pat = factories.graphql_headers(user)
    testapp.post_json("/api/graphql", QUERY, headers=pat, status=200)

    page = change_password(testapp)
    assert "Your password was changed" in page.text
    testapp.get("/-/profile", status=200)  # this session goes on
    other.get("/-/profile", status=302)  # every other one has ended
    testapp.get("/api", headers={"Authorization": f"Bearer {oauth['access_token']}"},
                status=401)
    testapp.post("/api/oauth/token", {
        "grant_type": "refresh_token", "client_id": "uploader", "client_secret": "s3cret",
        "refresh_token": oauth["refresh_token"]}, status=400)
    browser(app).post_json("/api/graphql", QUERY, headers=pat, status=401)
    sign_in(browser(app), user, password=NEW_PASSWORD)


def test_password_change_may_keep_personal_access_tokens(app, testapp, factories):
    user = factories.user()
    sign_in(testapp, user)
    pat = factories.graphql_headers(user)
    change_password(testapp, keep=True)
    browser(app).post_json("/api/graphql", QUERY, headers=pat, status=200)


def test_rest_password_change_needs_the_current_password(testapp, factories):
    user = factories.user()
    headers = factories.headers(user)
    other = factories.headers(user)
    pat = factories.graphql_headers(user)
    url = f"/api/users/{user.id}"
    res = testapp.patch_json(url, {"password": NEW_PASSWORD}, headers=headers, status=400)
    assert list(res.json) == ["currentPassword"]
    testapp.patch_json(url, {"password": NEW_PASSWORD, "currentPassword": "Wrong-pass1",
                             "firstName": "Mallory"}, headers=headers, status=400)
    assert testapp.get(url, headers=headers).json["resource"]["firstName"] == "Test"
    testapp.patch_json(url, {"password": NEW_PASSWORD, "currentPassword": DEFAULT_PASSWORD},
                       headers=headers, status=200)
    testapp.get("/api", headers=headers, status=200)  # the token used for the change
    testapp.get("/api", headers=other, status=401)
    testapp.post_json("/api/graphql", QUERY, headers=pat, status=401)


def test_rest_password_change_may_keep_personal_access_tokens(testapp, factories):
    user = factories.user()
    pat = factories.graphql_headers(user)
    testapp.patch_json(f"/api/users/{user.id}", {
        "password": NEW_PASSWORD, "currentPassword": DEFAULT_PASSWORD,
        "keepPersonalAccessTokens": True}, headers=factories.headers(user))
    testapp.post_json("/api/graphql", QUERY, headers=pat, status=200)


def test_administrators_reset_passwords_without_the_old_one(testapp, factories):
    admin = factories.user(role="ROLE_ADMIN")
    user = factories.user()
    theirs = factories.headers(user)
    testapp.patch_json(f"/api/users/{user.id}", {"password": NEW_PASSWORD},
                       headers=factories.headers(admin), status=200)
    testapp.get("/api", headers=theirs, status=401)


def test_production_session_cookie_is_secure(monkeypatch, tmp_path, database_url, engine):
    from pyramid.paster import get_app

    monkeypatch.setenv("SEQCORE_SQLALCHEMY_URL", database_url)
    monkeypatch.setenv("SEQCORE_STORAGE_PATH", str(tmp_path))
    monkeypatch.setenv("SEQCORE_SESSION_SECRET", "production-sets-its-own")
    app = TestApp(get_app(str(ROOT / "production.ini"), "main"),
                  extra_environ={"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_PROTO": "https"})
    cookie = app.get("/users/sign_in").headers["Set-Cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert {"secure", "httponly", "samesite"} <= attributes
    assert "SameSite=Lax" in cookie


def test_password_form_needs_csrf(testapp):
    testapp.post("/-/profile/password", {"current_password": "x"}, status=400)
