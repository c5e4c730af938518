"""GraphQL sees exactly what REST lets the caller read."""

import pytest

from seqcore.models.project import ProjectRole
from seqcore.models.user import SystemRole
from tests.graphql.conftest import gid


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    outsider = factories.user(username="outsider")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    sequencer = factories.user(SystemRole.SEQUENCER, username="sequencer")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER)])
    other = factories.project(owner=outsider, name="Outsider project")
    mine = factories.sample(project, name="visible", metadata={"k": "v"})
    hidden = factories.sample(other, name="hidden")
    shared = factories.sample(other, name="shared-in", also_in=[project])
    return dict(owner=owner, member=member, outsider=outsider, admin=admin,
                sequencer=sequencer, project=project, other=other, mine=mine, hidden=hidden,
                shared=shared)


def visible_names(graphql, user):
    body = graphql.as_user(user)("{ samples(first: 100) { totalCount nodes { name } } }")
    return sorted(n["name"] for n in body["data"]["samples"]["nodes"])


@pytest.mark.parametrize(("who", "expected"), [
    ("owner", ["shared-in", "visible"]),
    ("member", ["shared-in", "visible"]),
    ("outsider", ["hidden", "shared-in"]),
    ("admin", ["hidden", "shared-in", "visible"]),
    ("sequencer", ["hidden", "shared-in", "visible"]),
])
def test_samples_lists_only_readable_samples(graphql, world, who, expected):
    assert visible_names(graphql, world[who]) == expected


def test_rest_agrees(testapp, factories, world):
    """The same callers over REST: readable samples answer 200, the others 404."""
    for who in ("owner", "member", "outsider", "admin", "sequencer"):
        headers = factories.headers(world[who])
        for key in ("mine", "hidden", "shared"):
            status = testapp.get(f"/api/samples/{world[key].id}", headers=headers,
                                 expect_errors=True).status_int
            readable = key == "shared" or (key == "mine") == (who in ("owner", "member")) or \
                who in ("admin", "sequencer")
            assert status == (200 if readable else 404), (who, key)


def test_node_on_an_unreadable_sample_is_an_error(graphql, world):
    hidden = gid("Sample", world["hidden"].id)
    body = graphql.as_user(world["member"])(f'{{ node(id: "{hidden}") {{ id }} }}')
    assert body["data"] == {"node": None}
    assert body["errors"][0]["message"] == (f"Sample {hidden} was not found or is hidden due "
                                            "to permissions")
    assert body["errors"][0]["path"] == ["node"]
    missing = gid("Sample", 999999)
    body = graphql(f'{{ node(id: "{missing}") {{ id }} }}')
    assert body["errors"][0]["message"].startswith(f"Sample {missing} was not found")


def test_nodes_reports_each_unreadable_id(graphql, world):
    ids = [gid("Sample", world["mine"].id), gid("Sample", world["hidden"].id),
           gid("Project", world["project"].id), gid("User", world["member"].id)]
    body = graphql.as_user(world["member"])(
        "query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Sample { name } "
        "... on Project { fullPath } ... on User { email } } }", {"ids": ids})
    assert body["data"]["nodes"] == [
        {"id": ids[0], "name": "visible"}, None,
        {"id": ids[2], "fullPath": world["project"].full_path},
        {"id": ids[3], "email": world["member"].email}]
    assert [e["path"] for e in body["errors"]] == [["nodes", 1]]


@pytest.mark.parametrize(("value", "message"), [
    ("gid://seqcore/Sample/abc", "gid://seqcore/Sample/abc is not a valid seqcore ID."),
    ("gid://irida/Sample/1", "gid://irida/Sample/1 is not a valid seqcore ID."),
    ("5", "5 is not a valid seqcore ID."),
    ("gid://seqcore/Banana/1", "gid://seqcore/Banana/1 is not a valid ID for "
                               "AnalysisSubmission, Attachment, DataExport, Group, Member, "
                               "NcbiSubmission, Project, Sample, SamplesWorkflowExecution, User, "
                               "WorkflowExecution"),
])
def test_malformed_ids(graphql, world, value, message):
    body = graphql.as_user(world["owner"])("query($id: ID!) { node(id: $id) { id } }",
                                           {"id": value})
    assert body["errors"][0]["message"] == message


def test_project_by_full_path_hides_unreadable_projects(graphql, world):
    path = world["other"].full_path
    assert graphql.as_user(world["member"])(
        f'{{ project(fullPath: "{path}") {{ name }} }}') == {"data": {"project": None}}
    assert graphql.as_user(world["outsider"])(
        f'{{ project(fullPath: "{path}") {{ name }} }}') == {
        "data": {"project": {"name": "Outsider project"}}}


def test_sample_project_is_one_the_caller_can_read(graphql, world):
    """A sample shared into the member's project shows that project, not its owner's."""
    shared = gid("Sample", world["shared"].id)
    query = f'{{ node(id: "{shared}") {{ ... on Sample {{ project {{ name }} }} }} }}'
    assert graphql.as_user(world["member"])(query)["data"]["node"]["project"] == {
        "name": world["project"].name}
    assert graphql.as_user(world["outsider"])(query)["data"]["node"]["project"] == {
        "name": "Outsider project"}


def test_other_users_are_visible_as_rest_allows(graphql, world):
    query = f'{{ node(id: "{gid("User", world["owner"].id)}") {{ ... on User {{ email }} }} }}'
    assert graphql.as_user(world["member"])(query)["data"]["node"] == {
        "email": world["owner"].email}
    body = graphql.as_user(world["sequencer"])(query)
    assert body["data"]["node"] is None
