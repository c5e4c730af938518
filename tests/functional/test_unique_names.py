"""Usernames and e-mail addresses are unique regardless of letter case, on every database:
through the API, the ``seqcore`` command, the database's own indexes, and migration c0007
(which refuses, changing nothing, when existing accounts differ only in case)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
import transaction
from click.testing import CliRunner
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from seqcore.cli import main
from seqcore.db import get_engine, session_for
from seqcore.db.migrations import upgrade
from seqcore.framework.plugins import build_plugin_manager
from seqcore.models.user import User
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing import database

BODY = {"password": "Password1!", "firstName": "Test", "lastName": "Person",
        "phoneNumber": "5550100"}


@pytest.fixture
def admin_headers(factories):
    return factories.headers(factories.user("ROLE_ADMIN"))


@pytest.mark.parametrize(("taken", "again"), [
    ("alice", "ALICE"), ("Émile", "émile"), ("straße", "STRASSE"),
    ("\uff42\uff4f\uff42", "Bob"),  # full-width letters
])
def test_a_username_in_another_case_is_409(testapp, factories, admin_headers, db, taken,
                                           again):
    factories.user(username=taken)
    res = testapp.post_json("/api/users", {**BODY, "username": again,
                                           "email": "other@example.org"},
                            headers=admin_headers, status=409)
    assert res.json == {"message": "An entity already exists with that identifier: Could "
                                   "not create user as a duplicate field exists: username"}
    assert db.scalar(sa.select(sa.func.count()).select_from(User)
                     .where(User.email == "other@example.org")) == 0


def test_an_email_in_another_case_is_409(testapp, factories, admin_headers):
    factories.user(username="carol", email="Carol@Example.org")
    res = testapp.post_json("/api/users", {**BODY, "username": "carol2",
                                           "email": "carol@example.ORG"},
                            headers=admin_headers, status=409)
    assert res.json["message"].endswith("duplicate field exists: email")


def test_renaming_into_another_accounts_name_in_any_case_is_409(testapp, factories):
    factories.user(username="dora")
    eve = factories.user(username="eve")
    headers = factories.headers(eve)
    testapp.patch_json(f"/api/users/{eve.id}", {"username": "DORA"}, headers=headers,
                       status=409)
    # Changing the case of one's own name is no conflict.
    testapp.patch_json(f"/api/users/{eve.id}", {"username": "Eve"}, headers=headers)
    assert testapp.get(f"/api/users/{eve.id}", headers=headers).json["resource"][
        "username"] == "Eve"


def test_the_database_itself_refuses_a_case_duplicate(factories, app_config):
    """The indexes hold whatever code writes the row (the check in the API can be raced)."""
    factories.user(username="frank", email="frank@example.org")
    manager = transaction.TransactionManager(explicit=True)
    with pytest.raises(IntegrityError), manager:
        db = session_for(registry_service(app_config.registry, ISessionFactory), manager)
        db.add(User(username="FRANK", email="frank.other@example.org", password_hash="x",
                    first_name="Fr", last_name="Ank"))
        db.flush()


def test_the_command_refuses_a_case_duplicate(tmp_path):
    ini = tmp_path / "test.ini"
    ini.write_text("[app:main]\nuse = egg:seqcore-server\n"
                   f"sqlalchemy.url = sqlite:///{tmp_path / 'cli.sqlite'}\n"
                   "seqcore.password_hash.time_cost = 1\n"
                   "seqcore.password_hash.memory_cost = 64\n")

    def create(username: str, email: str) -> object:
        return CliRunner().invoke(main, [
            "-c", str(ini), "users", "create", "--username", username, "--email", email,
            "--password", "Password1!", "--first-name", "Gr", "--last-name", "Ace"])

    assert CliRunner().invoke(main, ["-c", str(ini), "db", "upgrade"]).exit_code == 0
    assert create("grace", "grace@example.org").exit_code == 0
    refused = create("Grace", "grace2@example.org")
    assert refused.exit_code != 0
    assert "a user with that username (in any letter case) already exists" in refused.output


@pytest.fixture
def fresh_database(tmp_path):
    """A database of its own (SQLite file, or a PostgreSQL database) at revision c0005."""
    url = database.test_database_url(tmp_path, "c0007")
    settings = {"sqlalchemy.url": url}
    pm = build_plugin_manager(settings, plugins=[])
    engine = get_engine(url)
    upgrade(settings, pm, engine=engine, target="c0005")
    yield settings, pm, engine
    engine.dispose()


def _add_users(engine, *names: tuple[str, str]) -> None:
    table = sa.table("user", *(sa.column(c) for c in (
        "username", "email", "password_hash", "first_name", "last_name", "enabled",
        "system_role", "user_type", "locale", "created")))
    with engine.begin() as conn:
        for username, email in names:
            conn.execute(table.insert().values(
                username=username, email=email, password_hash="x", first_name="Te",
                last_name="St", enabled=True, system_role="ROLE_USER", user_type="TYPE_LOCAL",
                locale="en", created=sa.func.now()))


def test_migration_refuses_existing_case_duplicates_and_changes_nothing(fresh_database):
    settings, pm, engine = fresh_database
    _add_users(engine, ("hank", "hank@example.org"), ("Hank", "hank2@example.org"),
               ("ivy", "Ivy@Example.org"), ("ivy2", "ivy@example.org"))
    with pytest.raises(RuntimeError) as refused:
        upgrade(settings, pm, engine=engine)
    message = str(refused.value)
    assert "username: 'hank' (user id 1), 'Hank' (user id 2)" in message
    assert "email: 'Ivy@Example.org' (user id 3), 'ivy@example.org' (user id 4)" in message
    columns = {c["name"] for c in sa.inspect(engine).get_columns("user")}
    assert "username_key" not in columns
    # Once one of each is renamed, the upgrade goes through and keys every account.
    with engine.begin() as conn:
        conn.execute(sa.text('UPDATE "user" SET username = \'hank-2\' WHERE id = 2'))
        conn.execute(sa.text('UPDATE "user" SET email = \'ivy2@example.org\' WHERE id = 4'))
    upgrade(settings, pm, engine=engine)
    with engine.begin() as conn:
        assert conn.scalar(sa.text('SELECT count(*) FROM "user" WHERE username_key IS NULL '
                                   "OR email_key IS NULL OR username_key = ''")) == 0
    with pytest.raises(IntegrityError), Session(engine) as db:
        db.add(User(username="HANK", email="hank3@example.org", password_hash="x",
                    first_name="Ha", last_name="Nk"))
        db.flush()
