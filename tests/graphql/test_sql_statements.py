"""No N+1: a page of samples with metadata and project costs the same at any size."""

QUERY = """query($first: Int) { samples(first: $first) {
  nodes { name metadata project { fullPath } } } }"""


def test_statement_count_does_not_grow_with_the_page(graphql, factories, sql_counter):
    owner = factories.user()
    projects = [factories.project(owner=owner, name=f"Project {n:02d}") for n in range(5)]
    for n in range(100):
        factories.sample(projects[n % 5], name=f"sample-{n:03d}",
                         metadata={"country": "Canada", "n": str(n)})
    graphql.as_user(owner)
    # The token's first use is recorded (apart, once a minute): measure requests after it.
    graphql("{ __typename }")
    counts = {}
    for size in (10, 100):
        with sql_counter:
            body = graphql(QUERY, {"first": size})
        nodes = body["data"]["samples"]["nodes"]
        assert len(nodes) == size
        assert all(node["metadata"]["country"] == "Canada" for node in nodes)
        assert all(node["project"]["fullPath"].startswith(owner.username) for node in nodes)
        counts[size] = sql_counter.count
    assert counts[10] == counts[100]
    print(f"SQL statements at 10 and 100: {counts}")
    # Token check, the page, its metadata, its projects.
    assert counts[100] <= 6, sql_counter.statements


GROUP_TREE = """query($first: Int) { groups(first: $first) { totalCount nodes {
  name fullName parent { fullPath }
  descendantGroups { totalCount nodes { fullPath } }
  projects(includeSubGroups: true) { totalCount nodes { fullPath fullName metadataSummary
    parent { fullPath } } }
  members { totalCount nodes { accessLevel user { email userType } } }
} } }"""


def test_group_tree_costs_the_same_at_any_page_size(build_app, factories, sql_counter):
    """A page of groups with their parents, subgroups, projects (with their namespaces and
    metadata summaries) and members: one statement per kind of thing, not per group. (The
    query costs more than the default complexity limit allows; the limit is raised here to
    measure statements, and ``test_limits`` holds that the limit covers these fields.)"""
    from seqcore.testing.fixtures import GraphQLClient

    graphql = GraphQLClient(build_app(**{"seqcore.graphql.max_complexity": 10**6}), factories)
    owner = factories.user()
    member = factories.user()
    for t in range(10):  # each page, of 10 or 100, holds tops and subgroups
        top = factories.group(owner, name=f"Top {t:02d}", members=[(member, 10)])
        for n in range(9):
            group = factories.group(owner, name=f"Sub {t}-{n}", parent=top)
            project = factories.project(owner=owner, name=f"Project {t}-{n}", group=group)
            factories.sample(project, name=f"s-{t}-{n}", metadata={"n": str(n)})
    graphql.as_user(member)
    # The token's first use is recorded (apart, once a minute): measure requests after it.
    graphql("{ __typename }")
    counts = {}
    for size in (10, 100):
        with sql_counter:
            body = graphql(GROUP_TREE, {"first": size})
        nodes = body["data"]["groups"]["nodes"]
        assert len(nodes) == size, body.get("errors")
        tops_seen = [n for n in nodes if n["parent"] is None]
        assert all(n["descendantGroups"]["totalCount"] == 9 for n in tops_seen)
        assert all(n["projects"]["totalCount"] == 9 for n in tops_seen)
        assert all(n["members"]["nodes"][0]["user"]["userType"] == "human" for n in nodes)
        counts[size] = sql_counter.count
    print(f"SQL statements for the group tree at 10 and 100: {counts}")
    assert counts[10] == counts[100]
    # Token check, the page and its count, parents, subgroups and their
    # counts, projects and their counts, namespaces, metadata summaries, members and their
    # counts, users.
    assert counts[100] <= 14, sql_counter.statements
