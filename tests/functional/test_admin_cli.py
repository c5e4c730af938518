"""The administration commands (``seqcore users ...``, ``seqcore tokens ...``), run as an
administrator runs them: the installed ``seqcore`` program in its own process, against a
fresh database (SQLite, or PostgreSQL when ``SEQCORE_TEST_DATABASE_URL`` is set), with the
API answering the credentials they touch."""

import base64
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from webtest import TestApp

from seqcore.config import configure
from seqcore.testing import database as test_databases

SEQCORE = Path(sys.executable).parent / "seqcore"

# xdist_group: the module's template site (made by several seqcore commands) is made once, on
# one worker, rather than once on each worker the module's tests are spread over.
pytestmark = pytest.mark.xdist_group("admin_cli")


def seqcore(ini, *args, ok=True, stdin=None, env=None):
    result = subprocess.run([str(SEQCORE), "-c", str(ini), *args], capture_output=True,
                            text=True, timeout=120, input=stdin,
                            env=None if env is None else {**os.environ, **env})
    if ok:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def write_ini(directory, url):
    ini = directory / "site.ini"
    ini.write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = {url}\n"
        f"seqcore.storage.path = {directory / 'storage'}\n"
        "seqcore.password_hash.time_cost = 1\nseqcore.password_hash.memory_cost = 64\n")
    return ini


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The site as the commands make it, once: migrated, two accounts, one OAuth client."""
    root = tmp_path_factory.mktemp("admin-cli-template")
    url = test_databases.test_database_url(root, "admin_cli_template")
    ini = write_ini(root, url)
    seqcore(ini, "db", "upgrade")
    for name, role in (("root", "ROLE_ADMIN"), ("Bob", "ROLE_USER")):
        seqcore(ini, "users", "create", "--username", name, "--email", f"{name}@example.org",
                "--password", "Password1!", "--first-name", name, "--last-name", "Example",
                "--role", role)
    secret = re.search(r"client_secret: (\w+)",
                       seqcore(ini, "clients", "create", "--client-id", "cli").stdout).group(1)
    return url, secret


@pytest.fixture
def site(tmp_path, template):
    """A copy of the template for each test (the commands under test change it)."""
    template_url, secret = template
    url = test_databases.copy_database(template_url, tmp_path, "admin_cli")
    ini = write_ini(tmp_path, url)
    app = configure({"sqlalchemy.url": url, "seqcore.storage.path": str(tmp_path / "storage"),
                     "seqcore.session.secret": "admin-cli-test-session-secret-0123456789",
                     "seqcore.password_hash.time_cost": "1",
                     "seqcore.password_hash.memory_cost": "64"})
    testapp = TestApp(app.make_wsgi_app())
    return ini, testapp, secret


def token(testapp, secret, username, password="Password1!", status=200):
    answer = testapp.post("/api/oauth/token", {
        "grant_type": "password", "client_id": "cli", "client_secret": secret,
        "username": username, "password": password}, status=status)
    return answer.json.get("access_token")


def works(testapp, access_token):
    return testapp.get("/api/projects", headers={"Authorization": f"Bearer {access_token}"},
                       expect_errors=True).status_int == 200


def listing(ini):
    rows = [line.split("\t") for line in seqcore(ini, "users", "list").stdout.splitlines()]
    return {row[1]: (row[3], row[4]) for row in rows}


def test_a_missing_config_file_is_an_error_not_a_new_database(tmp_path):
    missing = tmp_path / "misspelt.ini"
    result = seqcore(missing, "db", "upgrade", ok=False)
    assert result.returncode == 2
    assert "misspelt.ini" in result.stderr and "does not exist" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_version():
    from seqcore import __version__

    result = subprocess.run([str(SEQCORE), "--version"], capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.strip() == f"seqcore {__version__}"


def test_list_disable_enable(site):
    ini, testapp, secret = site
    assert listing(ini) == {"root": ("ROLE_ADMIN", "enabled"), "Bob": ("ROLE_USER", "enabled")}
    before = token(testapp, secret, "Bob")
    assert works(testapp, before)

    assert seqcore(ini, "users", "disable", "bob").stdout.strip() == "disabled Bob"
    assert listing(ini)["Bob"] == ("ROLE_USER", "disabled")
    assert not works(testapp, before)
    token(testapp, secret, "Bob", status=400)
    only = seqcore(ini, "users", "list", "--disabled").stdout.split()
    assert "Bob" in only and "root" not in only

    seqcore(ini, "users", "enable", "Bob")
    assert listing(ini)["Bob"] == ("ROLE_USER", "enabled")
    assert not works(testapp, before)  # what was revoked stays revoked
    assert works(testapp, token(testapp, secret, "Bob"))


def test_set_password_ends_the_old_credentials(site):
    ini, testapp, secret = site
    before = token(testapp, secret, "Bob")
    weak = seqcore(ini, "users", "set-password", "Bob", "--password", "weak", ok=False)
    assert weak.returncode == 2 and "at least 8 characters" in weak.stderr
    assert works(testapp, before)

    # Prompted, hidden and confirmed when --password is not given.
    seqcore(ini, "users", "set-password", "Bob", stdin="N3w-Secret!\nN3w-Secret!\n")
    assert not works(testapp, before)
    token(testapp, secret, "Bob", status=400)
    assert works(testapp, token(testapp, secret, "Bob", password="N3w-Secret!"))


def test_set_role(site):
    ini, testapp, secret = site
    bob = token(testapp, secret, "Bob")
    headers = {"Authorization": f"Bearer {bob}"}
    # Only administrators may enable or disable accounts.
    testapp.patch_json("/api/users/1", {"enabled": True}, headers=headers, status=403)
    assert seqcore(ini, "users", "set-role", "Bob", "ROLE_ADMIN").stdout.strip() == \
        "Bob is now ROLE_ADMIN"
    assert listing(ini)["Bob"] == ("ROLE_ADMIN", "enabled")
    testapp.patch_json("/api/users/1", {"enabled": True}, headers=headers, status=200)

    bad = seqcore(ini, "users", "set-role", "Bob", "ROLE_KING", ok=False)
    assert bad.returncode == 2 and "ROLE_KING" in bad.stderr
    # Demoting the last enabled administrator is allowed (the shell can undo it) but said.
    seqcore(ini, "users", "set-role", "Bob", "ROLE_USER")
    demoted = seqcore(ini, "users", "set-role", "root", "ROLE_USER")
    assert "no enabled administrator remains" in demoted.stderr


def personal_token(ini, username):
    """A personal access token of ``username``, stored as the profile page stores one (only
    its digest)."""
    import secrets

    from sqlalchemy import select

    from seqcore.cli import Env
    from seqcore.models.access_token import PersonalAccessToken
    from seqcore.models.oauth import digest
    from seqcore.models.user import User

    value = secrets.token_urlsafe(32)
    env = Env(str(ini))
    with env.session() as db:
        user = db.scalar(select(User).where(User.username == username))
        db.add(PersonalAccessToken(user_id=user.id, name="laptop", token_hash=digest(value),
                                   scopes="read_api"))
    return f"{username}@example.org", value


def graphql_works(testapp, email, value):
    basic = base64.b64encode(f"{email}:{value}".encode()).decode()
    answer = testapp.post_json("/api/graphql", {"query": "{ currentUser { email } }"},
                               headers={"Authorization": f"Basic {basic}"},
                               expect_errors=True)
    return answer.status_int == 200 and "errors" not in answer.json


def sign_in(testapp, username, password="Password1!"):
    form = testapp.get("/users/sign_in").forms[0]
    form["username"], form["password"] = username, password
    form.submit(status=(302, 303))
    return testapp.get("/graphiql", expect_errors=True).status_int


def test_tokens_revoke_user(site):
    ini, testapp, secret = site
    bob, root = token(testapp, secret, "Bob"), token(testapp, secret, "root")
    second = token(testapp, secret, "Bob")
    email, value = personal_token(ini, "Bob")
    assert graphql_works(testapp, email, value)
    assert sign_in(testapp, "Bob") in (200, 503)  # signed in (503: no GraphiQL assets)
    out = seqcore(ini, "tokens", "revoke", "--user", "Bob").stdout
    assert out.strip() == ("revoked for Bob: 2 OAuth2 tokens, 1 personal access tokens, "
                           "1 web sessions")
    assert not works(testapp, bob) and not works(testapp, second)
    assert not graphql_works(testapp, email, value)
    assert testapp.get("/graphiql", expect_errors=True).status_int == 302  # signed out
    assert works(testapp, root)
    assert listing(ini)["Bob"] == ("ROLE_USER", "enabled")
    assert works(testapp, token(testapp, secret, "Bob"))


def test_unknown_user_changes_nothing(site):
    ini, _, _ = site
    before = listing(ini)
    for args in (("users", "disable", "nobody"), ("users", "enable", "nobody"),
                 ("users", "set-role", "nobody", "ROLE_ADMIN"),
                 ("users", "set-password", "nobody", "--password", "Password2!"),
                 ("tokens", "revoke", "--user", "nobody")):
        result = seqcore(ini, *args, ok=False)
        assert result.returncode == 2 and "no user 'nobody'" in result.stderr, args
    assert listing(ini) == before


def test_tokens_create_prints_a_token_that_works_once_shown(site):
    ini, testapp, _ = site
    out = seqcore(ini, "tokens", "create", "Bob", "--scope", "read_api", "--scope", "api",
                  "--name", "ci", "--expires", "30").stdout
    value = out.strip()
    assert out.count("\n") == 1 and value.startswith("sqc_")
    assert graphql_works(testapp, "Bob@example.org", value)
    from sqlalchemy import select

    from seqcore.cli import Env
    from seqcore.models.access_token import PersonalAccessToken

    with Env(str(ini)).session() as db:
        (stored,) = db.scalars(select(PersonalAccessToken)).all()
        assert (stored.name, stored.scopes) == ("ci", "read_api api")
        assert value not in stored.token_hash and stored.expires_at is not None
    seqcore(ini, "tokens", "revoke", "--user", "Bob")
    assert not graphql_works(testapp, "Bob@example.org", value)


def test_tokens_create_refuses_bad_requests_and_stores_nothing(site):
    ini, _, _ = site
    seqcore(ini, "users", "disable", "Bob")
    for args, message in ((("nobody",), "no user 'nobody'"),
                          (("Bob",), "the account 'Bob' is disabled"),
                          (("root", "--scope", "admin"), "'admin' is not one of"),
                          (("root", "--expires", "0"), "--expires"),
                          (("root", "--name", " "), "Give the token a name.")):
        result = seqcore(ini, "tokens", "create", *args, ok=False)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
    from sqlalchemy import func, select

    from seqcore.cli import Env
    from seqcore.models.access_token import PersonalAccessToken

    with Env(str(ini)).session() as db:
        assert db.scalar(select(func.count()).select_from(PersonalAccessToken)) == 0


def stored_tokens(ini):
    from sqlalchemy import select

    from seqcore.cli import Env
    from seqcore.models.access_token import PersonalAccessToken

    with Env(str(ini)).session() as db:
        return [(t.id, t.name, t.scopes, t.revoked, t.expires_at)
                for t in db.scalars(select(PersonalAccessToken).order_by(PersonalAccessToken.id))]


def token_list(ini, username):
    return [line.split("\t") for line in
            seqcore(ini, "tokens", "list", username).stdout.splitlines()]


def test_tokens_rotate_revokes_the_old_secret_and_prints_a_working_new_one(site):
    ini, testapp, _ = site
    old = seqcore(ini, "tokens", "create", "Bob", "--scope", "api", "--name", "ci",
                  "--expires", "30").stdout.strip()
    ((token_id, name, scopes, status, ends),) = token_list(ini, "bob")
    assert (name, scopes, status) == ("ci", "api", "active")
    out = seqcore(ini, "tokens", "rotate", "Bob", token_id).stdout
    new = out.strip()
    assert out.count("\n") == 1 and new.startswith("sqc_") and new != old
    assert graphql_works(testapp, "Bob@example.org", new)
    assert not graphql_works(testapp, "Bob@example.org", old)
    basic = base64.b64encode(f"Bob@example.org:{old}".encode()).decode()
    testapp.get("/api/projects", headers={"Authorization": f"Basic {basic}"}, status=401)
    listed = token_list(ini, "Bob")
    assert [(row[1], row[2], row[3], row[4]) for row in listed] == [
        ("ci", "api", "active", ends), ("ci", "api", "revoked", ends)]


def test_tokens_rotate_refuses_what_it_cannot_rotate_and_changes_nothing(site):
    ini, testapp, _ = site
    seqcore(ini, "tokens", "create", "root", "--name", "roots")
    seqcore(ini, "tokens", "create", "Bob", "--name", "revoked")
    seqcore(ini, "tokens", "revoke", "--user", "Bob")
    working = seqcore(ini, "tokens", "create", "Bob", "--name", "bobs").stdout.strip()
    roots, revoked = token_list(ini, "root")[0][0], token_list(ini, "Bob")[1][0]
    before = stored_tokens(ini)
    for args, code, message in (
            (("nobody", "1"), 2, "no user 'nobody'"),
            (("Bob", roots), 2, f"Bob has no personal access token {roots}"),
            (("Bob", "999"), 2, "Bob has no personal access token 999"),
            (("Bob", "zero"), 2, "'zero' is not a valid integer"),
            (("Bob", revoked), 1, "The token 'revoked' has been revoked; only a working token "
                                  "can be rotated")):
        result = seqcore(ini, "tokens", "rotate", *args, ok=False)
        assert result.returncode == code and message in result.stderr, (args, result.stderr)
    assert stored_tokens(ini) == before
    assert graphql_works(testapp, "Bob@example.org", working)


def test_tokens_create_under_a_maximum_lifetime(site):
    ini, testapp, _ = site
    limited = {"SEQCORE_TOKENS_REQUIRE_EXPIRY": "true", "SEQCORE_TOKENS_MAX_LIFETIME_DAYS": "30"}
    for args, message in (((), "Give the token an expiry date, at most 30 days from today"),
                          (("--expires", "31"),
                           "The expiry date must be at most 30 days from today")):
        result = seqcore(ini, "tokens", "create", "Bob", *args, ok=False, env=limited)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
    assert stored_tokens(ini) == []
    value = seqcore(ini, "tokens", "create", "Bob", "--expires", "30", env=limited).stdout
    assert graphql_works(testapp, "Bob@example.org", value.strip())
    # A token without expiry, made before the maximum: rotated under it, its successor
    # expires at the maximum.
    seqcore(ini, "tokens", "create", "Bob", "--name", "forever")
    forever = token_list(ini, "Bob")[0]
    assert forever[4] == "never"
    seqcore(ini, "tokens", "rotate", "Bob", forever[0], env=limited)
    from datetime import timedelta

    from seqcore.db import utcnow

    assert stored_tokens(ini)[-1][4].date() == utcnow().date() + timedelta(days=30)


def test_tokens_prune_deletes_tokens_dead_for_the_cleanup_period(site):
    from datetime import timedelta

    from sqlalchemy import update

    from seqcore.cli import Env
    from seqcore.db import utcnow
    from seqcore.models.access_token import PersonalAccessToken

    ini, _, _ = site
    for name in ("working", "expired", "revoked", "just expired"):
        seqcore(ini, "tokens", "create", "Bob", "--name", name)
    now = utcnow()
    with Env(str(ini)).session() as db:
        table = PersonalAccessToken
        db.execute(update(table).where(table.name == "expired")
                   .values(expires_at=now - timedelta(days=40)))
        db.execute(update(table).where(table.name == "revoked")
                   .values(revoked=True, revoked_at=now - timedelta(days=31)))
        db.execute(update(table).where(table.name == "just expired")
                   .values(expires_at=now - timedelta(days=2)))
    assert seqcore(ini, "tokens", "prune").stdout.strip() == "deleted 2 personal access tokens"
    assert [row[1] for row in stored_tokens(ini)] == ["working", "just expired"]
    assert seqcore(ini, "tokens", "prune", "--days", "1").stdout.strip() == \
        "deleted 1 personal access tokens"
    assert [row[1] for row in stored_tokens(ini)] == ["working"]
    bad = seqcore(ini, "tokens", "prune", "--days", "-1", ok=False)
    assert bad.returncode == 2 and stored_tokens(ini)[0][1] == "working"
