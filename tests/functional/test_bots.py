"""``/api/projects/{id}/bots`` and ``/api/groups/{id}/bots``: maintainers make, list and delete
bot accounts and their tokens; everyone else is refused; bad input writes nothing; a bot's
token works at its level over GraphQL and stops the moment the bot or the token goes."""

import pytest
from sqlalchemy import select

from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.bot import NamespaceBot
from seqcore.models.group import AccessLevel, GroupMember
from seqcore.models.project import ProjectRole
from seqcore.models.user import User
from seqcore.testing.factories import DEFAULT_PASSWORD
from tests.dbstate import snapshot

PROJECT_QUERY = """query($path: ID!) { project(fullPath: $path) { name } }"""
CREATE_SAMPLE = """mutation($input: CreateSampleInput!) { createSample(input: $input) {
  sample { name } errors { message } } }"""


@pytest.fixture
def lab(factories):
    """An owner, a group maintainer, a project member (analyst) and an outsider; a project
    in the owner's namespace and a group holding a project."""
    users = {name: factories.user(username=name)
             for name in ("owner", "maint", "member", "outsider")}
    project = factories.project(owner=users["owner"], name="Bot survey",
                                members=[(users["member"], ProjectRole.USER)])
    group = factories.group(users["owner"], name="Bot lab",
                            members=[(users["maint"], AccessLevel.MAINTAINER),
                                     (users["member"], AccessLevel.GUEST)])
    grouped = factories.project(owner=users["owner"], name="Grouped", group=group)
    return {"users": users, "project": project, "group": group, "grouped": grouped}


def _bot_body(**overrides):
    return {"accessLevel": "UPLOADER", "tokenName": "sequencer", "scopes": ["api"],
            **overrides}


def _basic(factories, email, secret):
    return factories.basic(email, secret)


def test_an_owner_makes_lists_and_deletes_a_project_bot(testapp, factories, lab, db, graphql):
    owner = factories.headers(lab["users"]["owner"])
    url = f"/api/projects/{lab['project'].id}/bots"
    made = testapp.post_json(url, _bot_body(expiresAt=None), headers=owner,
                             status=201).json["resource"]
    assert made["userType"] == "project_bot"
    assert (made["accessLevel"], made["accessLevelValue"]) == ("UPLOADER", 20)
    assert made["userId"] == f"{lab['project'].puid.lower()}_bot_001"
    token = made["personalAccessToken"]
    assert token["token"].startswith("sqc_") and token["scopes"] == ["api"]
    assert token["state"] == "active"
    listed = testapp.get(url, headers=owner).json["resource"]["resources"]
    assert [b["identifier"] for b in listed] == [made["identifier"]]
    assert "token" not in testapp.get(f"{url}/{made['identifier']}/tokens",
                                      headers=owner).json["resource"]["resources"][0]
    # The token works over GraphQL at the bot's level: it reads the project.
    headers = _basic(factories, made["email"], token["token"])
    body = graphql(PROJECT_QUERY, {"path": lab["project"].full_path}, headers=headers)
    assert body["data"]["project"]["name"] == "Bot survey"
    # Deleted: the next request with its token is refused.
    testapp.delete(f"{url}/{made['identifier']}", headers=owner, status=200)
    assert testapp.get(url, headers=owner).json["resource"]["resources"] == []
    graphql(PROJECT_QUERY, {"path": lab["project"].full_path}, headers=headers, status=401)
    testapp.get(f"{url}/{made['identifier']}", headers=owner, status=404)
    user = db.scalar(select(User).where(User.username == made["userId"]))
    assert user.enabled is False


def test_names_are_never_reused_after_a_delete(testapp, factories, lab):
    owner = factories.headers(lab["users"]["owner"])
    url = f"/api/projects/{lab['project'].id}/bots"
    first = testapp.post_json(url, _bot_body(), headers=owner).json["resource"]
    testapp.delete(f"{url}/{first['identifier']}", headers=owner)
    second = testapp.post_json(url, _bot_body(), headers=owner).json["resource"]
    assert second["userId"].endswith("_bot_002")


def test_a_bot_token_can_be_added_and_revoked(testapp, factories, lab, graphql):
    owner = factories.headers(lab["users"]["owner"])
    bots = f"/api/projects/{lab['project'].id}/bots"
    bot = testapp.post_json(bots, _bot_body(accessLevel="ANALYST"),
                            headers=owner).json["resource"]
    tokens = f"{bots}/{bot['identifier']}/tokens"
    second = testapp.post_json(tokens, {"name": "reader", "scopes": ["read_api"],
                                        "expiresAt": "2999-01-01"},
                               headers=owner, status=201).json["resource"]
    assert second["scopes"] == ["read_api"] and second["expiresAt"] is not None
    headers = _basic(factories, bot["email"], second["token"])
    graphql(PROJECT_QUERY, {"path": lab["project"].full_path}, headers=headers)
    revoked = testapp.delete(f"{tokens}/{second['identifier']}", headers=owner,
                             status=200).json["resource"]
    assert revoked["state"] == "revoked"
    graphql(PROJECT_QUERY, {"path": lab["project"].full_path}, headers=headers, status=401)
    # The first token still works.
    first = _basic(factories, bot["email"], bot["personalAccessToken"]["token"])
    graphql(PROJECT_QUERY, {"path": lab["project"].full_path}, headers=first)
    states = {t["name"]: t["state"] for t in
              testapp.get(tokens, headers=owner).json["resource"]["resources"]}
    assert states == {"sequencer": "active", "reader": "revoked"}


@pytest.mark.parametrize("who", ["member", "outsider"])
def test_others_may_not_manage_project_bots(testapp, factories, lab, db, who):
    owner = factories.headers(lab["users"]["owner"])
    url = f"/api/projects/{lab['project'].id}/bots"
    bot = testapp.post_json(url, _bot_body(), headers=owner).json["resource"]
    headers = factories.headers(lab["users"][who])
    status = 403 if who == "member" else 404
    before = snapshot(db)
    testapp.get(url, headers=headers, status=status)
    testapp.post_json(url, _bot_body(), headers=headers, status=status)
    testapp.delete(f"{url}/{bot['identifier']}", headers=headers, status=status)
    testapp.post_json(f"{url}/{bot['identifier']}/tokens", {"name": "x", "scopes": ["api"]},
                      headers=headers, status=status)
    assert snapshot(db) == before


@pytest.mark.parametrize(("body", "field"), [
    (_bot_body(accessLevel="ROOT"), "accessLevel"),
    (_bot_body(accessLevel=0), "accessLevel"),
    (_bot_body(tokenName="  "), "tokenName"),
    (_bot_body(tokenName=7), "tokenName"),
    (_bot_body(scopes=[]), "scopes"),
    (_bot_body(scopes=["write"]), "scopes"),
    (_bot_body(scopes="api"), "scopes"),
    (_bot_body(expiresAt="2001-01-01"), "expiresAt"),
    (_bot_body(expiresAt="soon"), "expiresAt"),
    ({"tokenName": "x", "scopes": ["api"]}, "accessLevel"),
    ({"accessLevel": "GUEST", "scopes": ["api"]}, "tokenName"),
    ({**_bot_body(), "colour": "red"}, "colour"),
])
def test_bad_input_is_refused_and_writes_nothing(testapp, factories, lab, db, body, field):
    owner = factories.headers(lab["users"]["owner"])
    before = snapshot(db)
    res = testapp.post_json(f"/api/projects/{lab['project'].id}/bots", body, headers=owner,
                            status=400)
    assert field in res.text
    assert snapshot(db) == before


def test_a_body_that_is_not_an_object_is_refused(testapp, factories, lab, db):
    owner = factories.headers(lab["users"]["owner"])
    before = snapshot(db)
    testapp.post(f"/api/projects/{lab['project'].id}/bots", "[1, 2",
                 headers={**owner, "Content-Type": "application/json"}, status=400)
    testapp.post_json(f"/api/projects/{lab['project'].id}/bots", [1], headers=owner,
                      status=400)
    assert snapshot(db) == before


def test_a_maintainer_makes_no_bot_above_its_own_level(testapp, factories, lab, db):
    maint = factories.headers(lab["users"]["maint"])
    url = f"/api/groups/{lab['group'].id}/bots"
    before = snapshot(db)
    testapp.post_json(url, _bot_body(accessLevel="OWNER"), headers=maint, status=403)
    assert snapshot(db) == before
    made = testapp.post_json(url, _bot_body(accessLevel="MAINTAINER"), headers=maint,
                             status=201).json["resource"]
    assert made["userType"] == "group_bot"


def test_a_group_bot_is_a_member_and_reaches_the_projects_below(testapp, factories, lab, db,
                                                                 graphql):
    owner = factories.headers(lab["users"]["owner"])
    made = testapp.post_json(f"/api/groups/{lab['group'].id}/bots",
                             _bot_body(accessLevel="GUEST"), headers=owner).json["resource"]
    bot_user = db.scalar(select(User).where(User.username == made["userId"]))
    member = db.scalar(select(GroupMember).where(
        GroupMember.user_id == bot_user.id))
    assert (member.group_id, member.access_level) == (lab["group"].id, 10)
    headers = _basic(factories, made["email"], made["personalAccessToken"]["token"])
    body = graphql(PROJECT_QUERY, {"path": lab["grouped"].full_path}, headers=headers)
    assert body["data"]["project"]["name"] == "Grouped"
    # A guest creates no sample.
    body = graphql(CREATE_SAMPLE, {"input": {"projectId": f"gid://seqcore/Project/"
                                             f"{lab['grouped'].id}", "name": "by-guest-bot"}},
                   headers=headers)
    assert body["data"]["createSample"]["sample"] is None
    testapp.delete(f"/api/groups/{lab['group'].id}/bots/{made['identifier']}", headers=owner)
    assert db.scalar(select(GroupMember).where(
        GroupMember.user_id == bot_user.id)) is None
    graphql(PROJECT_QUERY, {"path": lab["grouped"].full_path}, headers=headers, status=401)


def test_a_bot_signs_in_nowhere(testapp, factories, lab, db):
    """Even given a password (an administrator's mistake), a bot's account does not sign in
    on the sign-in page: only its tokens authenticate it."""
    owner = factories.headers(lab["users"]["owner"])
    made = testapp.post_json(f"/api/projects/{lab['project'].id}/bots", _bot_body(),
                             headers=owner).json["resource"]
    human = db.get(User, lab["users"]["owner"].id)
    bot = db.scalar(select(User).where(User.username == made["userId"]))
    bot.password_hash = human.password_hash
    db.commit()
    page = testapp.get("/users/sign_in")
    page.form["username"] = made["userId"]
    page.form["password"] = DEFAULT_PASSWORD
    answer = page.form.submit(expect_errors=True)
    assert answer.status_int != 303
    page = testapp.get("/users/sign_in")
    page.form["username"] = "owner"
    page.form["password"] = DEFAULT_PASSWORD
    page.form.submit(status=303)
    # Nor through OAuth's password grant (REST).
    factories.client(client_id="bot-door", secret="s3cret")
    form = {"grant_type": "password", "client_id": "bot-door", "client_secret": "s3cret",
            "password": DEFAULT_PASSWORD}
    testapp.post("/api/oauth/token", {**form, "username": made["userId"]}, status=400)
    testapp.post("/api/oauth/token", {**form, "username": "outsider"}, status=200)


def test_a_bot_is_never_the_owner_a_group_keeps(testapp, factories, lab, db):
    """An owner-level group bot does not let the last person who owns the group leave."""
    owner_user = lab["users"]["owner"]
    owner = factories.headers(owner_user)
    top = lab["group"]
    testapp.post_json(f"/api/groups/{top.id}/bots", _bot_body(accessLevel="OWNER"),
                      headers=owner, status=201)
    testapp.delete(f"/api/groups/{top.id}/members/owner", headers=owner, status=400)


def test_unknown_bots_and_tokens_are_not_found(testapp, factories, lab, db):
    owner = factories.headers(lab["users"]["owner"])
    url = f"/api/projects/{lab['project'].id}/bots"
    testapp.get(f"{url}/999", headers=owner, status=404)
    made = testapp.post_json(url, _bot_body(), headers=owner).json["resource"]
    testapp.delete(f"{url}/{made['identifier']}/tokens/999", headers=owner, status=404)
    # A bot of another namespace is not found under this one.
    testapp.get(f"/api/groups/{lab['group'].id}/bots/{made['identifier']}", headers=owner,
                status=404)
    assert db.scalar(select(PersonalAccessToken).where(
        PersonalAccessToken.user_id == lab["users"]["owner"].id)) is None
    assert len(db.scalars(select(NamespaceBot)).all()) == 1


def test_deleting_a_project_ends_its_bots(testapp, factories, lab, db, graphql):
    owner = factories.headers(lab["users"]["owner"])
    made = testapp.post_json(f"/api/projects/{lab['project'].id}/bots", _bot_body(),
                             headers=owner).json["resource"]
    headers = _basic(factories, made["email"], made["personalAccessToken"]["token"])
    graphql("{ currentUser { email } }", headers=headers)
    testapp.delete(f"/api/projects/{lab['project'].id}", headers=owner, status=200)
    graphql("{ currentUser { email } }", headers=headers, status=401)
    assert db.scalars(select(NamespaceBot)).all() == []
    assert db.scalar(select(User).where(User.username == made["userId"])).enabled is False


def test_a_maintainer_neither_deletes_nor_mints_for_a_bot_above_it(testapp, factories, lab,
                                                                     db):
    owner = factories.headers(lab["users"]["owner"])
    url = f"/api/groups/{lab['group'].id}/bots"
    made = testapp.post_json(url, _bot_body(accessLevel="OWNER"), headers=owner,
                             status=201).json["resource"]
    maint = factories.headers(lab["users"]["maint"])
    before = snapshot(db)
    refused = testapp.delete(f"{url}/{made['identifier']}", headers=maint, status=403)
    assert "delete a bot account with access level Owner" in refused.text
    testapp.post_json(f"{url}/{made['identifier']}/tokens",
                      {"name": "mine", "scopes": ["api"]}, headers=maint, status=403)
    assert snapshot(db) == before
    # It may still list them, and take a token back.
    assert len(testapp.get(url, headers=maint).json["resource"]["resources"]) == 1
    token_id = made["personalAccessToken"]["identifier"]
    testapp.delete(f"{url}/{made['identifier']}/tokens/{token_id}", headers=maint,
                   status=200)
