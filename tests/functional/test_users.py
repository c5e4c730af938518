"""``/api/users``: listing, creating, reading and updating accounts."""

import pytest

from seqcore.models.user import SystemRole, User

VALID = {"username": "newuser", "email": "new.user@example.org", "password": "Password1!",
         "firstName": "New", "lastName": "User", "phoneNumber": "5550123"}


@pytest.fixture
def admin(factories):
    return factories.user(role=SystemRole.ADMIN, username="root")


def test_create_user_as_admin(testapp, factories, admin):
    headers = factories.headers(admin)
    res = testapp.post_json("/api/users", {**VALID, "systemRole": "ROLE_SEQUENCER"},
                            headers=headers, status=201)
    body = res.json["resource"]
    assert res.headers["Location"] == f"http://localhost/api/users/{body['identifier']}"
    assert body["username"] == "newuser"
    assert body["systemRole"] == "ROLE_SEQUENCER"
    assert body["label"] == "New User"
    assert body["enabled"] is True
    assert "password" not in body
    assert testapp.get(res.headers["Location"], headers=headers).json["resource"] == body


def test_manager_creates_only_plain_users(testapp, factories):
    manager = factories.headers(factories.user(role=SystemRole.MANAGER))
    testapp.post_json("/api/users", VALID, headers=manager, status=201)
    res = testapp.post_json("/api/users", {**VALID, "username": "other",
                                           "email": "o@example.org",
                                           "systemRole": "ROLE_ADMIN"},
                            headers=manager, status=403)
    assert "ROLE_USER" in res.json["message"]


@pytest.mark.parametrize("role", [SystemRole.USER, SystemRole.SEQUENCER,
                                  SystemRole.TECHNICIAN])
def test_others_cannot_create_users(testapp, factories, role, db):
    headers = factories.headers(factories.user(role=role))
    testapp.post_json("/api/users", VALID, headers=headers, status=403)
    assert db.query(User).filter_by(username="newuser").count() == 0


@pytest.mark.parametrize(("field", "value", "message"), [
    ("username", None, "You must provide a username."),
    ("username", "ab", "Username must be at least 3 characters long."),
    ("email", None, "You must provide an e-mail address."),
    ("email", "a@b", "E-mail must be at least 5 characters long."),
    ("email", "not-an-address", "You must provide a valid e-mail address."),
    ("firstName", None, "You must provide a first name."),
    ("firstName", "A", "First name must be at least 2 characters long."),
    ("lastName", None, "You must provide a last name."),
    ("lastName", "B", "Last name must be at least 2 characters long."),
    ("phoneNumber", "123", "Phone number must be at least 4 characters long."),
    ("password", None, "You must provide a password."),
    ("password", "Pa1!", "Password must be at least 8 characters long."),
    ("password", "password1!", "Password must contain at least one upper-case letter."),
    ("password", "PASSWORD1!", "Password must contain at least one lower-case letter."),
    ("password", "Password!!", "Password must contain at least one number."),
    ("password", "Password11", "Password must contain a special character."),
    ("systemRole", "ROLE_KING", "You must provide a valid system role"),
])
def test_user_validation(testapp, factories, admin, db, field, value, message):
    body = {**VALID, field: value}
    if value is None:
        del body[field]
    res = testapp.post_json("/api/users", body, headers=factories.headers(admin), status=400)
    assert any(m.startswith(message) for m in res.json[field]), res.json
    assert db.query(User).filter_by(username=VALID["username"]).count() == 0


def test_several_bad_fields_at_once(testapp, factories, admin):
    res = testapp.post_json("/api/users", {**VALID, "username": "x", "firstName": "y",
                                           "email": "bad"},
                            headers=factories.headers(admin), status=400)
    assert set(res.json) == {"username", "firstName", "email"}


@pytest.mark.parametrize("field", ["username", "email"])
def test_duplicates_are_409(testapp, factories, admin, field):
    factories.user(username="taken", email="taken@example.org")
    body = {**VALID, field: "taken" if field == "username" else "taken@example.org"}
    res = testapp.post_json("/api/users", body, headers=factories.headers(admin), status=409)
    assert res.json["message"].endswith(f"duplicate field exists: {field}")


def test_list_and_read_users(testapp, factories):
    alice = factories.user(username="alice")
    headers = factories.headers(alice)
    listed = testapp.get("/api/users", headers=headers).json["resource"]
    assert [u["username"] for u in listed["resources"]] == ["alice"]
    assert listed["resources"][0]["links"][0] == {
        "rel": "self", "href": f"http://localhost/api/users/{alice.id}"}
    by_id = testapp.get(f"/api/users/{alice.id}", headers=headers).json["resource"]
    by_name = testapp.get("/api/users/alice", headers=headers).json["resource"]
    current = testapp.get("/api/users/current", headers=headers).json["resource"]
    assert by_id == by_name == current
    assert {link["rel"] for link in by_id["links"]} == {"self", "user/projects"}


def test_sequencer_cannot_list_users(testapp, factories):
    testapp.get("/api/users", headers=factories.headers(factories.user(
        role=SystemRole.SEQUENCER)), status=403)


def test_unknown_user_404(testapp, factories):
    headers = factories.headers(factories.user())
    testapp.get("/api/users/999", headers=headers, status=404)
    testapp.get("/api/users/nobody", headers=headers, status=404)


def test_update_own_account(testapp, factories):
    alice = factories.user(username="alice")
    headers = factories.headers(alice)
    res = testapp.patch_json(f"/api/users/{alice.id}", {"firstName": "Alicia"},
                             headers=headers)
    assert [link["rel"] for link in res.json["resource"]["links"]] == ["self", "collection"]
    assert testapp.get("/api/users/current", headers=headers).json["resource"][
        "firstName"] == "Alicia"


def test_cannot_raise_own_role_or_edit_others(testapp, factories):
    alice = factories.user(username="alice")
    bob = factories.user(username="bob")
    headers = factories.headers(alice)
    testapp.patch_json(f"/api/users/{alice.id}", {"systemRole": "ROLE_ADMIN"},
                       headers=headers, status=403)
    testapp.patch_json(f"/api/users/{bob.id}", {"firstName": "Robert"}, headers=headers,
                       status=403)


def test_patch_validation_and_duplicates(testapp, factories):
    alice = factories.user(username="alice")
    factories.user(username="bob")
    headers = factories.headers(alice)
    res = testapp.patch_json(f"/api/users/{alice.id}", {"firstName": "A"}, headers=headers,
                             status=400)
    assert res.json == {"firstName": ["First name must be at least 2 characters long."]}
    testapp.patch_json(f"/api/users/{alice.id}", {"username": "bob"}, headers=headers,
                       status=409)
    testapp.patch_json(f"/api/users/{alice.id}", {"password": "weak"}, headers=headers,
                       status=400)


def test_admin_changes_roles(testapp, factories, admin):
    bob = factories.user(username="bob")
    testapp.patch_json(f"/api/users/{bob.id}", {"systemRole": "ROLE_MANAGER"},
                       headers=factories.headers(admin))
    res = testapp.get(f"/api/users/{bob.id}", headers=factories.headers(admin))
    assert res.json["resource"]["systemRole"] == "ROLE_MANAGER"


def test_user_projects(testapp, factories, admin):
    alice = factories.user(username="alice")
    mine = factories.project(owner=alice, name="Alice project")
    factories.project(owner=admin, name="Admin project")
    res = testapp.get("/api/users/alice/projects", headers=factories.headers(alice))
    assert [p["identifier"] for p in res.json["projectResources"]["resources"]] == [
        str(mine.id)]
    # Administrators may look; other users may not (and are not told it exists).
    testapp.get("/api/users/alice/projects", headers=factories.headers(admin))
    testapp.get("/api/users/alice/projects", headers=factories.headers(factories.user()),
                status=404)
