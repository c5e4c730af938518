"""Limits count what a query returns: ``nodes(ids:)`` per id, aliased introspection, and
the size of the answer itself. Each shape here is one an attacker used to turn a small
request into a large answer."""

import json

import pytest
from sqlalchemy import func, select

from seqcore.models.project import Project
from tests.graphql.conftest import gid

HEAVY = "id ... on Sample { name description metadata project { id name fullPath } }"


@pytest.fixture
def owner_and_samples(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, name="Big")
    samples = [factories.sample(project, name=f"s-{n}", metadata={"country": "Canada"})
               for n in range(3)]
    return owner, samples


def test_nodes_counts_every_id(graphql, owner_and_samples):
    owner, samples = owner_and_samples
    graphql.as_user(owner)
    ids = [gid("Sample", samples[n % 3].id) for n in range(200)]
    body = graphql(f"query($ids: [ID!]!) {{ nodes(ids: $ids) {{ {HEAVY} }} }}", {"ids": ids})
    assert "data" not in body
    assert body["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    assert body["errors"][0]["message"] == ("Query has complexity of 1601, which exceeds max "
                                            "complexity of 550")
    # Written into the query instead of a variable: the same.
    inline = json.dumps(ids)
    body = graphql(f"{{ nodes(ids: {inline}) {{ {HEAVY} }} }}")
    assert body["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    # What fits is answered in full.
    body = graphql(f"query($ids: [ID!]!) {{ nodes(ids: $ids) {{ {HEAVY} }} }}",
                   {"ids": ids[:60]})
    assert "errors" not in body
    assert len(body["data"]["nodes"]) == 60


def test_aliased_introspection_counts(graphql, factories):
    graphql.as_user(factories.user())
    one = "__schema { types { name fields { name type { name } } } }"
    query = "{ " + " ".join(f"a{n}: {one}" for n in range(60)) + " }"
    res = graphql.testapp.post_json("/api/graphql", {"query": query}, headers=graphql.headers)
    assert res.json["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    assert "data" not in res.json
    assert len(res.body) < 1000
    # Aliased __type and __typename count too...
    body = graphql("{ " + " ".join(f"t{n}: __type(name: \"Sample\") {{ fields {{ name }} }}"
                                   for n in range(60)) + " }")
    assert body["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    body = graphql("{ " + " ".join(f"t{n}: __typename" for n in range(600)) + " }")
    assert body["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    # ...while one of each, under its own name or an alias, is answered.
    body = graphql('{ __typename t: __type(name: "Sample") { name } __schema { queryType '
                   "{ name } } }")
    assert body == {"data": {"__typename": "Query", "t": {"name": "Sample"},
                             "__schema": {"queryType": {"name": "Query"}}}}


def test_the_answer_size_is_bounded(build_app, factories, db):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, name="Big")
    for n in range(5):
        factories.sample(project, name=f"s-{n}", metadata={"notes": "x" * 1000})
    app = build_app(**{"seqcore.graphql.max_response_bytes": 3000})
    headers = factories.graphql_headers(owner)
    res = app.post_json("/api/graphql", {"query": "{ samples { nodes { name metadata } } }"},
                        headers=headers)
    assert res.json == {"data": None, "errors": [{
        "message": "The answer is larger than 3000 bytes (seqcore.graphql.max_response_bytes);"
                   " ask for fewer objects or fields.",
        "extensions": {"code": "response_too_large"}}]}
    # A smaller answer is sent as it is.
    res = app.post_json("/api/graphql", {"query": "{ samples(first: 2) { nodes { name } } }"},
                        headers=headers)
    assert res.json == {"data": {"samples": {"nodes": [{"name": "s-0"}, {"name": "s-1"}]}}}
    # A mutation whose answer is too large is not saved: nobody would learn what was.
    mutation = """mutation($d: String) { createProject(input: {name: "Lost project",
        description: $d}) { project { description } errors { message } } }"""
    res = app.post_json("/api/graphql", {"query": mutation, "variables": {"d": "d" * 4000}},
                        headers=headers)
    assert res.json["data"] is None
    assert res.json["errors"][0]["extensions"]["code"] == "response_too_large"
    assert res.json["errors"][0]["message"].endswith("Nothing in this request was saved.")
    assert db.scalar(select(func.count()).select_from(Project).where(
        Project.name == "Lost project")) == 0


def test_the_default_bound_lets_a_full_page_through(graphql, factories):
    """The default lets a full page of samples with generous metadata through."""
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    for n in range(100):
        factories.sample(project, name=f"s-{n}", metadata={f"f{k}": "v" * 200
                                                            for k in range(20)})
    body = graphql.as_user(owner)("{ samples(first: 100) { nodes { name metadata } } }")
    assert "errors" not in body
    assert len(body["data"]["samples"]["nodes"]) == 100


def test_limits_cover_the_group_tree(graphql, factories):
    """The group fields count like every other: nested connections multiply their page
    sizes, and nesting groups in groups is refused past the depth limit."""
    owner = factories.user(username="tree-owner")
    factories.group(owner, name="Root", path="root")
    graphql.as_user(owner)
    wide = graphql("""{ groups(first: 100) { nodes { name
      descendantGroups(first: 100) { nodes { name projects { nodes { name } } } } } } }""")
    assert "data" not in wide
    assert wide["errors"][0]["extensions"]["code"] == "max_complexity_exceeded"
    deep = "{ groups(first: 1) { nodes { " + "parent { " * 14 + "name" + " }" * 14 + " } } }"
    body = graphql(deep)
    assert body["errors"][0]["extensions"]["code"] == "max_depth_exceeded"
    small = graphql("""{ groups(first: 5) { nodes { fullName
      descendantGroups(first: 5) { nodes { name } } members(first: 5) { nodes
      { accessLevel } } } } }""")
    assert small["data"]["groups"]["nodes"][0]["fullName"] == "Root"
