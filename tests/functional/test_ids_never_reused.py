"""Ids are never reused, on either database: a link a client or another install holds never
comes to name a different object after a delete."""

from __future__ import annotations

from sqlalchemy import inspect, text

from seqcore.db import get_engine
from seqcore.db.identity import single_integer_key
from seqcore.db.migrations import upgrade
from seqcore.framework.plugins import build_plugin_manager
from seqcore.models.user import SystemRole
from seqcore.testing import database as test_databases


def new_user(testapp, headers, name):
    res = testapp.post_json("/api/users", {
        "username": name, "email": f"{name}@example.org", "firstName": "Ada", "lastName": "Byron",
        "phoneNumber": "5550100", "password": "Password1!", "systemRole": "ROLE_USER"},
        headers=headers, status=201)
    return int(res.json["resource"]["identifier"])


def test_a_deleted_accounts_id_never_comes_back(testapp, factories):
    headers = factories.headers(factories.user(role=SystemRole.ADMIN))
    first = new_user(testapp, headers, "first")
    testapp.delete(f"/api/users/{first}", headers=headers)
    second = new_user(testapp, headers, "second")
    assert second > first
    testapp.get(f"/api/users/{first}", headers=headers, status=404)


def test_a_deleted_projects_and_samples_ids_never_come_back(testapp, factories):
    owner = factories.user()
    headers = factories.headers(owner)
    project = testapp.post_json("/api/projects", {"name": "first project"}, headers=headers,
                                status=201).json["resource"]["identifier"]
    sample = testapp.post_json(f"/api/projects/{project}/samples", {"sampleName": "s-1"},
                               headers=headers, status=201).json["resource"]["identifier"]
    testapp.delete(f"/api/projects/{project}/samples/{sample}", headers=headers)
    testapp.delete(f"/api/projects/{project}", headers=headers)
    again = testapp.post_json("/api/projects", {"name": "second project"}, headers=headers,
                              status=201).json["resource"]["identifier"]
    other = testapp.post_json(f"/api/projects/{again}/samples", {"sampleName": "s-2"},
                              headers=headers, status=201).json["resource"]["identifier"]
    assert int(again) > int(project) and int(other) > int(sample)


def add_user(conn, name, namespace_puid=None):
    """An account row by hand (``namespace_puid``: the column migration c0022 adds)."""
    extra = (", namespace_puid", ", :p") if namespace_puid else ("", "")
    conn.execute(text(
        "INSERT INTO \"user\" (username, email, username_key, email_key, password_hash,"
        f" first_name, last_name, enabled, system_role, user_type, locale, created{extra[0]})"
        " VALUES (:u, :e, :u, :e, 'x', 'A', 'B', true, 'ROLE_USER', 'TYPE_LOCAL', 'en',"
        f" '2026-01-01 00:00:00'{extra[1]})"),
        {"u": name, "e": f"{name}@example.org", "p": namespace_puid})


def test_the_migration_keeps_rows_and_every_table_never_reuses(tmp_path):
    """A database made before the rule (core and plugin tables, rows that refer to each
    other) keeps every row through the migration, and afterwards no table of it, the
    plugins' included, gives a deleted id out again."""
    url = test_databases.test_database_url(tmp_path, "ids_never_reused")
    settings = {"sqlalchemy.url": url}
    pm = build_plugin_manager(settings)
    engine = get_engine(url)
    upgrade(settings, pm, engine=engine, target="c0018")
    with engine.begin() as conn:
        for n in (1, 2, 3):
            add_user(conn, f"u{n}")
        conn.execute(text("INSERT INTO project (name, namespace, path, created, puid) VALUES ('p', "
                          "'u2', 'p', '2026-01-01 00:00:00', 'INXT_PRJ_AAAAAAAAAA')"))
        conn.execute(text("INSERT INTO project_member (project_id, user_id, role, metadata_role, "
                          "created) SELECT p.id, u.id, 'PROJECT_OWNER', 'LEVEL_1', "
                          "'2026-01-01 00:00:00' "
                          "FROM project p, \"user\" u WHERE u.username = 'u2'"))
        conn.execute(text("DELETE FROM \"user\" WHERE username = 'u3'"))
    upgrade(settings, pm, engine=engine)
    with engine.begin() as conn:
        assert conn.execute(text("SELECT u.username FROM project_member m JOIN \"user\" u "
                                 "ON u.id = m.user_id")).all() == [("u2",)]
        assert conn.scalar(text("SELECT count(*) FROM \"user\"")) == 2
        if engine.dialect.name == "sqlite":
            assert conn.execute(text("PRAGMA foreign_key_check")).all() == []
            definitions = dict(conn.execute(text(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'")).all())
    tables = inspect(engine).get_table_names()
    assert {"sequencing_object", "fast5_object"} <= set(tables)  # plugin tables too
    from sqlalchemy import MetaData
    reflected = MetaData()
    reflected.reflect(engine)
    keyed = [t for t in reflected.sorted_tables if single_integer_key(t)]
    assert len(keyed) > 20
    if engine.dialect.name == "sqlite":
        missing = [t.name for t in keyed if "AUTOINCREMENT" not in definitions[t.name]]
        assert missing == []
    # The newest row of a table deleted, a new row: its id is new.
    with engine.begin() as conn:
        top = conn.scalar(text("SELECT max(id) FROM \"user\""))
        conn.execute(text("DELETE FROM project_member"))
        conn.execute(text("DELETE FROM \"user\" WHERE id = :i"), {"i": top})
        add_user(conn, "u4", namespace_puid="INXT_USR_AAAAAAAAAA")
        assert conn.scalar(text("SELECT id FROM \"user\" WHERE username = 'u4'")) > top
    engine.dispose()
