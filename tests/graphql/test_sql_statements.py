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
    # Token check and last-use, the page, its metadata, its projects.
    assert counts[100] <= 6, sql_counter.statements
