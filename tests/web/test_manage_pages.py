"""The management pages through WebTest, on the real database: sharing a project or a group
with groups, the data exports, the activity feed, and the administrators' accounts and OAuth
clients. Each form does the domain's operation under the API's permission (the database is
checked), a refusal changes nothing, the forms need the CSRF token, and the pages show only
what the API shows the same account."""

import pytest

from seqcore.models.group import AccessLevel, GroupShare
from seqcore.models.project import ProjectRole


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


def form_with(page, action):
    return next(f for f in page.forms.values() if f.action == action)


def token_of(page):
    return page.forms[0]["csrf_token"].value


@pytest.fixture
def world(factories):
    """An owner's project with a member (a reader); a group the owner belongs to and one a
    stranger owns."""
    owner = factories.user(username="owner")
    reader = factories.user(username="reader")
    stranger = factories.user(username="stranger")
    project = factories.project(owner=owner, name="Listeria 2026",
                                members=[(reader, ProjectRole.USER, "LEVEL_1")])
    lab = factories.group(owner, name="Lab", path="lab", members=[(reader, AccessLevel.GUEST)])
    partners = factories.group(owner, name="Partners", path="partners")
    hidden = factories.group(stranger, name="Secret", path="secretgroup")
    return {"owner": owner, "reader": reader, "stranger": stranger, "project": project,
            "lab": lab, "partners": partners, "hidden": hidden}


def test_share_a_project_with_a_group_and_unshare(testapp, db, world):
    project, partners = world["project"], world["partners"]
    sign_in(testapp, world["owner"])
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    assert "Not shared with any group." in manage.text
    # Only groups the owner may read are offered.
    assert "secretgroup" not in manage.text
    form = form_with(manage, f"/-/projects/{project.id}/manage/shares")
    form["group_id"] = str(partners.id)
    form["access_level"] = "30"
    done = form.submit(status=303).follow()
    assert "Shared with partners." in done.text
    share = db.query(GroupShare).filter_by(project_id=project.id).one()
    assert (share.group_id, share.access_level) == (partners.id, 30)
    assert "partners" in done.html.find("section", {"aria-labelledby": "shares"}).text
    # Twice: the domain's conflict (409), nothing added.
    form.submit(status=409)
    # A group the owner may not read is refused as REST refuses it (400), nothing made.
    refused = testapp.post(f"/-/projects/{project.id}/manage/shares",
                           {"csrf_token": token_of(done), "group_id": str(world["hidden"].id),
                            "access_level": "10"}, status=400)
    assert f"There is no group with id {world['hidden'].id}." in refused.text
    testapp.post(f"/-/projects/{project.id}/manage/shares",
                 {"csrf_token": token_of(done), "group_id": str(world["lab"].id),
                  "access_level": "60"}, status=400)
    db.expire_all()
    assert db.query(GroupShare).filter_by(project_id=project.id).count() == 1
    # Without the CSRF token, nothing is done.
    testapp.post(f"/-/projects/{project.id}/manage/shares/{share.id}/remove", {},
                 status=400)
    testapp.post(f"/-/projects/{project.id}/manage/shares/{share.id}/level",
                 {"access_level": "10"}, status=400)
    assert db.query(GroupShare).filter_by(project_id=project.id).count() == 1
    # The share's level changes in place.
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    level = form_with(manage, f"/-/projects/{project.id}/manage/shares/{share.id}/level")
    assert level["access_level"].value == "30"
    level["access_level"] = "40"
    assert "partners changed." in level.submit(status=303).follow().text
    db.expire_all()
    assert db.get(GroupShare, share.id).access_level == 40
    # The reader sees the share but no form, and may not unshare.
    sign_in(testapp, world["reader"])
    seen = testapp.get(f"/-/projects/{project.id}/manage")
    assert "partners" in seen.html.find("section", {"aria-labelledby": "shares"}).text
    assert not seen.html.find("form", action=f"/-/projects/{project.id}/manage/shares")
    testapp.post(f"/-/projects/{project.id}/manage/shares/{share.id}/remove",
                 {"csrf_token": token_of(seen)}, status=403)
    testapp.post(f"/-/projects/{project.id}/manage/shares/{share.id}/level",
                 {"csrf_token": token_of(seen), "access_level": "10"}, status=403)
    db.expire_all()
    assert db.get(GroupShare, share.id).access_level == 40
    assert db.query(GroupShare).filter_by(project_id=project.id).count() == 1
    # The owner unshares.
    sign_in(testapp, world["owner"])
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form_with(manage, f"/-/projects/{project.id}/manage/shares/{share.id}/remove").submit(
        status=303)
    db.expire_all()
    assert db.query(GroupShare).filter_by(project_id=project.id).count() == 0


def test_share_a_group_with_a_group(testapp, db, world, factories):
    lab, partners = world["lab"], world["partners"]
    sign_in(testapp, world["owner"])
    page = testapp.get(f"/-/groups/{lab.id}")
    form = form_with(page, f"/-/groups/{lab.id}/shares")
    # The group itself is not offered.
    assert str(lab.id) not in [value for value, *_ in form["group_id"].options]
    form["group_id"] = str(partners.id)
    form["access_level"] = "10"
    assert "Shared with partners." in form.submit(status=303).follow().text
    share = db.query(GroupShare).filter_by(shared_group_id=lab.id).one()
    assert share.access_level == 10
    # Shared with itself: the domain's words, nothing made.
    refused = testapp.post(f"/-/groups/{lab.id}/shares",
                           {"csrf_token": token_of(page), "group_id": str(lab.id),
                            "access_level": "10"}, status=400)
    assert "A group cannot be shared with itself." in refused.text
    # A guest of the group reads the shares but may not change them.
    sign_in(testapp, world["reader"])
    seen = testapp.get(f"/-/groups/{lab.id}")
    assert "partners" in seen.html.find("section", {"aria-labelledby": "shares"}).text
    testapp.post(f"/-/groups/{lab.id}/shares/{share.id}/remove",
                 {"csrf_token": token_of(seen)}, status=403)
    # Who may not read the group gets 404.
    sign_in(testapp, world["stranger"])
    testapp.post(f"/-/groups/{lab.id}/shares/{share.id}/remove",
                 {"csrf_token": token_of(testapp.get("/-/groups"))}, status=404)
    db.expire_all()
    assert db.query(GroupShare).filter_by(shared_group_id=lab.id).count() == 1
    # A maintainer changes no share above their own level, in the domain's words.
    maint = factories.user(username="maint")
    core = factories.group(world["owner"], name="Core", path="core",
                           members=[(maint, AccessLevel.MAINTAINER)])
    high = factories.share(partners, AccessLevel.OWNER, group=core)
    sign_in(testapp, maint)
    page = testapp.get(f"/-/groups/{core.id}")
    form = form_with(page, f"/-/groups/{core.id}/shares/{high.id}/level")
    form["access_level"] = "10"
    assert "above the access level your own membership gives you" in form.submit(
        status=403).text
    db.expire_all()
    assert db.get(GroupShare, high.id).access_level == 50
    sign_in(testapp, world["owner"])
    page = testapp.get(f"/-/groups/{lab.id}")
    form_with(page, f"/-/groups/{lab.id}/shares/{share.id}/remove").submit(status=303)
    db.expire_all()
    assert db.query(GroupShare).filter_by(shared_group_id=lab.id).count() == 0


# -- data exports -------------------------------------------------------------------------


def build_exports(app_config):
    from seqcore.exports.worker import ExportWorker

    while ExportWorker(app_config.registry, "test-worker").run_once():
        pass


def test_export_selected_samples_then_download_and_delete(testapp, app_config, db, factories,
                                                          world, sql_counter):
    from seqcore.models.export import DataExport

    project, owner = world["project"], world["owner"]
    samples = [factories.sample(project, name=f"L{n}", metadata={"serotype": "4b"})
               for n in range(3)]
    sign_in(testapp, owner)
    table = testapp.get(f"/-/projects/{project.id}")
    bulk = table.forms["samples-bulk"]
    token = bulk["csrf_token"].value
    listed = testapp.post(f"/-/projects/{project.id}/exports",
                          {"csrf_token": token, "selected": [str(s.id) for s in samples[:2]],
                           "export_name": "two samples"}, status=303).follow()
    assert listed.request.path == "/-/exports"
    export = db.query(DataExport).one()
    assert (export.name, export.requester_id, export.state) == ("two samples", owner.id,
                                                                 "QUEUED")
    assert export.selection["samples"] == [samples[0].id, samples[1].id]
    # While it is being prepared the list refreshes itself, and offers no download.
    assert listed.html.find("turbo-frame", id="exports-list").get("data-controller") == \
        "refresh"
    assert not listed.html.find("a", href=f"/-/exports/{export.id}/download")
    testapp.get(f"/-/exports/{export.id}/download", status=409)
    build_exports(app_config)
    listed = testapp.get("/-/exports")
    assert listed.html.find("turbo-frame", id="exports-list").get("data-controller") is None
    assert "Ready" in listed.text
    bundle = testapp.get(f"/-/exports/{export.id}/download", status=200)
    assert bundle.content_type == "application/zip"
    assert bundle.body[:2] == b"PK"
    partial = testapp.get(f"/-/exports/{export.id}/download",
                          headers={"Range": "bytes=0-9"}, status=206)
    assert partial.body == bundle.body[:10]
    # The list's statements do not grow with its rows.
    counts = []
    for _n in range(2):
        with sql_counter:
            testapp.get("/-/exports")
        counts.append(sql_counter.count)
        testapp.post(f"/-/projects/{project.id}/exports",
                     {"csrf_token": token, "selected": [str(samples[2].id)]}, status=303)
    assert counts[0] == counts[1]
    # Nothing selected: refused, nothing made.
    testapp.post(f"/-/projects/{project.id}/exports", {"csrf_token": token}, status=400)
    assert db.query(DataExport).count() == 3
    # Without the CSRF token nothing is deleted; another account does not see it (404).
    testapp.post(f"/-/exports/{export.id}/delete", {}, status=400)
    sign_in(testapp, world["reader"])
    assert "two samples" not in testapp.get("/-/exports").text
    testapp.get(f"/-/exports/{export.id}/download", status=404)
    testapp.post(f"/-/exports/{export.id}/delete",
                 {"csrf_token": token_of(testapp.get("/-/exports"))}, status=404)
    # An outsider may not export the project.
    sign_in(testapp, world["stranger"])
    testapp.post(f"/-/projects/{project.id}/exports",
                 {"csrf_token": token_of(testapp.get("/-/exports")),
                  "selected": [str(samples[0].id)]}, status=404)
    db.expire_all()
    assert db.query(DataExport).count() == 3
    sign_in(testapp, owner)
    listed = testapp.get("/-/exports")
    export_id = export.id
    form_with(listed, f"/-/exports/{export_id}/delete").submit(status=303)
    db.expire_all()
    assert db.get(DataExport, export_id) is None


# -- activity -----------------------------------------------------------------------------


def declare(testapp, project, name, restriction="LEVEL_1"):
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form = form_with(manage, f"/-/projects/{project.id}/manage/fields")
    form["name"] = name
    form["restriction"] = restriction
    form.submit(status=303)


def test_activity_pages_through_the_projects_one_reads(testapp, factories, world,
                                                       monkeypatch, sql_counter):
    from seqcore.web import activity

    project = world["project"]
    hidden = factories.project(owner=world["stranger"], name="Stranger's project")
    sign_in(testapp, world["stranger"])
    declare(testapp, hidden, "secretfield")
    sign_in(testapp, world["owner"])
    for name in ("alpha", "beta", "gamma"):
        declare(testapp, project, name)
    declare(testapp, project, "deltarestricted", "LEVEL_4")
    monkeypatch.setattr(activity, "PER_PAGE", 2)
    sign_in(testapp, world["reader"])
    first = testapp.get("/-/activity")
    assert first.text.count("metadataField") == 2
    assert "Listeria 2026" in first.text and "Stranger" not in first.text
    # The restricted field's declaration (the newest) is listed without its change.
    assert "changes" not in first.html.find("tbody").find("tr").text
    older = testapp.get(first.html.find("a", rel="next")["href"])
    assert older.text.count("metadataField") == 2
    assert "Newest" in older.text
    # Four entries of the project: two pages, the stranger's project in neither.
    assert "secretfield" not in older.text and "Stranger" not in older.text
    assert not older.html.find("a", rel="next")
    # The owner reads the restricted field's declaration.
    sign_in(testapp, world["owner"])
    assert "(1 changes)" in testapp.get("/-/activity").html.find("tbody").find("tr").text
    testapp.get("/-/activity?before=x", status=400)
    # Statements do not grow with the page size.
    counts = []
    for size in (1, 3):
        monkeypatch.setattr(activity, "PER_PAGE", size)
        with sql_counter:
            testapp.get("/-/activity")
        counts.append(sql_counter.count)
    assert counts[0] == counts[1]
    # Reached from the dashboard and the navigation.
    dashboard = testapp.get("/")
    assert dashboard.html.find("a", href="/-/activity", string="All activity")
    assert dashboard.html.find("nav", {"aria-label": "Main"}).find("a", href="/-/activity")
    assert dashboard.html.find("nav", {"aria-label": "Main"}).find("a", href="/-/exports")


# -- administrators -----------------------------------------------------------------------


@pytest.fixture
def admin(factories):
    from seqcore.models.user import SystemRole

    return factories.user(SystemRole.ADMIN, username="root")


def test_accounts_page_lists_searches_creates_and_changes(testapp, db, admin, world,
                                                         sql_counter):
    from seqcore.models.user import User
    from seqcore.security.passwords import verify_password

    sign_in(testapp, admin)
    page = testapp.get("/-/admin/users")
    assert page.html.find("nav", {"aria-label": "Main"}).find("a", href="/-/admin/users")
    assert "stranger" in page.text and "reader" in page.text
    found = testapp.get("/-/admin/users?q=STRAN")
    assert "stranger" in found.text and "reader" not in found.text
    testapp.get("/-/admin/users?role=ROLE_NOPE", status=400)
    # Create an account; the password rules and the schema's messages as REST's.
    form = form_with(page, "/-/admin/users")
    for name, value in (("username", "newbie"), ("email", "newbie@example.org"),
                        ("firstName", "New"), ("lastName", "Bie"), ("phoneNumber", "5555"),
                        ("password", "weak")):
        form[name] = value
    refused = form.submit(status=400)
    assert "Password must be at least 8 characters long." in refused.text
    assert db.query(User).filter_by(username="newbie").count() == 0
    form = form_with(refused, "/-/admin/users")
    form["password"] = "Str0ng!pass"
    form["systemRole"] = "ROLE_MANAGER"
    form.submit(status=303)
    created = db.query(User).filter_by(username="newbie").one()
    assert (created.system_role, created.enabled, created.email) == (
        "ROLE_MANAGER", True, "newbie@example.org")
    assert verify_password(created.password_hash, "Str0ng!pass")
    # A name taken in another letter case: REST's conflict, nothing made.
    form["username"] = "NEWBIE"
    form["email"] = "other@example.org"
    assert "already exists" in form.submit(status=409).text
    assert db.query(User).filter(User.email == "other@example.org").count() == 0
    # The system role and the status.
    page = testapp.get("/-/admin/users?q=reader")
    role = form_with(page, f"/-/admin/users/{world['reader'].id}/role")
    role["system_role"] = "ROLE_TECHNICIAN"
    role.submit(status=303)
    testapp.post(f"/-/admin/users/{world['reader'].id}/role",
                 {"csrf_token": token_of(page), "system_role": "ROLE_BOT"}, status=400)
    form_with(page, f"/-/admin/users/{world['reader'].id}/enabled").submit(status=303)
    db.expire_all()
    reader = db.get(User, world["reader"].id)
    assert (reader.system_role, reader.enabled) == ("ROLE_TECHNICIAN", False)
    # The disabled account cannot sign in any more.
    testapp.reset()
    signin = testapp.get("/users/sign_in")
    signin.form["username"], signin.form["password"] = "reader", "Password1!"
    signin.form.submit(status=400)
    # Without the CSRF token nothing changes.
    sign_in(testapp, admin)
    testapp.post(f"/-/admin/users/{reader.id}/enabled", {"enabled": "true"}, status=400)
    db.expire_all()
    assert db.get(User, reader.id).enabled is False
    # The list's statements do not grow with its page size.
    counts = []
    for size in (25, 50):
        with sql_counter:
            testapp.get(f"/-/admin/users?per_page={size}")
        counts.append(sql_counter.count)
    assert counts[0] == counts[1]


def test_accounts_and_clients_pages_are_for_administrators(testapp, db, world, factories):
    from seqcore.models.oauth import OAuthClient
    from seqcore.models.user import SystemRole, User

    manager = factories.user(SystemRole.MANAGER, username="boss")
    client = factories.client("kept-client")
    for user in (world["owner"], manager):
        sign_in(testapp, user)
        page = testapp.get("/")
        nav = page.html.find("nav", {"aria-label": "Main"})
        assert not nav.find("a", href="/-/admin/users")
        assert not nav.find("a", href="/-/admin/clients")
        testapp.get("/-/admin/users", status=403)
        testapp.get("/-/admin/clients", status=403)
        token = token_of(page)
        testapp.post(f"/-/admin/users/{world['reader'].id}/role",
                     {"csrf_token": token, "system_role": "ROLE_ADMIN"}, status=403)
        testapp.post(f"/-/admin/users/{world['reader'].id}/enabled",
                     {"csrf_token": token, "enabled": "false"}, status=403)
        testapp.post("/-/admin/clients", {"csrf_token": token, "client_id": "mine",
                                          "grant_types": "password", "scopes": "read",
                                          "token_seconds": "600", "refresh_seconds": "600"},
                     status=403)
        testapp.post(f"/-/admin/clients/{client.id}/delete", {"csrf_token": token},
                     status=403)
    testapp.reset()
    assert "/users/sign_in" in testapp.get("/-/admin/users", status=302).location
    reader = db.get(User, world["reader"].id)
    assert (reader.system_role, reader.enabled) == ("ROLE_USER", True)
    assert [c.client_id for c in db.query(OAuthClient)] == ["kept-client"]


def test_clients_page_creates_shows_the_secret_once_regenerates_and_deletes(testapp, db,
                                                                            admin, factories):
    from seqcore.models.oauth import OAuthClient, OAuthToken, digest

    sign_in(testapp, admin)
    page = testapp.get("/-/admin/clients")
    assert page.html.find("nav", {"aria-label": "Main"}).find("a", href="/-/admin/clients")
    form = form_with(page, "/-/admin/clients")
    form["client_id"] = "has space"
    refused = form.submit(status=400)
    assert "Client details cannot contain spaces." in refused.text
    form = form_with(refused, "/-/admin/clients")
    form["client_id"] = "uploader"
    form.get("grant_types", index=1).checked = True  # authorization_code
    refused = form.submit(status=400)
    assert "The authorization_code grant needs a redirect URI." in refused.text
    form = form_with(refused, "/-/admin/clients")
    form["redirect_uris"] = "https://app.example.org/callback#x"
    assert "without a fragment" in form.submit(status=400).text
    assert db.query(OAuthClient).count() == 0
    form["redirect_uris"] = "https://app.example.org/callback\nhttp://localhost:8080/cb"
    form["token_seconds"] = "600"
    made = form.submit(status=201)
    secret = made.html.find("input", id="client-secret")["value"]
    client = db.query(OAuthClient).one()
    client_id = client.id
    assert client.secret_hash == digest(secret)
    assert client.grant_type_list == ["password", "authorization_code", "refresh_token"]
    assert client.redirect_uri_list == ["https://app.example.org/callback",
                                        "http://localhost:8080/cb"]
    assert client.access_token_seconds == 600
    # The secret is not shown again.
    assert secret not in testapp.get("/-/admin/clients").text
    # A taken client id: the domain's conflict.
    testapp.post("/-/admin/clients", {"csrf_token": token_of(made), "client_id": "uploader",
                                      "grant_types": "password", "scopes": "read",
                                      "token_seconds": "600", "refresh_seconds": "600"},
                 status=409)
    # A new secret replaces the old one.
    page = testapp.get("/-/admin/clients")
    renewed = form_with(page, f"/-/admin/clients/{client.id}/secret").submit(status=200)
    second = renewed.html.find("input", id="client-secret")["value"]
    db.expire_all()
    assert second != secret and db.get(OAuthClient, client.id).secret_hash == digest(second)
    # A token the client was given works until the client is deleted.
    headers = factories.headers(admin, client=db.get(OAuthClient, client_id))
    testapp.get("/api/projects", headers=headers, status=200)
    # Without the CSRF token nothing is deleted.
    testapp.post(f"/-/admin/clients/{client.id}/delete", {}, status=400)
    assert db.query(OAuthClient).count() == 1
    form_with(page, f"/-/admin/clients/{client.id}/delete").submit(status=303)
    db.expire_all()
    assert db.query(OAuthClient).count() == 0
    assert db.query(OAuthToken).count() == 0
    testapp.get("/api/projects", headers=headers, status=401)
    testapp.post(f"/-/admin/clients/{client_id}/delete", {"csrf_token": token_of(page)},
                 status=404)


def test_the_new_pages_speak_french(testapp, db, world, admin):
    from seqcore.models.user import User

    db.get(User, admin.id).locale = "fr"
    db.commit()
    sign_in(testapp, admin)
    assert "Exports de données" in testapp.get("/-/exports").text
    assert "que vous pouvez lire" in testapp.get("/-/activity").text
    assert "Nouveau compte" in testapp.get("/-/admin/users").text
    assert "Nouveau client" in testapp.get("/-/admin/clients").text
    manage = testapp.get(f"/-/projects/{world['project'].id}/manage")
    assert "Partagé avec des groupes" in manage.text
