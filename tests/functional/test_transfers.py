"""Moving projects and groups between namespaces, over REST and GraphQL: PUIDs stay, full
paths of the moved tree change, access inherited through the old parent groups ends and
through the new ones begins, and every refusal changes nothing."""

import pytest
from sqlalchemy import select

from seqcore.models.activity import Activity
from seqcore.models.group import AccessLevel, Group, GroupHierarchy, GroupMember
from seqcore.models.project import Project
from tests.dbstate import snapshot

TRANSFER_PROJECT = """mutation($input: TransferProjectInput!) { transferProject(input: $input) {
  project { puid fullPath parent { fullPath puid } } errors { message path } } }"""
TRANSFER_GROUP = """mutation($input: TransferGroupInput!) { transferGroup(input: $input) {
  group { puid fullPath fullName parent { fullPath } } errors { message path } } }"""
PROJECT = "query($puid: ID!) { project(puid: $puid) { fullPath } }"


def gid(kind, pk):
    return f"gid://seqcore/{kind}/{pk}"


@pytest.fixture
def world(factories):
    """``lab`` > ``lab/outbreaks`` > ``lab/outbreaks/y2024``, project ``listeria`` in
    ``lab/outbreaks`` and ``deep`` in ``y2024``; ``partners`` (bob's, alice maintains it);
    ``closed`` (carol's, alice a guest); a guest of each of ``lab`` and ``partners``."""
    alice = factories.user(username="alice")
    bob = factories.user(username="bob")
    carol = factories.user(username="carol")
    labguest = factories.user(username="labguest")
    labmaint = factories.user(username="labmaint")
    partguest = factories.user(username="partguest")
    lab = factories.group(alice, name="Lab", path="lab",
                          members=[(labguest, AccessLevel.GUEST),
                                   (labmaint, AccessLevel.MAINTAINER)])
    outbreaks = factories.group(alice, name="Outbreaks", path="outbreaks", parent=lab)
    y2024 = factories.group(alice, name="2024", path="y2024", parent=outbreaks)
    listeria = factories.project(owner=alice, name="Listeria", path="listeria",
                                 group=outbreaks)
    deep = factories.project(owner=alice, name="Deep", path="deep", group=y2024)
    partners = factories.group(bob, name="Partners", path="partners",
                               members=[(alice, AccessLevel.MAINTAINER),
                                        (partguest, AccessLevel.GUEST)])
    closed = factories.group(carol, name="Closed", path="closed",
                             members=[(alice, AccessLevel.GUEST)])
    notes = factories.project(owner=alice, name="Notes", path="notes")
    return dict(alice=alice, bob=bob, carol=carol, labguest=labguest, labmaint=labmaint,
                partguest=partguest, lab=lab, outbreaks=outbreaks, y2024=y2024,
                listeria=listeria, deep=deep, partners=partners, closed=closed, notes=notes)


def reads(testapp, factories, user, project):
    """Whether ``user`` reads ``project`` over REST (200) or it is hidden (404)."""
    status = testapp.get(f"/api/projects/{project.id}", headers=factories.headers(user),
                         expect_errors=True).status_int
    assert status in (200, 404)
    return status == 200


def reads_group(testapp, factories, user, group):
    status = testapp.get(f"/api/groups/{group.id}", headers=factories.headers(user),
                         expect_errors=True).status_int
    assert status in (200, 404)
    return status == 200


def closure(db):
    db.expire_all()
    return {(a, d): depth for a, d, depth in db.execute(
        select(GroupHierarchy.ancestor_id, GroupHierarchy.descendant_id, GroupHierarchy.depth))}


def expected_closure(db):
    """The closure rebuilt from ``parent_id`` alone."""
    parents = dict(db.execute(select(Group.id, Group.parent_id)).all())
    rows = {}
    for group_id in parents:
        node, depth = group_id, 0
        while node is not None:
            rows[(node, group_id)] = depth
            node, depth = parents[node], depth + 1
    return rows


# -- projects ---------------------------------------------------------------------------------


def test_rest_moves_a_project_into_another_group(testapp, factories, db, world):
    project = world["listeria"]
    assert reads(testapp, factories, world["labguest"], project)
    assert not reads(testapp, factories, world["partguest"], project)
    answer = testapp.post_json(f"/api/projects/{project.id}/transfer",
                               {"groupId": world["partners"].id},
                               headers=factories.headers(world["alice"])).json["resource"]
    assert (answer["fullPath"], answer["namespace"], answer["puid"]) == (
        "partners/listeria", "partners", project.puid)
    assert answer["groupIdentifier"] == str(world["partners"].id)
    db.expire_all()
    moved = db.get(Project, project.id)
    assert (moved.namespace, moved.group_id, moved.puid) == (
        "partners", world["partners"].id, project.puid)
    # Access through the old parent group ends, through the new one begins.
    assert not reads(testapp, factories, world["labguest"], project)
    assert reads(testapp, factories, world["partguest"], project)
    assert reads(testapp, factories, world["alice"], project)  # its direct owner
    record = db.scalars(select(Activity).order_by(Activity.id.desc())).first()
    assert record.kind == "project.transfer"
    assert [s.project_id for s in record.subjects] == [project.id]


def test_graphql_moves_a_project_to_the_callers_namespace_by_puid(graphql, factories,
                                                                   testapp, world):
    project = world["listeria"]
    alice = world["alice"]
    body = graphql.as_user(alice)(TRANSFER_PROJECT, {"input": {
        "projectPuid": project.puid, "namespacePuid": alice.namespace_puid}})
    payload = body["data"]["transferProject"]
    assert payload["errors"] == []
    assert payload["project"]["puid"] == project.puid
    assert payload["project"]["fullPath"] == "alice/listeria"
    assert payload["project"]["parent"]["puid"] == alice.namespace_puid
    assert graphql(PROJECT, {"puid": project.puid})["data"]["project"] == {
        "fullPath": "alice/listeria"}
    assert not reads(testapp, factories, world["labguest"], project)
    # and back into a group, by global ids
    body = graphql(TRANSFER_PROJECT, {"input": {
        "projectId": gid("Project", project.id),
        "namespaceId": gid("Group", world["outbreaks"].id)}})
    assert body["data"]["transferProject"]["project"]["fullPath"] == "lab/outbreaks/listeria"
    assert reads(testapp, factories, world["labguest"], project)


# -- groups -----------------------------------------------------------------------------------


def test_graphql_moves_a_group_with_everything_below_it(graphql, testapp, factories, db,
                                                        world):
    outbreaks, y2024 = world["outbreaks"], world["y2024"]
    assert reads_group(testapp, factories, world["labguest"], y2024)
    body = graphql.as_user(world["alice"])(TRANSFER_GROUP, {"input": {
        "groupPuid": outbreaks.puid, "newParentId": gid("Group", world["partners"].id)}})
    payload = body["data"]["transferGroup"]
    assert payload["errors"] == []
    assert payload["group"] == {"puid": outbreaks.puid, "fullPath": "partners/outbreaks",
                                "fullName": "Partners / Outbreaks",
                                "parent": {"fullPath": "partners"}}
    db.expire_all()
    below = db.get(Group, y2024.id)
    assert (below.full_path, below.full_name, below.puid) == (
        "partners/outbreaks/y2024", "Partners / Outbreaks / 2024", y2024.puid)
    assert db.get(Project, world["listeria"].id).full_path == "partners/outbreaks/listeria"
    assert db.get(Project, world["deep"].id).full_path == "partners/outbreaks/y2024/deep"
    assert db.get(Project, world["deep"].id).puid == world["deep"].puid
    assert closure(db) == expected_closure(db)
    for thing in (world["listeria"], world["deep"]):
        assert not reads(testapp, factories, world["labguest"], thing)
        assert not reads(testapp, factories, world["labmaint"], thing)
        assert reads(testapp, factories, world["partguest"], thing)
    assert not reads_group(testapp, factories, world["labguest"], y2024)
    assert reads_group(testapp, factories, world["partguest"], y2024)
    # The group is found by its new full path, not the old one.
    found = graphql("query($p: ID!) { group(fullPath: $p) { puid } }",
                    {"p": "partners/outbreaks/y2024"})["data"]["group"]
    assert found == {"puid": y2024.puid}
    assert graphql("{ group(fullPath: \"lab/outbreaks\") { puid } }")["data"]["group"] is None


def test_rest_moves_a_group_to_the_top_level(testapp, factories, db, world):
    outbreaks = world["outbreaks"]
    answer = testapp.post_json(f"/api/groups/{outbreaks.id}/transfer", {"parentId": None},
                               headers=factories.headers(world["alice"])).json["resource"]
    assert (answer["fullPath"], answer["fullName"], answer["parentIdentifier"],
            answer["puid"]) == ("outbreaks", "Outbreaks", None, outbreaks.puid)
    db.expire_all()
    assert closure(db) == expected_closure(db)
    assert db.get(Project, world["deep"].id).full_path == "outbreaks/y2024/deep"
    assert not reads(testapp, factories, world["labguest"], world["deep"])
    assert reads(testapp, factories, world["alice"], world["deep"])
    record = db.scalars(select(Activity).order_by(Activity.id.desc())).first()
    assert record.kind == "group.transfer"


def test_a_group_owned_through_its_parent_keeps_an_owner_at_the_top(testapp, factories, db,
                                                                     world):
    """Bob owns ``partners``; a subgroup alice created there is owned by her directly. Bob
    moves a subgroup he owns only through ``partners`` to the top: he becomes its direct
    owner, as a top-level group keeps one."""
    sub = factories.group(world["bob"], name="Sub", path="sub", parent=world["partners"])
    db.execute(GroupMember.__table__.delete().where(GroupMember.group_id == sub.id))
    db.commit()
    testapp.post_json(f"/api/groups/{sub.id}/transfer", {"parentId": None},
                      headers=factories.headers(world["bob"]))
    db.expire_all()
    owners = db.scalars(select(GroupMember.user_id).where(
        GroupMember.group_id == sub.id, GroupMember.access_level == AccessLevel.OWNER)).all()
    assert owners == [world["bob"].id]


def test_a_group_whose_owners_all_expire_gets_a_lasting_owner_at_the_top(
        testapp, factories, db, world):
    """An owner whose membership expires does not count as the owner a top-level group
    keeps: the mover (owner through the parent) becomes a direct owner with no expiry."""
    from datetime import timedelta

    from seqcore.db import utcnow

    sub = factories.group(world["bob"], name="Sub", path="sub", parent=world["partners"])
    db.execute(GroupMember.__table__.update().where(GroupMember.group_id == sub.id).values(
        expires_at=utcnow() + timedelta(days=3)))
    db.commit()
    testapp.post_json(f"/api/groups/{sub.id}/transfer", {"parentId": None},
                      headers=factories.headers(world["bob"]))
    db.expire_all()
    owners = db.execute(select(GroupMember.user_id, GroupMember.expires_at).where(
        GroupMember.group_id == sub.id, GroupMember.access_level == AccessLevel.OWNER)).all()
    assert [tuple(row) for row in owners] == [(world["bob"].id, None)]


# -- refusals ---------------------------------------------------------------------------------


@pytest.fixture
def unchanged(db, world):
    """Checks, after the test, that nothing in the database changed (tokens are made
    first)."""
    holder = {}

    def start():
        holder["before"] = snapshot(db)

    yield start
    assert snapshot(db) == holder["before"]


def test_rest_refusals_change_nothing(testapp, factories, world, unchanged):
    alice = factories.headers(world["alice"])
    labmaint = factories.headers(world["labmaint"])
    carol = factories.headers(world["carol"])
    factories.project(owner=world["bob"], name="Listeria", path="listeria",
                      group=world["partners"])
    factories.group(world["bob"], name="Outbreaks", path="outbreaks",
                    parent=world["partners"])
    unchanged()
    project, outbreaks, lab = world["listeria"], world["outbreaks"], world["lab"]

    def refused(url, body, headers, status):
        return testapp.post_json(url, body, headers=headers, status=status).json

    # the path is taken at the destination
    taken = refused(f"/api/projects/{project.id}/transfer",
                    {"groupId": world["partners"].id}, alice, 400)
    assert "already been taken" in str(taken)
    taken = refused(f"/api/groups/{outbreaks.id}/transfer",
                    {"parentId": world["partners"].id}, alice, 400)
    assert "already been taken" in str(taken)
    # under itself or a group below it
    assert "itself" in str(refused(f"/api/groups/{lab.id}/transfer", {"parentId": lab.id},
                                   alice, 400))
    assert "below it" in str(refused(f"/api/groups/{lab.id}/transfer",
                                     {"parentId": world["y2024"].id}, alice, 400))
    # already there
    assert "already" in str(refused(f"/api/groups/{outbreaks.id}/transfer",
                                    {"parentId": lab.id}, alice, 400))
    # not the owner: a maintainer of the group writes the project but does not move it
    assert "owner" in refused(f"/api/projects/{project.id}/transfer", {"groupId": None},
                              labmaint, 403)["message"]
    assert "owner" in refused(f"/api/groups/{outbreaks.id}/transfer", {"parentId": None},
                              labmaint, 403)["message"]
    # no right in the destination: a guest there, or a group it cannot read
    assert "closed" not in str(refused(f"/api/projects/{world['notes'].id}/transfer",
                                       {"groupId": 999999}, alice, 400))
    refused(f"/api/projects/{world['notes'].id}/transfer", {"groupId": world["closed"].id},
            alice, 403)
    refused(f"/api/groups/{outbreaks.id}/transfer", {"parentId": world["closed"].id},
            alice, 403)
    # a project or group the caller cannot read at all is not found
    refused(f"/api/projects/{project.id}/transfer", {"groupId": None}, carol, 404)
    refused(f"/api/groups/{outbreaks.id}/transfer", {"parentId": None}, carol, 404)
    # malformed bodies
    refused(f"/api/projects/{project.id}/transfer", {}, alice, 400)
    refused(f"/api/groups/{outbreaks.id}/transfer", {"parentId": "lab"}, alice, 400)


def test_graphql_refusals_change_nothing(graphql, factories, world, unchanged):
    factories.project(owner=world["bob"], name="Listeria", path="listeria",
                      group=world["partners"])
    maint = factories.graphql_headers(world["labmaint"])
    graphql.as_user(world["alice"])
    unchanged()
    project, outbreaks = world["listeria"], world["outbreaks"]

    def errors(document, variables, headers=None):
        body = graphql(document, {"input": variables}, headers=headers)
        assert "errors" not in body, body
        payload = next(iter(body["data"].values()))
        assert payload["errors"], payload
        return " ".join(e["message"] for e in payload["errors"])

    assert "already been taken" in errors(TRANSFER_PROJECT, {
        "projectId": gid("Project", project.id),
        "namespaceId": gid("Group", world["partners"].id)})
    assert "another account" in errors(TRANSFER_PROJECT, {
        "projectId": gid("Project", project.id), "namespacePuid": world["bob"].namespace_puid})
    assert "not authorized" in errors(TRANSFER_PROJECT, {
        "projectId": gid("Project", project.id),
        "namespaceId": gid("Group", world["closed"].id)})
    assert "exactly one" in errors(TRANSFER_PROJECT, {"projectId": gid("Project", project.id)})
    assert "owner" in errors(TRANSFER_PROJECT, {
        "projectId": gid("Project", project.id), "namespaceId": gid("User",
                                                                    world["labmaint"].id)},
        headers=maint)
    assert "below it" in errors(TRANSFER_GROUP, {
        "groupId": gid("Group", world["lab"].id),
        "newParentId": gid("Group", world["y2024"].id)})
    assert "itself" in errors(TRANSFER_GROUP, {
        "groupId": gid("Group", outbreaks.id), "newParentPuid": outbreaks.puid})
    assert "owner" in errors(TRANSFER_GROUP, {
        "groupId": gid("Group", outbreaks.id), "toTopLevel": True}, headers=maint)
    assert "exactly one" in errors(TRANSFER_GROUP, {
        "groupId": gid("Group", outbreaks.id), "toTopLevel": True,
        "newParentId": gid("Group", world["partners"].id)})
    assert "not found" in errors(TRANSFER_GROUP, {
        "groupPuid": "INXT_GRP_AAAAAAAAAA", "toTopLevel": True})


def test_web_moves_a_project_and_a_group(testapp, db, world):
    from tests.web.test_workbench import sign_in

    sign_in(testapp, world["alice"])
    project = world["listeria"]
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    form = next(f for f in manage.forms.values()
                if f.action.endswith(f"/-/projects/{project.id}/manage/transfer"))
    form["group_id"] = str(world["partners"].id)
    form.submit(status=303)
    db.expire_all()
    assert db.get(Project, project.id).full_path == "partners/listeria"
    page = testapp.get(f"/-/groups/{world['outbreaks'].id}")
    form = next(f for f in page.forms.values()
                if f.action.endswith(f"/-/groups/{world['outbreaks'].id}/transfer"))
    choices = [value for value, _selected, _text in form["parent_id"].options]
    assert str(world["y2024"].id) not in choices  # not under a group below it
    form["parent_id"] = ""
    form.submit(status=303)
    db.expire_all()
    assert db.get(Group, world["y2024"].id).full_path == "outbreaks/y2024"
    # refusals answer with a page and change nothing
    token = page.forms[next(iter(page.forms))]["csrf_token"].value
    answer = testapp.post(f"/-/groups/{world['lab'].id}/transfer",
                          {"csrf_token": token, "parent_id": str(world["lab"].id)},
                          status=400)
    assert "itself" in answer.text
    db.expire_all()
    assert db.get(Group, world["lab"].id).parent_id is None
