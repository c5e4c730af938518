"""Groups and namespaces in GraphQL: the same tree, inheritance and shares REST shows."""

import pytest

from seqcore.models.group import AccessLevel
from tests.graphql.conftest import gid


@pytest.fixture
def world(factories):
    """``lab`` > ``lab/outbreaks`` > project ``listeria``; ``partners`` shared ``lab`` at
    guest; users at each level of ``lab``."""
    alice = factories.user(username="alice")
    users = {name: factories.user(username=name)
             for name in ("guest", "maint", "eve", "outsider")}
    lab = factories.group(alice, name="Lab", path="lab",
                          members=[(users["guest"], AccessLevel.GUEST),
                                   (users["maint"], AccessLevel.MAINTAINER)])
    sub = factories.group(alice, name="Outbreaks", path="outbreaks", parent=lab)
    project = factories.project(owner=alice, name="Listeria", path="listeria", group=sub)
    sample = factories.sample(project, name="LIS-1", metadata={"country": "CA", "age": "3"})
    factories.sample(project, name="LIS-2", metadata={"country": "US"})
    partners = factories.group(users["eve"], name="Partners", path="partners")
    factories.share(partners, AccessLevel.GUEST, group=lab)
    mine = factories.project(owner=users["outsider"], name="Own work")
    return dict(alice=alice, **users, lab=lab, sub=sub, project=project, sample=sample,
                partners=partners, mine=mine)


GROUP = """query($path: ID, $puid: ID) { group(fullPath: $path, puid: $puid) {
  id puid name path fullPath fullName description createdAt updatedAt
  parent { fullPath }
  descendantGroups { totalCount nodes { fullPath } }
  projects(includeSubGroups: true) { totalCount nodes { fullPath fullName puid } }
  members { nodes { accessLevel user { email userType } } }
} }"""


def test_group_tree_and_namespace(graphql, world):
    data = graphql.as_user(world["guest"])(GROUP, {"path": "lab/outbreaks"})["data"]["group"]
    assert data["id"] == gid("Group", world["sub"].id)
    assert (data["fullPath"], data["fullName"]) == ("lab/outbreaks", "Lab / Outbreaks")
    assert data["puid"] == world["sub"].puid and data["puid"].startswith("INXT_GRP_")
    assert data["parent"] == {"fullPath": "lab"}
    assert data["projects"]["nodes"] == [{"fullPath": "lab/outbreaks/listeria",
                                          "fullName": "Lab / Outbreaks / Listeria",
                                          "puid": world["project"].puid}]
    assert sorted((m["accessLevel"], m["user"]["email"]) for m in data["members"]["nodes"]) \
        == [("Guest", "guest@example.org"), ("Maintainer", "maint@example.org"),
            ("Owner", "alice@example.org"), ("Owner", "alice@example.org")]
    assert {m["user"]["userType"] for m in data["members"]["nodes"]} == {"human"}
    by_puid = graphql.as_user(world["guest"])(GROUP, {"puid": world["sub"].puid})
    assert by_puid["data"]["group"]["fullPath"] == "lab/outbreaks"
    top = graphql.as_user(world["guest"])(GROUP, {"path": "lab"})["data"]["group"]
    assert top["descendantGroups"] == {"totalCount": 1, "nodes": [{"fullPath":
                                                                   "lab/outbreaks"}]}
    assert top["projects"]["totalCount"] == 1
    namespace = graphql.as_user(world["guest"])(
        "{ namespace(fullPath: \"lab\") { id fullPath name puid projects(includeSubGroups: "
        "true) { nodes { name } } } }")["data"]["namespace"]
    assert namespace == {"id": gid("Group", world["lab"].id), "fullPath": "lab",
                         "name": "Lab", "puid": world["lab"].puid,
                         "projects": {"nodes": [{"name": "Listeria"}]}}


def test_hidden_groups_are_null(graphql, world):
    outsider = graphql.as_user(world["outsider"])
    assert outsider(GROUP, {"path": "lab/outbreaks"})["data"]["group"] is None
    assert outsider(GROUP, {"puid": world["lab"].puid})["data"]["group"] is None
    assert outsider("{ groups { totalCount } }")["data"]["groups"]["totalCount"] == 0
    body = outsider("{ namespace(fullPath: \"alice\") { fullPath } }")
    assert body["data"]["namespace"] is None
    own = outsider("{ namespace(fullPath: \"outsider\") { fullPath projects { nodes "
                   "{ name } } } }")["data"]["namespace"]
    assert own == {"fullPath": "outsider", "projects": {"nodes": [{"name": "Own work"}]}}
    node = outsider("query($id: ID!) { node(id: $id) { id } }",
                    {"id": gid("Group", world["lab"].id)})
    assert node["data"]["node"] is None and "not found" in node["errors"][0]["message"]


def rest_names(testapp, factories, user, url, key="name"):
    body = testapp.get(url, headers=factories.headers(user)).json["resource"]
    return sorted(entry[key] for entry in body["resources"])


@pytest.mark.parametrize("who", ["alice", "guest", "maint", "eve", "outsider"])
def test_rest_and_graphql_agree(testapp, factories, graphql, world, who):
    """Groups and projects each caller sees, and what a project says the caller may do,
    are the same through both transports (inheritance down ``lab`` and its share with
    ``partners`` included)."""
    user = world[who]
    client = graphql.as_user(user)
    body = client("{ groups(first: 100) { nodes { fullPath } } projects(first: 100) "
                  "{ nodes { name } } }")["data"]
    assert sorted(g["fullPath"] for g in body["groups"]["nodes"]) == rest_names(
        testapp, factories, user, "/api/groups", "fullPath")
    assert sorted(p["name"] for p in body["projects"]["nodes"]) == rest_names(
        testapp, factories, user, "/api/projects")
    listed = client("query($g: ID!) { projects(groupId: $g) { nodes { name } } }",
                    {"g": gid("Group", world["lab"].id)})["data"]["projects"]["nodes"]
    if who in ("alice", "guest", "maint", "eve"):
        assert [p["name"] for p in listed] == ["Listeria"]
        assert rest_names(testapp, factories, user, f"/api/groups/{world['lab'].id}"
                                                    "/projects?includeSubGroups=true") == [
            "Listeria"]
    else:
        assert listed == []
    # Writing: createProject in the subgroup succeeds exactly where REST's POST does.
    created = client("""mutation($g: ID!) { createProject(input: {name: "From GraphQL",
        groupId: $g}) { project { fullPath } errors { message path } } }""",
                     {"g": gid("Group", world["sub"].id)})["data"]["createProject"]
    status = testapp.post_json(f"/api/groups/{world['sub'].id}/projects",
                               {"name": "From REST"}, headers=factories.headers(user),
                               expect_errors=True).status_int
    if who in ("alice", "maint"):
        assert created["errors"] == [] and status == 201
        assert created["project"]["fullPath"] == "lab/outbreaks/from-graphql"
    else:
        assert created["project"] is None and status in (403, 404)
        message = created["errors"][0]
        assert message["path"] == ["groupId"]
        assert ("not found" in message["message"]) == (status == 404)


def test_create_group(graphql, world, db):
    client = graphql.as_user(world["maint"])
    mutation = """mutation($name: String!, $g: ID, $p: ID, $path: String) {
      createGroup(input: {name: $name, groupId: $g, groupPuid: $p, path: $path}) {
        group { fullPath fullName parent { fullPath } } errors { message path } } }"""
    made = client(mutation, {"name": "Clusters", "p": world["sub"].puid})
    assert made["data"]["createGroup"] == {"group": {
        "fullPath": "lab/outbreaks/clusters", "fullName": "Lab / Outbreaks / Clusters",
        "parent": {"fullPath": "lab/outbreaks"}}, "errors": []}
    top = client(mutation, {"name": "Own lab"})["data"]["createGroup"]
    assert top["group"]["fullPath"] == "own-lab"
    bad = client(mutation, {"name": "Dup", "path": "own-lab"})["data"]["createGroup"]
    assert bad == {"group": None, "errors": [{"message": "Path has already been taken",
                                              "path": ["group", "path"]}]}
    guest = graphql.as_user(world["guest"])(mutation, {"name": "No", "g": gid("Group",
                                                                              world["lab"].id)})
    assert guest["data"]["createGroup"]["errors"][0]["path"] == ["groupId"]
    hidden = graphql.as_user(world["outsider"])(mutation, {"name": "No", "g": gid(
        "Group", world["lab"].id)})["data"]["createGroup"]
    assert hidden["errors"] == [{"message": "Group not found by provided ID",
                                 "path": ["groupId"]}]


def test_puid_lookups(graphql, world):
    client = graphql.as_user(world["guest"])
    sample, project = world["sample"], world["project"]
    body = client("""query($s: ID!, $p: ID!, $x: ID!) {
      sample(puid: $s) { name puid }
      byPuid: projectSample(projectPuid: $p, samplePuid: $s) { name }
      byName: projectSample(projectPuid: $p, sampleName: "LIS-2") { name }
      project(puid: $p) { fullPath metadataSummary
        parent { fullPath } some: metadataSummary(keys: ["age"]) }
      yes: isPuid(id: $s) no: isPuid(id: $x)
      projects(filter: {name_or_puid_cont: "listeria"}) { nodes { name } }
      groups(filter: {puid_eq: "%s"}) { nodes { fullPath } }
      samples(filter: {name_or_puid_cont: "%s"}) { nodes { name } }
    }""".replace("%s", world["sub"].puid, 1).replace("%s", sample.puid[-6:]),
                  {"s": sample.puid, "p": project.puid, "x": "INXT_SAM_1"})["data"]
    assert body["sample"] == {"name": "LIS-1", "puid": sample.puid}
    assert body["byPuid"] == {"name": "LIS-1"} and body["byName"] == {"name": "LIS-2"}
    assert body["project"] == {"fullPath": "lab/outbreaks/listeria",
                               "metadataSummary": {"age": 1, "country": 2},
                               "parent": {"fullPath": "lab/outbreaks"}, "some": {"age": 1}}
    assert (body["yes"], body["no"]) == (True, False)
    assert body["projects"]["nodes"] == [{"name": "Listeria"}]
    assert body["groups"]["nodes"] == [{"fullPath": "lab/outbreaks"}]
    assert body["samples"]["nodes"] == [{"name": "LIS-1"}]
    hidden = graphql.as_user(world["outsider"])(
        "query($s: ID!) { sample(puid: $s) { name } }", {"s": sample.puid})
    assert hidden["data"]["sample"] is None


def test_project_and_group_filters_ignore_case(graphql, world):
    """ProjectFilter and GroupFilter are declared case-insensitive: ``cont``, ``start``,
    ``end`` (and their negations) ignore case on every database, where AttachmentFilter's
    do not (``tests/graphql/test_attachment_connections.py``); ``eq`` compares exactly. A
    flag that is not a yes (``true``, ``t``, ``1``, ``yes``) is a no."""
    body = graphql.as_user(world["guest"])("""{
      cont: projects(filter: {name_cont: "LISTER"}) { nodes { name } }
      start: projects(filter: {name_start: "lis"}) { nodes { name } }
      either: projects(filter: {name_or_puid_cont: "ISTERI"}) { nodes { name } }
      notStart: projects(filter: {name_not_start: "LIS"}) { nodes { name } }
      exact: projects(filter: {name_eq: "listeria"}) { nodes { name } }
      unsure: projects(filter: {name_null: "maybe"}) { nodes { name } }
      end: groups(filter: {name_end: "BREAKS"}) { nodes { fullPath } }
      notCont: groups(filter: {name_not_cont: "OUT", puid_present: "yes"}) {
        nodes { fullPath } }
    }""")
    assert "errors" not in body, body
    found = {key: [next(iter(n.values())) for n in value["nodes"]]
             for key, value in body["data"].items()}
    assert found == {"cont": ["Listeria"], "start": ["Listeria"], "either": ["Listeria"],
                     "notStart": [], "exact": [], "unsure": ["Listeria"],
                     "end": ["lab/outbreaks"], "notCont": ["lab"]}


def test_project_and_group_filters_take_every_ransack_predicate(graphql, world):
    """IRIDA Next's ProjectFilter and GroupFilter offer every ransack predicate with its
    ``_any``/``_all`` lists: ``matches`` takes a LIKE pattern, ``eq_any`` a list."""
    body = graphql.as_user(world["guest"])("""{
      eqAny: projects(filter: {name_eq_any: ["Listeria", "Other"]}) { nodes { name } }
      matches: projects(filter: {name_matches: "list%"}) { nodes { name } }
      noMatch: projects(filter: {name_does_not_match: "%eri%"}) { nodes { name } }
      contAll: groups(filter: {name_cont_all: ["out", "break"]}) { nodes { fullPath } }
      contAny: groups(filter: {name_cont_any: ["zzz", "LAB"]}) { nodes { fullPath } }
      startAny: groups(filter: {puid_start_any: ["INXT_GRP_", "X"]}) { nodes { fullPath } }
      before: groups(filter: {created_at_lt: "2000-01-01"}) { nodes { fullPath } }
    }""")
    assert "errors" not in body, body
    found = {key: sorted(next(iter(n.values())) for n in value["nodes"])
             for key, value in body["data"].items()}
    assert found == {"eqAny": ["Listeria"], "matches": ["Listeria"], "noMatch": [],
                     "contAll": ["lab/outbreaks"], "contAny": ["lab"],
                     "startAny": ["lab", "lab/outbreaks"], "before": []}


def test_project_and_group_filters_have_irida_nexts_fields(app, app_config):
    """Every field of IRIDA Next's ProjectFilter and GroupFilter exists in seqcore's."""
    from graphql import build_schema

    from seqcore.graphql.schema import SCHEMA
    from tests.graphql.test_irida_next_schema import IRIDA_NEXT

    theirs = build_schema(IRIDA_NEXT.read_text())
    ours = app_config.registry[SCHEMA].graphql_schema
    for name in ("ProjectFilter", "GroupFilter"):
        assert set(theirs.type_map[name].fields) <= set(ours.type_map[name].fields), name


def test_mutations_take_puids(graphql, world):
    """IRIDA Next's mutations name projects and samples by global id or PUID."""
    client = graphql.as_user(world["alice"])
    project, sample = world["project"], world["sample"]
    made = client("""mutation($p: ID!) { createSample(input: {projectPuid: $p, name: "LIS-9"})
      { sample { name puid project { puid } } errors { message path } } }""",
                  {"p": project.puid})["data"]["createSample"]
    assert made["errors"] == [] and made["sample"]["project"]["puid"] == project.puid
    assert made["sample"]["puid"].startswith("INXT_SAM_")
    updated = client("""mutation($s: ID!) { updateSampleMetadata(input: {samplePuid: $s,
      metadata: {serovar: "x"}}) { sample { metadata(keys: ["serovar"]) }
      errors { message path } } }""", {"s": sample.puid})["data"]["updateSampleMetadata"]
    assert updated == {"sample": {"metadata": {"serovar": "x"}}, "errors": []}
    bulk = client("""mutation($p: ID!, $m: JSON!) { bulkUpdateSampleMetadata(input:
      {projectPuid: $p, metadata: $m}) { overallStatus errors { message } } }""",
                  {"p": project.puid, "m": {sample.puid: {"serovar": "y"}}})
    assert bulk["data"]["bulkUpdateSampleMetadata"] == {"overallStatus": "successful",
                                                        "errors": []}
    neither = client("""mutation { createSample(input: {name: "LIS-10"})
      { sample { name } errors { message path } } }""")["data"]["createSample"]
    assert neither == {"sample": None, "errors": [{
        "message": "Give exactly one of projectId and projectPuid.", "path": ["projectId"]}]}
    unknown = client("""mutation { createSample(input: {projectPuid: "INXT_PRJ_AAAAAAAAAA",
      name: "LIS-11"}) { errors { message path } } }""")["data"]["createSample"]
    assert unknown["errors"] == [{"message": "Project not found by provided ID",
                                  "path": ["project"]}]


def test_nodes_answers_every_new_node_type(graphql, world, db):
    """``node``/``nodes`` return groups and memberships by global id, and nothing the
    caller may not read."""
    from seqcore.models.group import GroupMember

    membership = db.query(GroupMember).filter_by(group_id=world["lab"].id,
                                                 user_id=world["guest"].id).one()
    ids = [gid("Group", world["lab"].id), gid("Member", membership.id),
           gid("Group", world["partners"].id)]
    query = """query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Group { fullPath }
      ... on Member { accessLevel group { fullPath } user { email } } } }"""
    body = graphql.as_user(world["guest"])(query, {"ids": ids})
    assert body["data"]["nodes"][:2] == [
        {"id": ids[0], "fullPath": "lab"},
        {"id": ids[1], "accessLevel": "Guest", "group": {"fullPath": "lab"},
         "user": {"email": "guest@example.org"}}]
    assert body["data"]["nodes"][2] is None  # eve's group: shared with nobody guest is in
    assert body["errors"][0]["path"] == ["nodes", 2]
