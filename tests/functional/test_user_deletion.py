"""``DELETE /api/users/{id}`` (administrators; refused while the account owns data) and
``GET /api/users/{username}/projects`` in the contract's ``resource`` envelope and IRIDA's
``projectResources``."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from seqcore.models.access_token import PersonalAccessToken, WebSession
from seqcore.models.oauth import OAuthToken
from seqcore.models.project import ProjectMember
from seqcore.models.user import SystemRole, User
from seqcore.security.credentials import start_web_session


@pytest.fixture
def admin(factories):
    return factories.user(role=SystemRole.ADMIN, username="admin")


def count(db, model, user_id) -> int:
    return db.scalar(select(func.count()).select_from(model).where(model.user_id == user_id))


def test_admin_deletes_an_account_that_owns_nothing(testapp, factories, db, admin):
    bob = factories.user(username="bob")
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, members=[(bob, "PROJECT_USER")])
    bob_headers = factories.headers(bob)
    personal = factories.access_token(bob)
    start_web_session(db, bob.id)  # as signing in to the web pages does
    db.commit()
    testapp.get("/api/users/current", headers=bob_headers)  # the token works
    assert [count(db, model, bob.id) for model in (OAuthToken, PersonalAccessToken,
                                                   WebSession)] == [1, 1, 1]

    res = testapp.delete(f"/api/users/{bob.id}", headers=factories.headers(admin))
    assert res.json == {"resource": {"links": [
        {"rel": "collection", "href": "http://localhost/api/users"}]}}

    db.expire_all()
    assert db.get(User, bob.id) is None
    for model in (OAuthToken, PersonalAccessToken, WebSession, ProjectMember):
        assert count(db, model, bob.id) == 0
    # Every credential of the account is gone: its bearer token and personal token fail.
    testapp.get("/api/users/current", headers=bob_headers, status=401)
    testapp.post_json("/api/graphql", {"query": "{ currentUser { id } }"},
                      headers=factories.basic(bob.email, personal), status=401)
    testapp.get(f"/api/users/{bob.id}", headers=factories.headers(admin), status=404)
    members = testapp.get(f"/api/projects/{project.id}/users",
                          headers=factories.headers(owner)).json["resource"]["resources"]
    assert [m["username"] for m in members] == ["owner"]


def test_an_account_that_owns_data_is_refused_naming_it(testapp, factories, db, admin):
    alice = factories.user(username="alice")
    first = factories.project(owner=alice)
    second = factories.project(owner=alice)
    factories.project(owner=admin, members=[(alice, "PROJECT_USER")])  # a member: not owned
    sample = factories.sample(first)
    obj = factories.sequencing_object(sample)
    submission = factories.submission(alice, [obj])
    run = factories.run(alice)
    res = testapp.delete(f"/api/users/{alice.id}", headers=factories.headers(admin),
                         status=409)
    assert res.json == {"message": (
        f"The account {alice.id} owns data and cannot be deleted: owner of project(s) "
        f"{first.id}, {second.id}; submitter of analysis submission(s) {submission.id}; "
        f"creator of sequencing run(s) {run.id}. Disable it instead (PATCH /api/users/"
        f"{alice.id} with {{\"enabled\": false}}): it can then no longer sign in, and what it "
        "made keeps its record of who made it.")}
    db.expire_all()
    assert db.get(User, alice.id) is not None
    assert count(db, ProjectMember, alice.id) == 3
    assert count(db, OAuthToken, alice.id) == 0  # none was issued; nothing else changed
    # The alternative the answer points to works.
    testapp.patch_json(f"/api/users/{alice.id}", {"enabled": False},
                       headers=factories.headers(admin))


def test_owning_only_a_run_or_a_submission_is_enough_to_refuse(testapp, factories, db, admin):
    runner = factories.user(role=SystemRole.SEQUENCER)
    run = factories.run(runner)
    res = testapp.delete(f"/api/users/{runner.id}", headers=factories.headers(admin),
                         status=409)
    assert f": creator of sequencing run(s) {run.id}. Disable" in res.json["message"]
    db.expire_all()
    assert db.get(User, runner.id) is not None


def test_the_last_administrator_cannot_delete_itself(testapp, factories, db, admin):
    res = testapp.delete(f"/api/users/{admin.id}", headers=factories.headers(admin),
                         status=409)
    assert res.json == {"message": (
        f"The account {admin.id} is the last enabled administrator; make another account an "
        "administrator before deleting it.")}
    db.expire_all()
    assert db.get(User, admin.id) is not None
    # With another administrator, an administrator account that owns nothing can go.
    other = factories.user(role=SystemRole.ADMIN)
    testapp.delete(f"/api/users/{admin.id}", headers=factories.headers(other))
    db.expire_all()
    assert db.get(User, admin.id) is None


def test_only_administrators_delete_accounts(testapp, factories, db, admin):
    bob = factories.user(username="bob")
    # Accounts that may read bob are forbidden; a sequencer account may not even read him.
    for caller, status in ((bob, 403), (factories.user(), 403),
                           (factories.user(role=SystemRole.MANAGER), 403),
                           (factories.user(role=SystemRole.SEQUENCER), 404)):
        testapp.delete(f"/api/users/{bob.id}", headers=factories.headers(caller),
                       status=status)
    db.expire_all()
    assert db.get(User, bob.id) is not None
    testapp.delete("/api/users/999999", headers=factories.headers(admin), status=404)


def test_user_projects_in_irida_envelope(testapp, factories, admin):
    alice = factories.user(username="alice")
    mine = factories.project(owner=alice, name="Alice project")
    factories.project(owner=admin, name="Admin project")
    res = testapp.get("/api/users/alice/projects", headers=factories.headers(alice))
    # Both the contract's envelope and IRIDA's key, with the same content.
    assert sorted(res.json) == ["projectResources", "resource"]
    body = res.json["projectResources"]
    assert res.json["resource"] == body
    assert list(body) == ["resources", "links"]
    assert [p["identifier"] for p in body["resources"]] == [str(mine.id)]
    # Every link is kept: the list's own, and each project's as everywhere else.
    assert body["links"] == [
        {"rel": "self", "href": f"http://localhost/api/users/{alice.id}/projects"}]
    project = testapp.get(f"/api/projects/{mine.id}",
                          headers=factories.headers(alice)).json["resource"]
    assert body["resources"] == [project]
