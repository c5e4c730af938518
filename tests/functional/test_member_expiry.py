"""Membership expiry (IRIDA Next's ``expires_at`` on members): a member whose expiry lies
ahead has access; from the instant it passes the membership grants nothing, over REST,
GraphQL and the web pages, directly, down the group tree and through shares; an expiry that
is not in the future is refused and changes nothing; the worker removes expired memberships,
and only those."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from seqcore.db import utcnow
from seqcore.models.activity import Activity
from seqcore.models.group import AccessLevel, GroupMember
from seqcore.models.project import ProjectMember, ProjectRole
from seqcore.parsing.timestamps import epoch_ms

PROJECT_QUERY = "query($p: ID!) { project(fullPath: $p) { id } }"
GROUP_QUERY = "query($p: ID!) { group(fullPath: $p) { id } }"
MEMBERS_QUERY = """query($p: ID!) { group(fullPath: $p) {
  members(directOnly: true) { nodes { expiresAt user { email } } } } }"""


def tomorrow() -> str:
    return (utcnow() + timedelta(days=1)).date().isoformat()


def sign_in(testapp, user):
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


def expire(db, model, **where):
    """Move the stored expiry of a membership a minute into the past (as if the time had
    come)."""
    statement = update(model).values(expires_at=utcnow() - timedelta(minutes=1))
    for column, value in where.items():
        statement = statement.where(getattr(model, column) == value)
    assert db.execute(statement).rowcount == 1
    db.commit()


def readable_names(testapp, headers):
    return {p["name"] for p in testapp.get("/api/projects", headers=headers)
            .json["resource"]["resources"]}


@pytest.fixture
def lab(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, name="Listeria 2026")
    sample = factories.sample(project, name="LIS-1")
    return {"owner": owner, "member": member, "project": project, "sample": sample,
            "h": factories.headers(owner)}


def test_a_project_member_reads_until_the_expiry_then_nothing(testapp, graphql, factories,
                                                              db, lab):
    project, member = lab["project"], lab["member"]
    added = testapp.post_json(f"/api/projects/{project.id}/users",
                              {"userId": "member", "expiresAt": tomorrow()}, headers=lab["h"],
                              status=201).json["resource"]["resource"]
    midnight = datetime.fromisoformat(tomorrow()).replace(tzinfo=UTC)
    assert added["expiresAt"] == epoch_ms(midnight)
    stored = db.scalars(select(ProjectMember).where(ProjectMember.user_id == member.id)).one()
    assert stored.expires_at == midnight
    headers = factories.headers(member)
    graphql.as_user(member)
    testapp.get(f"/api/projects/{project.id}", headers=headers, status=200)
    testapp.get(f"/api/samples/{lab['sample'].id}", headers=headers, status=200)
    assert readable_names(testapp, headers) == {"Listeria 2026"}
    assert graphql(PROJECT_QUERY, {"p": project.full_path})["data"]["project"] is not None
    sign_in(testapp, member)
    testapp.get(f"/-/projects/{project.id}", status=200)

    expire(db, ProjectMember, user_id=member.id)

    testapp.reset()
    testapp.get(f"/api/projects/{project.id}", headers=headers, status=404)
    testapp.get(f"/api/samples/{lab['sample'].id}", headers=headers, status=404)
    testapp.post_json(f"/api/projects/{project.id}/exports",
                      {"samples": [lab["sample"].id], "fileKinds": []}, headers=headers,
                      status=404)
    assert readable_names(testapp, headers) == set()
    assert graphql(PROJECT_QUERY, {"p": project.full_path})["data"]["project"] is None
    sign_in(testapp, member)
    testapp.get(f"/-/projects/{project.id}", status=404)
    # The owner still sees the membership, with its expiry, until the worker removes it.
    testapp.reset()
    relationship = testapp.get(f"/api/projects/{project.id}/users/member",
                               headers=lab["h"]).json["resource"]["resource"]
    assert relationship["expiresAt"] < epoch_ms(utcnow())


@pytest.fixture
def tree(testapp, factories, lab):
    """``lab`` > ``lab/outbreaks`` with a project, and ``lab``'s project shared with another
    group ``partners`` whose member is ``member`` (until tomorrow)."""
    owner = lab["owner"]
    top = factories.group(owner, name="Lab", path="lab")
    sub = factories.group(owner, name="Outbreaks", path="outbreaks", parent=top)
    inner = factories.project(owner=owner, name="Outbreak project", group=sub)
    partners = factories.group(owner, name="Partners", path="partners")
    shared = factories.project(owner=owner, name="Shared project")
    factories.share(partners, AccessLevel.GUEST, project=shared)
    for group in (top, partners):
        testapp.post_json(f"/api/groups/{group.id}/members",
                          {"userId": "member", "accessLevel": "GUEST",
                           "expiresAt": tomorrow()}, headers=lab["h"], status=201)
    return {"top": top, "sub": sub, "inner": inner, "partners": partners, "shared": shared}


def test_group_memberships_end_down_the_tree_and_through_shares(testapp, graphql, factories,
                                                                db, lab, tree):
    member = lab["member"]
    headers = factories.headers(member)
    graphql.as_user(member)
    inner, shared, sub = tree["inner"], tree["shared"], tree["sub"]
    for project in (inner, shared):
        testapp.get(f"/api/projects/{project.id}", headers=headers, status=200)
        assert graphql(PROJECT_QUERY, {"p": project.full_path})["data"]["project"]
    testapp.get(f"/api/groups/{sub.id}", headers=headers, status=200)
    assert graphql(GROUP_QUERY, {"p": sub.full_path})["data"]["group"]
    assert readable_names(testapp, headers) == {"Outbreak project", "Shared project"}
    sign_in(testapp, member)
    testapp.get(f"/-/groups/{sub.id}", status=200)
    testapp.get(f"/-/projects/{inner.id}", status=200)

    expire(db, GroupMember, user_id=member.id, group_id=tree["top"].id)

    testapp.reset()
    testapp.get(f"/api/projects/{inner.id}", headers=headers, status=404)
    testapp.get(f"/api/groups/{sub.id}", headers=headers, status=404)
    assert graphql(PROJECT_QUERY, {"p": inner.full_path})["data"]["project"] is None
    assert graphql(GROUP_QUERY, {"p": sub.full_path})["data"]["group"] is None
    # The membership of ``partners`` still runs: the share still reaches its project.
    assert readable_names(testapp, headers) == {"Shared project"}
    sign_in(testapp, member)
    testapp.get(f"/-/groups/{sub.id}", status=404)
    testapp.get(f"/-/projects/{inner.id}", status=404)

    expire(db, GroupMember, user_id=member.id, group_id=tree["partners"].id)

    testapp.reset()
    testapp.get(f"/api/projects/{shared.id}", headers=headers, status=404)
    assert graphql(PROJECT_QUERY, {"p": shared.full_path})["data"]["project"] is None
    assert readable_names(testapp, headers) == set()
    # The owner lists the expired member, with the stored expiry.
    graphql.as_user(lab["owner"])
    nodes = graphql(MEMBERS_QUERY, {"p": "lab"})["data"]["group"]["members"]["nodes"]
    expiry = {n["user"]["email"]: n["expiresAt"] for n in nodes}
    assert expiry[lab["owner"].email] is None
    stored = db.scalar(select(GroupMember.expires_at).where(
        GroupMember.user_id == member.id, GroupMember.group_id == tree["top"].id))
    assert datetime.fromisoformat(expiry[member.email]) == stored
    listed = testapp.get(f"/api/groups/{tree['top'].id}/members?directOnly=true",
                         headers=lab["h"]).json["resource"]["resources"]
    assert {m["userId"]: m["expiresAt"] for m in listed} == {
        "owner": None, "member": epoch_ms(stored)}


def test_a_maintainer_whose_membership_expired_changes_nothing(testapp, factories, db, lab,
                                                               tree):
    maint = factories.user(username="maint")
    testapp.post_json(f"/api/groups/{tree['top'].id}/members",
                      {"userId": "maint", "accessLevel": "MAINTAINER",
                       "expiresAt": tomorrow()}, headers=lab["h"], status=201)
    headers = factories.headers(maint)
    url = f"/api/projects/{tree['inner'].id}"
    testapp.patch_json(url, {"organism": "Listeria"}, headers=headers, status=200)
    expire(db, GroupMember, user_id=maint.id, group_id=tree["top"].id)
    testapp.patch_json(url, {"organism": "Salmonella"}, headers=headers, status=404)
    testapp.post_json(f"/api/groups/{tree['sub'].id}/groups", {"name": "Nope"},
                      headers=headers, status=404)


#: Expiries refused: by name for those relative to now (resolved when the test runs).
REFUSED = ["today", "yesterday", "2020-01-01T00:00:00Z", "now-ms", "tomorrow", "2027-13-01",
           "2027-01-01T10:00:00", True, 1.5,
           # Past the last instant a datetime holds once moved to UTC (was a 500).
           "9999-12-31T23:59:59-05:00"]


def refused_value(name):
    now = utcnow()
    return {"today": now.date().isoformat(),
            "yesterday": (now - timedelta(days=1)).date().isoformat(),
            "now-ms": epoch_ms(now)}.get(name, name)


@pytest.mark.parametrize("name", REFUSED)
def test_an_expiry_not_in_the_future_is_refused_and_changes_nothing(testapp, factories, db,
                                                                    lab, tree, name):
    value = refused_value(name)
    project = lab["project"]
    problems = testapp.post_json(f"/api/projects/{project.id}/users",
                                 {"userId": "member", "expiresAt": value}, headers=lab["h"],
                                 status=400).json
    assert "expiresAt" in str(problems)
    assert db.scalar(select(ProjectMember.id).where(
        ProjectMember.project_id == project.id, ProjectMember.user_id == lab["member"].id)) is None
    other = factories.user(username="other")
    top = tree["top"].id
    testapp.post_json(f"/api/groups/{top}/members",
                      {"userId": "other", "accessLevel": "GUEST", "expiresAt": value},
                      headers=lab["h"], status=400)
    assert db.scalar(select(GroupMember.id).where(GroupMember.user_id == other.id)) is None
    before = db.scalar(select(GroupMember.expires_at).where(
        GroupMember.group_id == top, GroupMember.user_id == lab["member"].id))
    testapp.patch_json(f"/api/groups/{top}/members/member",
                       {"accessLevel": "ANALYST", "expiresAt": value}, headers=lab["h"],
                       status=400)
    db.expire_all()
    row = db.scalars(select(GroupMember).where(
        GroupMember.group_id == top, GroupMember.user_id == lab["member"].id)).one()
    assert (row.expires_at, row.access_level) == (before, AccessLevel.GUEST)


def test_the_web_form_sets_an_expiry_and_refuses_a_past_one(testapp, factories, db, lab):
    project = lab["project"]
    factories.user(username="later")
    sign_in(testapp, lab["owner"])
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form = next(f for f in manage.forms.values() if "username" in f.fields)
    form["username"] = "member"
    form["expires_at"] = utcnow().date().isoformat()  # today 00:00 UTC: already past
    form.submit(status=400)
    assert db.scalar(select(ProjectMember.id).where(
        ProjectMember.user_id == lab["member"].id)) is None
    form["username"] = "later"
    form["expires_at"] = tomorrow()
    form.submit(status=303)
    page = testapp.get(f"/-/projects/{project.id}/manage")
    assert tomorrow() in page.text
    stored = db.scalar(select(ProjectMember.expires_at).join(ProjectMember.user).where(
        ProjectMember.project_id == project.id, ProjectMember.user.has(username="later")))
    assert stored == datetime.fromisoformat(tomorrow()).replace(tzinfo=UTC)


def test_an_expiry_is_changed_and_removed(testapp, factories, db, lab, tree):
    top = tree["top"].id
    url = f"/api/groups/{top}/members/member"
    later = (utcnow() + timedelta(days=30)).replace(microsecond=0)
    entry = testapp.patch_json(url, {"expiresAt": later.isoformat()}, headers=lab["h"]
                               ).json["resource"]
    assert (entry["expiresAt"], entry["accessLevel"]) == (epoch_ms(later), "GUEST")
    entry = testapp.patch_json(url, {"expiresAt": None}, headers=lab["h"]).json["resource"]
    assert entry["expiresAt"] is None
    testapp.patch_json(url, {}, headers=lab["h"], status=400)
    # The last owner of a top-level group whose membership does not expire keeps it so.
    testapp.patch_json(f"/api/groups/{top}/members/owner", {"expiresAt": tomorrow()},
                       headers=lab["h"], status=400)
    db.expire_all()
    assert db.scalar(select(GroupMember.expires_at).where(
        GroupMember.group_id == top, GroupMember.user_id == lab["owner"].id)) is None


def test_an_expired_member_may_be_added_again(testapp, factories, db, lab):
    project = lab["project"]
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "member", "expiresAt": tomorrow()}, headers=lab["h"],
                      status=201)
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": "member"},
                      headers=lab["h"], status=409)
    expire(db, ProjectMember, user_id=lab["member"].id)
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": "member"},
                      headers=lab["h"], status=201)
    testapp.get(f"/api/projects/{project.id}", headers=factories.headers(lab["member"]),
                status=200)


def test_the_worker_removes_expired_memberships_and_only_those(app_config, factories, db,
                                                               lab, tree):
    from seqcore.projects.expiry import MembershipExpiryWorker

    owner = lab["owner"]
    keeps = factories.user(username="keeps")
    forever = factories.user(username="forever")
    gone = factories.user(username="gone")
    project = factories.project(owner=owner, name="Cleanup", members=[
        (keeps, ProjectRole.USER), (forever, ProjectRole.USER), (gone, ProjectRole.USER)])
    db.execute(update(ProjectMember).where(ProjectMember.user_id == keeps.id)
               .values(expires_at=utcnow() + timedelta(days=1)))
    db.commit()
    expire(db, ProjectMember, user_id=gone.id)
    expire(db, GroupMember, user_id=lab["member"].id, group_id=tree["top"].id)
    high = db.scalar(select(Activity.id).order_by(Activity.id.desc()).limit(1)) or 0

    assert MembershipExpiryWorker(app_config.registry).run_once() == 2

    db.expire_all()
    assert set(db.scalars(select(ProjectMember.user_id).where(
        ProjectMember.project_id == project.id))) == {owner.id, keeps.id, forever.id}
    assert set(db.scalars(select(GroupMember.user_id).where(
        GroupMember.group_id == tree["top"].id))) == {owner.id}
    # The membership of ``partners`` (tomorrow) is kept.
    assert db.scalar(select(GroupMember.id).where(
        GroupMember.group_id == tree["partners"].id, GroupMember.user_id == lab["member"].id))
    records = db.scalars(select(Activity).where(Activity.id > high)).all()
    assert [(r.kind, r.actor_type) for r in records] == [("member.expire", "service")] * 2
    assert MembershipExpiryWorker(app_config.registry).run_once() == 0


def test_a_project_membership_expiry_is_changed_and_removed(testapp, factories, db, lab):
    project = lab["project"]
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": "member"},
                      headers=lab["h"], status=201)
    url = f"/api/projects/{project.id}/users/member"
    later = (utcnow() + timedelta(days=30)).replace(microsecond=0)
    body = testapp.patch_json(url, {"expiresAt": later.isoformat()}, headers=lab["h"]
                              ).json["resource"]["resource"]
    assert body["expiresAt"] == epoch_ms(later)
    testapp.patch_json(url, {"expiresAt": "2020-01-01"}, headers=lab["h"], status=400)
    testapp.patch_json(url, {}, headers=lab["h"], status=400)
    db.expire_all()
    assert db.scalar(select(ProjectMember.expires_at).where(
        ProjectMember.user_id == lab["member"].id)) == later
    assert testapp.patch_json(url, {"expiresAt": None}, headers=lab["h"]
                              ).json["resource"]["resource"]["expiresAt"] is None
    # The project's only owner whose membership does not expire keeps it so.
    testapp.patch_json(f"/api/projects/{project.id}/users/owner", {"expiresAt": tomorrow()},
                       headers=lab["h"], status=400)
    # A member may not change memberships.
    testapp.patch_json(url, {"expiresAt": tomorrow()},
                       headers=factories.headers(lab["member"]), status=403)


def test_the_web_page_changes_and_removes_an_expiry(testapp, factories, db, lab):
    project = lab["project"]
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": "member"},
                      headers=lab["h"], status=201)
    sign_in(testapp, lab["owner"])
    action = f"/-/projects/{project.id}/manage/members/{lab['member'].id}/expiry"

    def stored():
        db.expire_all()
        return db.scalar(select(ProjectMember.expires_at).where(
            ProjectMember.user_id == lab["member"].id))

    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form = next(f for f in manage.forms.values() if f.action == action)
    form["expires_at"] = tomorrow()
    form.submit(status=303)
    assert stored() == datetime.fromisoformat(tomorrow()).replace(tzinfo=UTC)
    form["expires_at"] = "2020-01-01"
    form.submit(status=400)
    assert stored() == datetime.fromisoformat(tomorrow()).replace(tzinfo=UTC)
    form["expires_at"] = ""
    form.submit(status=303)
    assert stored() is None


def test_a_member_may_bring_its_own_expiry_closer_but_not_lift_it(testapp, factories, db,
                                                                  lab):
    """An expiry is set on someone by another owner or maintainer; the member it limits
    cannot put it off or remove it, over the project's or the group's membership."""
    project = lab["project"]
    partner = factories.user(username="partner")
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "partner", "role": "PROJECT_OWNER",
                       "expiresAt": (utcnow() + timedelta(days=10)).date().isoformat()},
                      headers=lab["h"], status=201)
    mine = factories.headers(partner)
    url = f"/api/projects/{project.id}/users/partner"
    for later in (None, (utcnow() + timedelta(days=20)).date().isoformat()):
        refused = testapp.patch_json(url, {"expiresAt": later}, headers=mine, status=403)
        assert "ask another owner or maintainer" in refused.json["message"]
    stored = db.scalars(select(ProjectMember).where(ProjectMember.user_id == partner.id)).one()
    assert stored.expires_at.date() == (utcnow() + timedelta(days=10)).date()
    testapp.patch_json(url, {"expiresAt": tomorrow()}, headers=mine, status=200)
    testapp.patch_json(url, {"expiresAt": None}, headers=lab["h"], status=200)  # another owner

    group = factories.group(lab["owner"], name="Expiring lab", path="expiring-lab")
    groups = f"/api/groups/{group.id}/members"
    testapp.post_json(groups, {"userId": "partner", "accessLevel": "OWNER",
                               "expiresAt": tomorrow()}, headers=lab["h"], status=201)
    refused = testapp.patch_json(f"{groups}/partner", {"expiresAt": None}, headers=mine,
                                 status=403)
    assert "ask another owner or maintainer" in refused.json["message"]
    member = db.scalars(select(GroupMember).where(GroupMember.group_id == group.id,
                                                  GroupMember.user_id == partner.id)).one()
    assert member.expires_at is not None
