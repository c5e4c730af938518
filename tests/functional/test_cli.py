"""The ``seqcore`` command against a real SQLite database."""

import re

import pytest
from click.testing import CliRunner
from webtest import TestApp

from seqcore.cli import bootstrap, main
from seqcore.config import configure


@pytest.fixture
def ini(tmp_path):
    path = tmp_path / "test.ini"
    path.write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = sqlite:///{tmp_path / 'cli.sqlite'}\n"
        f"seqcore.storage.path = {tmp_path / 'storage'}\n"
        "seqcore.password_hash.time_cost = 1\nseqcore.password_hash.memory_cost = 64\n"
    )
    return path


def run(ini, *args, ok=True):
    result = CliRunner().invoke(main, ["-c", str(ini), *args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_users_and_clients(ini, tmp_path):
    run(ini, "db", "upgrade")
    run(ini, "users", "create", "--username", "uploader", "--email", "up@example.org",
        "--password", "Password1!", "--first-name", "Up", "--last-name", "Loader",
        "--role", "ROLE_SEQUENCER")
    weak = run(ini, "users", "create", "--username", "weak", "--email", "w@example.org",
               "--password", "weak", "--first-name", "We", "--last-name", "Ak", ok=False)
    assert weak.exit_code != 0 and "at least 8 characters" in weak.output
    out = run(ini, "clients", "create", "--client-id", "irida-uploader", "--lenient",
              "--scope", "read", "--scope", "write").output
    secret = re.search(r"client_secret: (\w+)", out).group(1)
    assert len(secret) == 42
    dup = run(ini, "clients", "create", "--client-id", "irida-uploader", ok=False)
    assert "already exists" in dup.output
    spaced = run(ini, "clients", "create", "--client-id", "has space", ok=False)
    assert "cannot contain spaces" in spaced.output
    listing = run(ini, "clients", "list").output
    assert "irida-uploader\tactive" in listing and "lenient=True" in listing

    app = TestApp(configure({"sqlalchemy.url": f"sqlite:///{tmp_path / 'cli.sqlite'}"})
                  .make_wsgi_app())
    token = app.post("/api/oauth/token", {"grant_type": "password",
                                          "client_id": "irida-uploader",
                                          "client_secret": secret, "username": "uploader",
                                          "password": "Password1!"}).json["access_token"]
    app.get("/api/projects", headers={"Authorization": f"Bearer {token}"})
    run(ini, "clients", "revoke", "irida-uploader")
    app.get("/api/projects", headers={"Authorization": f"Bearer {token}"}, status=401)


def test_bootstrap_only_when_no_admin(ini):
    from seqcore.cli import Env

    run(ini, "db", "upgrade")
    env = Env(str(ini))
    with env.session() as db:
        creds = bootstrap(db, env.settings)
    assert creds["username"] == "admin" and creds["client_secret"]
    with env.session() as db:
        assert bootstrap(db, env.settings) is None


def test_client_credentials_is_not_offered(ini):
    """A token always acts for a person: the client_credentials grant is not offered, so
    a client registered for it cannot exist (it used to end in a 500)."""
    run(ini, "db", "upgrade")
    result = run(ini, "clients", "create", "--client-id", "robot", "--grant-type",
                 "client_credentials", ok=False)
    assert result.exit_code != 0 and "client_credentials" in result.output
    assert "robot" not in run(ini, "clients", "list").output
