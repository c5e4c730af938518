"""Connections: default page, clamping, cursors forwards and backwards, totalCount."""

import pytest

PAGE = """query($first: Int, $last: Int, $after: String, $before: String) {
  samples(first: $first, last: $last, after: $after, before: $before,
          orderBy: {field: name, direction: asc}) {
    totalCount
    nodes { name }
    edges { cursor node { name } }
    pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
  }
}"""


@pytest.fixture
def thirty(factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    for n in range(30):
        factories.sample(project, name=f"s-{n:02d}")
    return owner


def names(body):
    return [n["name"] for n in body["data"]["samples"]["nodes"]]


def test_default_page_is_25_and_total_counts_all(graphql, thirty):
    body = graphql.as_user(thirty)(PAGE)
    page = body["data"]["samples"]
    assert len(page["nodes"]) == 25
    assert page["totalCount"] == 30
    assert page["pageInfo"]["hasNextPage"] is True
    assert page["pageInfo"]["hasPreviousPage"] is False
    assert [e["node"]["name"] for e in page["edges"]] == names(body)
    assert page["pageInfo"]["startCursor"] == page["edges"][0]["cursor"]
    assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]


def test_forwards_through_every_page(graphql, thirty):
    graphql.as_user(thirty)
    seen, after = [], None
    while True:
        body = graphql(PAGE, {"first": 7, "after": after})
        seen += names(body)
        info = body["data"]["samples"]["pageInfo"]
        if not info["hasNextPage"]:
            break
        after = info["endCursor"]
    assert seen == [f"s-{n:02d}" for n in range(30)]


def test_backwards_through_every_page(graphql, thirty):
    graphql.as_user(thirty)
    seen, before = [], None
    while True:
        body = graphql(PAGE, {"last": 8, "before": before})
        seen = names(body) + seen
        info = body["data"]["samples"]["pageInfo"]
        if not info["hasPreviousPage"]:
            break
        before = info["startCursor"]
    assert seen == [f"s-{n:02d}" for n in range(30)]


def test_a_page_between_two_cursors(graphql, thirty):
    graphql.as_user(thirty)
    edges = graphql(PAGE, {"first": 30})["data"]["samples"]["edges"]
    body = graphql(PAGE, {"first": 100, "after": edges[4]["cursor"],
                          "last": 100, "before": edges[9]["cursor"]})
    assert names(body) == ["s-05", "s-06", "s-07", "s-08"]


def test_descending_order_and_created_at_cursors(graphql, thirty):
    graphql.as_user(thirty)
    query = """query($after: String) { samples(first: 10, after: $after,
        orderBy: {field: created_at, direction: desc}) { nodes { name }
        pageInfo { endCursor } } }"""
    first = graphql(query)["data"]["samples"]
    second = graphql(query, {"after": first["pageInfo"]["endCursor"]})["data"]["samples"]
    everything = [n["name"] for n in first["nodes"] + second["nodes"]]
    assert everything == [f"s-{n:02d}" for n in range(29, 9, -1)]


@pytest.mark.parametrize(("size", "expected"), [(1000, 30), (-5, 0), (0, 0)])
def test_first_is_clamped_silently(graphql, thirty, size, expected):
    body = graphql.as_user(thirty)(PAGE, {"first": size})
    assert "errors" not in body
    assert len(names(body)) == expected


def test_first_over_100_returns_100(graphql, factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    for n in range(105):
        factories.sample(project, name=f"x-{n:03d}")
    body = graphql.as_user(owner)(PAGE, {"first": 500})
    assert len(names(body)) == 100


@pytest.mark.parametrize("cursor", ["not-a-cursor", "W3RydWUsMV0", "WyJ4Il0", "e30"])
def test_a_malformed_cursor_is_an_error(graphql, thirty, cursor):
    body = graphql.as_user(thirty)(PAGE, {"first": 5, "after": cursor})
    assert body["data"]["samples"] is None
    assert body["errors"][0]["message"].startswith("Invalid cursor")


def test_empty_cursors_are_absent(graphql, thirty):
    body = graphql.as_user(thirty)(PAGE, {"first": 3, "after": ""})
    assert names(body) == ["s-00", "s-01", "s-02"]


def test_after_with_last_needs_first(graphql, thirty):
    graphql.as_user(thirty)
    cursor = graphql(PAGE, {"first": 1})["data"]["samples"]["pageInfo"]["endCursor"]
    body = graphql(PAGE, {"last": 2, "after": cursor})
    assert "you must also provide `first`" in body["errors"][0]["message"]
    body = graphql(PAGE, {"first": 2, "before": cursor})
    assert "you must also provide `last`" in body["errors"][0]["message"]


def test_project_samples_and_projects_connections(graphql, factories):
    owner = factories.user(username="carol")
    for n in range(3):
        project = factories.project(owner=owner, name=f"Project number {n}")
        for m in range(n + 1):
            factories.sample(project, name=f"p{n}-s{m}")
    body = graphql.as_user(owner)("""{ projects(first: 2) { totalCount nodes { name fullPath
        samples(first: 1) { totalCount nodes { name } } } pageInfo { hasNextPage } } }""")
    projects = body["data"]["projects"]
    assert projects["totalCount"] == 3
    assert projects["pageInfo"]["hasNextPage"] is True
    assert projects["nodes"] == [
        {"name": "Project number 0", "fullPath": "carol/project-number-0",
         "samples": {"totalCount": 1, "nodes": [{"name": "p0-s0"}]}},
        {"name": "Project number 1", "fullPath": "carol/project-number-1",
         "samples": {"totalCount": 2, "nodes": [{"name": "p1-s0"}]}},
    ]
    body = graphql('{ project(fullPath: "carol/project-number-2") { name samples { nodes '
                   "{ name } } } }")
    assert body["data"]["project"] == {"name": "Project number 2", "samples": {"nodes": [
        {"name": "p2-s0"}, {"name": "p2-s1"}, {"name": "p2-s2"}]}}
    body = graphql('{ project(fullPath: "carol/nothing-here") { name } }')
    assert body == {"data": {"project": None}}
