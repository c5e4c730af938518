"""The bot accounts pages of a project and a group: maintainers and owners make a bot (its
first token shown once), add and revoke tokens and delete it; members are refused, bad input
changes nothing, and the page speaks French too."""

import base64

import pytest
from sqlalchemy import select

from seqcore.models.bot import NamespaceBot
from seqcore.models.group import AccessLevel
from seqcore.models.project import ProjectRole
from seqcore.models.user import User
from tests.dbstate import snapshot


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


def who(testapp, email, secret, status=200):
    raw = base64.b64encode(f"{email}:{secret}".encode()).decode()
    answer = testapp.post_json("/api/graphql", {"query": "{ currentUser { email } }"},
                               headers={"Authorization": f"Basic {raw}"}, status=status)
    return None if status == 401 else answer.json["data"]["currentUser"]["email"]


@pytest.fixture
def lab(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    maint = factories.user(username="maint")
    project = factories.project(owner=owner, name="Bot project",
                                members=[(member, ProjectRole.USER)])
    group = factories.group(owner, name="Bot group", members=[(maint, AccessLevel.MAINTAINER),
                                                              (member, AccessLevel.GUEST)])
    return {"owner": owner, "member": member, "maint": maint, "project": project,
            "group": group}


def _form(page, ending):
    """The page's form whose action ends with ``ending``."""
    return next(form for key, form in page.forms.items()
                if isinstance(key, int) and form.action.endswith(ending))


def _make(testapp, url, level="20", name="sequencer", scopes=("api",), status=201):
    page = testapp.get(url)
    form = _form(page, "/bots")
    form["access_level"] = level
    form["token_name"] = name
    for box in form.fields.get("scopes", []):
        box.checked = box._value in scopes
    return form.submit(status=status)


@pytest.mark.parametrize("kind", ["project", "group"])
def test_a_bot_is_made_its_token_shown_once_and_deleted(testapp, lab, db, kind):
    if kind == "project":
        sign_in(testapp, lab["owner"])
        manage = testapp.get(f"/-/projects/{lab['project'].id}/manage")
        url = manage.html.find("a", string="Bot accounts")["href"]
    else:
        sign_in(testapp, lab["maint"])
        group_page = testapp.get(f"/-/groups/{lab['group'].id}")
        url = group_page.html.find("a", string="Bot accounts of this group")["href"]
    made = _make(testapp, url)
    secret = made.html.find("input", {"id": "new-token"})["value"]
    email = made.html.find("section", class_="card").find("code").text
    assert secret.startswith("sqc_") and email.endswith("@bots.seqcore.invalid")
    assert who(testapp, email, secret) == email
    listing = testapp.get(url)
    assert secret not in listing.text and email in listing.text
    if kind == "group":  # a member of its group, marked as a bot
        members = testapp.get(f"/-/groups/{lab['group'].id}").html.find(id="members")
        assert members.find_parent("section").find("span", class_="badge", string="bot")
    # Another token, then revoke the first.
    form = _form(listing, "/tokens")
    form["name"] = "second"
    form.fields["scopes"][0].checked = True
    second = form.submit(status=201).html.find("input", {"id": "new-token"})["value"]
    assert who(testapp, email, second) == email
    revoke = _form(testapp.get(url), "/revoke")
    revoke.submit(status=303)
    assert "Revoked" in testapp.get(url).text
    # Deleting the bot ends every token at once.
    delete = _form(testapp.get(url), "/delete")
    delete.submit(status=303)
    assert "None." in testapp.get(url).text
    who(testapp, email, second, status=401)


def test_members_are_refused_and_change_nothing(testapp, lab, db):
    sign_in(testapp, lab["member"])
    before = snapshot(db)
    testapp.get(f"/-/projects/{lab['project'].id}/manage/bots", status=403)
    testapp.get(f"/-/groups/{lab['group'].id}/bots", status=403)
    page = testapp.get(f"/-/projects/{lab['project'].id}/manage")
    assert not page.html.find("a", string="Bot accounts")
    csrf = page.html.find("input", {"name": "csrf_token"})
    token = csrf["value"] if csrf else ""
    testapp.post(f"/-/projects/{lab['project'].id}/manage/bots",
                 {"csrf_token": token, "access_level": "20", "token_name": "x",
                  "scopes": "api"}, status=403)
    assert snapshot(db) == before


def test_bad_input_is_shown_and_writes_nothing(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    url = f"/-/projects/{lab['project'].id}/manage/bots"
    before = snapshot(db)
    page = _make(testapp, url, name="  ", scopes=(), status=400)
    alert = page.html.find("div", role="alert").text
    assert "Give the token a name." in alert and "Choose at least one scope." in alert
    csrf = testapp.get(url).html.find("input", {"name": "csrf_token"})["value"]
    testapp.post(url, {"csrf_token": csrf, "access_level": "99", "token_name": "x",
                       "scopes": "api"}, status=400)
    assert snapshot(db) == before
    assert db.scalars(select(NamespaceBot)).all() == []


def test_a_maintainer_makes_no_owner_bot(testapp, lab, db):
    sign_in(testapp, lab["maint"])
    before = snapshot(db)
    _make(testapp, f"/-/groups/{lab['group'].id}/bots", level="50", status=403)
    assert snapshot(db) == before


def test_the_page_speaks_french(testapp, lab, db):
    owner = db.get(User, lab["owner"].id)
    owner.locale = "fr"
    db.commit()
    sign_in(testapp, lab["owner"])
    page = testapp.get(f"/-/projects/{lab['project'].id}/manage/bots")
    assert "Comptes robots" in page.text
