"""``/api/groups``: nested groups, access inherited down the tree, shares capped at their
level, and bad input refused with nothing written."""

import pytest

from seqcore.models.group import AccessLevel, Group, GroupHierarchy, GroupMember, GroupShare
from seqcore.models.project import Project


@pytest.fixture
def alice(factories):
    return factories.user(username="alice")


@pytest.fixture
def tree(testapp, factories, alice):
    """``lab`` > ``lab/outbreaks`` with a project made through REST, and users at levels
    of ``lab``."""
    headers = factories.headers(alice)
    lab = testapp.post_json("/api/groups", {"name": "Lab", "path": "lab"}, headers=headers,
                            status=201).json["resource"]
    sub = testapp.post_json(f"/api/groups/{lab['identifier']}/groups",
                            {"name": "Outbreaks", "description": "2026"},
                            headers=headers, status=201).json["resource"]
    project = testapp.post_json(f"/api/groups/{sub['identifier']}/projects",
                                {"name": "Listeria cluster"}, headers=headers,
                                status=201).json["resource"]
    users = {name: factories.user(username=name) for name in ("guest", "maint", "outsider")}
    for name, level in (("guest", "guest"), ("maint", 40)):
        testapp.post_json(f"/api/groups/{lab['identifier']}/members",
                          {"userId": name, "accessLevel": level}, headers=headers, status=201)
    return {"lab": lab, "sub": sub, "project": project, "users": users, "headers": headers}


def test_groups_nest_and_projects_take_the_group_path(tree, db):
    lab, sub = tree["lab"], tree["sub"]
    assert (lab["fullPath"], sub["fullPath"]) == ("lab", "lab/outbreaks")
    assert sub["fullName"] == "Lab / Outbreaks"
    assert sub["parentIdentifier"] == lab["identifier"]
    assert sub["puid"].startswith("INXT_GRP_") and sub["puid"] != lab["puid"]
    rels = {link["rel"]: link["href"] for link in sub["links"]}
    assert rels["group/parent"].endswith(f"/api/groups/{lab['identifier']}")
    assert {"group/groups", "group/projects", "group/members", "group/shares"} <= set(rels)
    project = db.get(Project, int(tree["project"]["identifier"]))
    assert project.full_path == "lab/outbreaks/listeria-cluster"
    assert project.group_id == int(sub["identifier"])
    depths = {(h.ancestor_id, h.descendant_id): h.depth for h in db.query(GroupHierarchy)}
    assert depths[(int(lab["identifier"]), int(sub["identifier"]))] == 1


def test_access_is_inherited_down_the_tree(testapp, factories, tree):
    url = f"/api/projects/{tree['project']['identifier']}"
    users = tree["users"]
    guest, maint = factories.headers(users["guest"]), factories.headers(users["maint"])
    outsider = factories.headers(users["outsider"])
    assert testapp.get(url, headers=guest).json["resource"]["name"] == "Listeria cluster"
    testapp.patch_json(url, {"organism": "Listeria"}, headers=guest, status=403)
    testapp.patch_json(url, {"organism": "Listeria"}, headers=maint, status=200)
    testapp.get(url, headers=outsider, status=404)
    sub = f"/api/groups/{tree['sub']['identifier']}"
    testapp.get(sub, headers=guest, status=200)
    testapp.get(sub, headers=outsider, status=404)
    # A guest reads but does not create below; a maintainer does.
    testapp.post_json(f"{sub}/groups", {"name": "Nope"}, headers=guest, status=403)
    testapp.post_json(f"{sub}/groups", {"name": "Yes"}, headers=maint, status=201)
    listed = testapp.get("/api/groups", headers=guest).json["resource"]["resources"]
    assert [g["fullPath"] for g in listed] == ["lab", "lab/outbreaks", "lab/outbreaks/yes"]
    assert testapp.get("/api/groups", headers=outsider).json["resource"]["resources"] == []
    members = testapp.get(f"{sub}/members", headers=guest).json["resource"]["resources"]
    assert {(m["userId"], m["accessLevel"], m["inherited"]) for m in members} == {
        ("alice", "OWNER", False), ("alice", "OWNER", True), ("guest", "GUEST", True),
        ("maint", "MAINTAINER", True)}
    direct = testapp.get(f"{sub}/members?directOnly=true", headers=guest).json["resource"]
    assert [m["userId"] for m in direct["resources"]] == ["alice"]
    projects = testapp.get(f"/api/groups/{tree['lab']['identifier']}/projects"
                           "?includeSubGroups=true", headers=guest).json["resource"]
    assert [p["name"] for p in projects["resources"]] == ["Listeria cluster"]
    assert testapp.get(f"/api/groups/{tree['lab']['identifier']}/projects",
                       headers=guest).json["resource"]["resources"] == []


def test_shares_are_capped_at_their_level(testapp, factories, tree, alice):
    eve = factories.user(username="eve")
    eve_headers = factories.headers(eve)
    partners = testapp.post_json("/api/groups", {"name": "Partners"}, headers=eve_headers,
                                 status=201).json["resource"]
    project_url = f"/api/projects/{tree['project']['identifier']}"
    testapp.get(project_url, headers=eve_headers, status=404)
    # A share names a group the sharer may read (else its existence would leak).
    testapp.post_json(f"{project_url}/shares",
                      {"groupId": int(partners["identifier"]), "accessLevel": "GUEST"},
                      headers=tree["headers"], status=400)
    testapp.post_json(f"/api/groups/{partners['identifier']}/members",
                      {"userId": "alice", "accessLevel": "GUEST"}, headers=eve_headers,
                      status=201)
    share = testapp.post_json(f"{project_url}/shares",
                              {"groupId": int(partners["identifier"]), "accessLevel": "GUEST"},
                              headers=tree["headers"], status=201).json["resource"]
    assert (share["accessLevel"], share["groupFullPath"]) == ("GUEST", "partners")
    # eve owns partners, but the share gives at most guest: she reads and cannot write.
    testapp.get(project_url, headers=eve_headers, status=200)
    testapp.patch_json(project_url, {"organism": "x"}, headers=eve_headers, status=403)
    # Sharing the top group at maintainer reaches the project below it.
    lab_url = f"/api/groups/{tree['lab']['identifier']}"
    testapp.post_json(f"{lab_url}/shares", {"groupId": int(partners["identifier"]),
                                            "accessLevel": 40},
                      headers=tree["headers"], status=201)
    testapp.patch_json(project_url, {"organism": "x"}, headers=eve_headers, status=200)
    testapp.get(f"/api/groups/{tree['sub']['identifier']}", headers=eve_headers, status=200)
    shares = testapp.get(f"{lab_url}/shares", headers=eve_headers).json["resource"]
    assert [(s["groupFullPath"], s["accessLevelValue"]) for s in shares["resources"]] == [
        ("partners", 40)]
    share_url = shares["resources"][0]["links"][0]["href"]
    # A share's level changes in place: down to guest, partners read and no longer write.
    testapp.patch_json(share_url, {}, headers=tree["headers"], status=400)
    testapp.patch_json(share_url, {"accessLevel": 35}, headers=tree["headers"], status=400)
    changed = testapp.patch_json(share_url, {"accessLevel": "GUEST"},
                                 headers=tree["headers"], status=200).json["resource"]
    assert (changed["accessLevel"], changed["groupFullPath"]) == ("GUEST", "partners")
    testapp.patch_json(project_url, {"organism": "y"}, headers=eve_headers, status=403)
    # A maintainer of the lab may not raise it above maintainer, nor change an owner's.
    maint = factories.headers(tree["users"]["maint"])
    testapp.patch_json(share_url, {"accessLevel": "OWNER"}, headers=maint, status=403)
    testapp.patch_json(share_url, {"accessLevel": "MAINTAINER"}, headers=maint, status=200)
    testapp.delete(share_url, headers=tree["headers"], status=200)
    testapp.patch_json(project_url, {"organism": "y"}, headers=eve_headers, status=403)


@pytest.mark.parametrize(("url", "body", "field"), [
    ("/api/groups", {}, "name"),
    ("/api/groups", {"name": ""}, "name"),
    ("/api/groups", {"name": "Bad", "path": "-bad-"}, "path"),
    ("/api/groups", {"name": "Taken", "path": "lab"}, "path"),
    ("/api/groups", {"name": "Mine", "path": "alice"}, "path"),
    ("/api/groups", {"name": "Odd", "colour": "red"}, None),
    ("{lab}/members", {"userId": "guest", "accessLevel": 35}, "accessLevel"),
    ("{lab}/members", {"userId": "guest", "accessLevel": "boss"}, "accessLevel"),
    ("{lab}/members", {"userId": "nobody", "accessLevel": 10}, "userId"),
    ("{lab}/shares", {"groupId": "{lab_id}", "accessLevel": 10}, "groupId"),
    ("{lab}/shares", {"groupId": 999999, "accessLevel": 10}, "groupId"),
    ("{lab}/shares", {"groupId": 2**40, "accessLevel": 10}, "groupId"),
])
def test_bad_input_is_a_400_and_changes_nothing(testapp, tree, db, url, body, field):
    lab_id = tree["lab"]["identifier"]
    url = url.format(lab=f"/api/groups/{lab_id}")
    body = {k: int(lab_id) if v == "{lab_id}" else v for k, v in body.items()}
    before = (db.query(Group).count(), db.query(GroupMember).count(),
              db.query(GroupShare).count())
    res = testapp.post_json(url, body, headers=tree["headers"], status=400)
    if field is not None:
        assert field in res.json, res.json
    db.expire_all()
    assert (db.query(Group).count(), db.query(GroupMember).count(),
            db.query(GroupShare).count()) == before


def test_memberships_change_and_a_top_group_keeps_an_owner(testapp, factories, tree):
    lab = f"/api/groups/{tree['lab']['identifier']}"
    headers = tree["headers"]
    testapp.post_json(f"{lab}/members", {"userId": "guest", "accessLevel": 20},
                      headers=headers, status=409)
    changed = testapp.patch_json(f"{lab}/members/guest", {"accessLevel": "ANALYST"},
                                 headers=headers).json["resource"]
    assert (changed["accessLevel"], changed["accessLevelValue"]) == ("ANALYST", 30)
    res = testapp.delete(f"{lab}/members/alice", headers=headers, status=400)
    assert "owner" in res.json["message"]
    testapp.delete(f"{lab}/members/guest", headers=headers, status=200)
    testapp.get(f"{lab}/members/guest", headers=headers, status=404)
    guest = factories.headers(tree["users"]["guest"])
    testapp.get(lab, headers=guest, status=404)


def test_levels_are_irida_nexts_numbers():
    assert [(level.name, level.value) for level in AccessLevel] == [
        ("NO_ACCESS", 0), ("GUEST", 10), ("UPLOADER", 20), ("ANALYST", 30),
        ("MAINTAINER", 40), ("OWNER", 50)]


def test_nobody_grants_or_changes_above_their_own_level(testapp, factories, tree):
    """A maintainer adds, raises, changes and removes members up to maintainer only: it
    cannot make itself or anyone an owner, nor change or remove an owner."""
    lab = f"/api/groups/{tree['lab']['identifier']}"
    maint = factories.headers(tree["users"]["maint"])
    factories.user(username="newbie")
    for body in ({"userId": "newbie", "accessLevel": "OWNER"},):
        res = testapp.post_json(f"{lab}/members", body, headers=maint, status=403)
        assert "above the access level your own membership gives you" in res.json["message"]
    testapp.patch_json(f"{lab}/members/maint", {"accessLevel": 50}, headers=maint,
                       status=403)
    testapp.patch_json(f"{lab}/members/alice", {"accessLevel": 40}, headers=maint,
                       status=403)
    testapp.delete(f"{lab}/members/alice", headers=maint, status=403)
    # Within its level it manages members as before, and may leave.
    testapp.post_json(f"{lab}/members", {"userId": "newbie", "accessLevel": 40},
                      headers=maint, status=201)
    testapp.patch_json(f"{lab}/members/guest", {"accessLevel": 30}, headers=maint,
                       status=200)
    testapp.delete(f"{lab}/members/newbie", headers=maint, status=200)
    members = {m["userId"] if "userId" in m else m.get("username"): m["accessLevelValue"]
               for m in testapp.get(f"{lab}/members?directOnly=true",
                                    headers=tree["headers"]).json["resource"]["resources"]}
    assert 50 in members.values() and list(members.values()).count(50) == 1
    # An owner may make an owner; an administrator too.
    testapp.patch_json(f"{lab}/members/maint", {"accessLevel": 50}, headers=tree["headers"],
                       status=200)


def gql(testapp, headers, query):
    answer = testapp.post_json("/api/graphql", {"query": query}, headers=headers).json
    assert "errors" not in answer, answer
    return answer["data"]


def test_access_through_a_share_changes_no_membership(testapp, factories, tree, db):
    """Members of a group that the lab is shared with at owner level write the lab, but
    make no member (not themselves an owner) and no further share: nothing of theirs
    outlives the share."""
    eve = factories.user(username="eve")
    eve_headers = factories.headers(eve)
    partners = testapp.post_json("/api/groups", {"name": "Partners"}, headers=eve_headers,
                                 status=201).json["resource"]
    testapp.post_json(f"/api/groups/{partners['identifier']}/members",
                      {"userId": "alice", "accessLevel": "GUEST"}, headers=eve_headers,
                      status=201)
    lab = f"/api/groups/{tree['lab']['identifier']}"
    share = testapp.post_json(f"{lab}/shares", {"groupId": int(partners["identifier"]),
                                                "accessLevel": 50},
                              headers=tree["headers"], status=201).json["resource"]
    testapp.get(lab, headers=eve_headers, status=200)
    testapp.post_json(f"{lab}/members", {"userId": "eve", "accessLevel": 50},
                      headers=eve_headers, status=403)
    testapp.post_json(f"{lab}/members", {"userId": "eve", "accessLevel": 10},
                      headers=eve_headers, status=403)
    testapp.delete(f"{lab}/members/alice", headers=eve_headers, status=403)
    other = testapp.post_json("/api/groups", {"name": "Elsewhere"}, headers=eve_headers,
                              status=201).json["resource"]
    testapp.post_json(f"{lab}/shares", {"groupId": int(other["identifier"]),
                                        "accessLevel": 10}, headers=eve_headers, status=403)
    testapp.patch_json(f"{lab}/shares/{share['identifier']}", {"accessLevel": 10},
                       headers=eve_headers, status=403)
    # Nor does it create below the lab: the creator would own what it made directly.
    refused = testapp.post_json(f"{lab}/groups", {"name": "Mine"}, headers=eve_headers,
                                status=403).json
    assert "share" in refused["message"]
    testapp.post_json(f"{lab}/projects", {"name": "Mine here"}, headers=eve_headers, status=403)
    eve_graphql = factories.graphql_headers(eve)
    created = gql(testapp, eve_graphql, 'mutation { createGroup(input: {name: "Mine", '
                  f'path: "mine", groupPuid: "{tree["lab"]["puid"]}"}}) '
                  '{ group { id } errors { message } } }')
    assert created["createGroup"]["group"] is None and created["createGroup"]["errors"]
    made = gql(testapp, eve_graphql, 'mutation { createProject(input: {name: "Mine here", '
               f'groupPuid: "{tree["lab"]["puid"]}"}}) '
               '{ project { id } errors { message } } }')
    assert made["createProject"]["project"] is None and made["createProject"]["errors"]
    assert db.query(Group).filter_by(name="Mine").count() == 0
    assert db.query(Project).filter_by(name="Mine here").count() == 0
    testapp.delete(f"{lab}/shares/{share['identifier']}", headers=tree["headers"],
                   status=200)
    testapp.get(lab, headers=eve_headers, status=404)
    assert db.query(GroupMember).filter_by(user_id=eve.id,
                                           group_id=int(tree["lab"]["identifier"])).count() == 0
