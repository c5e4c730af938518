"""Attachments connections: IRIDA Next's filter and orderBy, keyset pages, and a statement
count that does not grow with the page (of samples, of groups, or of attachments)."""

from datetime import datetime, timedelta

from seqcore.models.attachment import Attachment
from tests.graphql.conftest import gid

PAGE = """query($first: Int) { samples(first: $first) { nodes { name attachmentsUpdatedAt
  attachments(first: 2) { totalCount nodes { filename } } } } }"""
GROUPS = """query($first: Int) { groups(first: $first) { nodes { name
  attachments(first: 2) { totalCount nodes { filename } } } } }"""
ONE = """query($id: ID!, $first: Int, $after: String, $filter: AttachmentFilter,
               $order: AttachmentOrder) {
  node(id: $id) { ... on Sample { attachments(first: $first, after: $after, filter: $filter,
                                              orderBy: $order) {
    totalCount pageInfo { hasNextPage endCursor } nodes { filename byteSize } } } } }"""


def test_statement_count_does_not_grow_with_the_page_of_samples(graphql, factories,
                                                                 sql_counter):
    owner = factories.user()
    project = factories.project(owner=owner)
    for n in range(40):
        sample = factories.sample(project, name=f"sample-{n:03d}")
        factories.attachment(sample=sample, file_name=f"s{n}_R1.fastq")
        factories.attachment(sample=sample, file_name=f"s{n}_notes.txt")
    graphql.as_user(owner)
    # The token's first use is recorded (apart, once a minute): measure requests after it.
    graphql("{ __typename }")
    counts = {}
    for size in (5, 40):
        with sql_counter:
            body = graphql(PAGE, {"first": size})
        assert "errors" not in body, body
        nodes = body["data"]["samples"]["nodes"]
        assert len(nodes) == size
        assert all(n["attachments"]["totalCount"] == 2 for n in nodes)
        assert all(len(n["attachments"]["nodes"]) == 2 for n in nodes)
        assert all(n["attachmentsUpdatedAt"] for n in nodes)
        counts[size] = sql_counter.count
    assert counts[5] == counts[40], sql_counter.statements
    print(f"SQL statements for 5 and 40 samples with their attachments: {counts}")


def test_statement_count_does_not_grow_with_the_page_of_groups(graphql, factories,
                                                                sql_counter):
    owner = factories.user()
    for n in range(30):
        group = factories.group(owner, name=f"group-{n:03d}", path=f"group-{n:03d}")
        factories.attachment(group=group, file_name=f"g{n}_protocol.txt")
        factories.attachment(group=group, file_name=f"g{n}_notes.txt")
    graphql.as_user(owner)
    # The token's first use is recorded (apart, once a minute): measure requests after it.
    graphql("{ __typename }")
    counts = {}
    for size in (5, 30):
        with sql_counter:
            body = graphql(GROUPS, {"first": size})
        assert "errors" not in body, body
        nodes = body["data"]["groups"]["nodes"]
        assert len(nodes) == size
        assert all(n["attachments"]["totalCount"] == 2 for n in nodes)
        assert all(len(n["attachments"]["nodes"]) == 2 for n in nodes)
        counts[size] = sql_counter.count
    assert counts[5] == counts[30], sql_counter.statements
    print(f"SQL statements for 5 and 30 groups with their attachments: {counts}")


def test_attachments_updated_at_is_the_latest_change(graphql, factories, db):
    owner = factories.user()
    project = factories.project(owner=owner)
    bare = factories.sample(project, name="bare")
    sample = factories.sample(project, name="with-files")
    older = factories.attachment(sample=sample, file_name="a.txt")
    newer = factories.attachment(sample=sample, file_name="b.txt")
    base = datetime(2025, 1, 2, 3, 4, 5)
    for pk, created, modified in ((older.id, base, base + timedelta(days=3)),
                                  (newer.id, base + timedelta(days=1), None)):
        row = db.get(Attachment, pk)
        row.created, row.modified = created, modified
    db.commit()
    body = graphql.as_user(owner)("""query($ids: [ID!]!) { nodes(ids: $ids) {
        ... on Sample { name attachmentsUpdatedAt } } }""",
                                  {"ids": [gid("Sample", bare.id), gid("Sample", sample.id)]})
    assert "errors" not in body, body
    found = {n["name"]: n["attachmentsUpdatedAt"] for n in body["data"]["nodes"]}
    assert found["bare"] is None
    assert found["with-files"].startswith("2025-01-05T03:04:05")


def test_statement_count_does_not_grow_with_the_page_of_attachments(graphql, factories,
                                                                     sql_counter):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    for n in range(100):
        factories.attachment(sample=sample, file_name=f"f{n:03d}.txt")
    graphql.as_user(owner)
    # The token's first use is recorded (apart, once a minute): measure requests after it.
    graphql("{ __typename }")
    counts = {}
    for size in (10, 100):
        with sql_counter:
            body = graphql(ONE, {"id": gid("Sample", sample.id), "first": size})
        assert len(body["data"]["node"]["attachments"]["nodes"]) == size
        counts[size] = sql_counter.count
    assert counts[10] == counts[100], sql_counter.statements


def test_filter_order_and_pages(graphql, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    for n, name in enumerate(["b.fastq", "a.fastq", "c.txt", "d.fasta"]):
        factories.attachment(sample=sample, file_name=name, size=10 * (n + 1))
    client = graphql.as_user(owner)
    sample_id = gid("Sample", sample.id)

    def names(**variables):
        body = client(ONE, {"id": sample_id, **variables})
        assert "errors" not in body, body
        return [n["filename"] for n in body["data"]["node"]["attachments"]["nodes"]]

    assert names() == ["b.fastq", "a.fastq", "c.txt", "d.fasta"]  # created_at asc
    assert names(order={"field": "filename", "direction": "desc"}) == [
        "d.fasta", "c.txt", "b.fastq", "a.fastq"]
    assert names(filter={"filename_cont": "fastq"}) == ["b.fastq", "a.fastq"]
    assert names(filter={"byte_size_gteq": "30"}) == ["c.txt", "d.fasta"]
    assert names(filter={"filename_in": ["c.txt", "a.fastq"]}) == ["a.fastq", "c.txt"]
    assert names(filter={"metadata_jcont": {"format": "fasta"}}) == ["d.fasta"]
    assert names(filter={"metadata_jcont_key": "type"}) == ["d.fasta"]
    first = client(ONE, {"id": sample_id, "first": 3,
                         "order": {"field": "filename"}})["data"]["node"]["attachments"]
    assert first["pageInfo"]["hasNextPage"] is True and first["totalCount"] == 4
    rest = client(ONE, {"id": sample_id, "first": 3, "after": first["pageInfo"]["endCursor"],
                        "order": {"field": "filename"}})["data"]["node"]["attachments"]
    assert [n["filename"] for n in rest["nodes"]] == ["d.fasta"]
    assert rest["totalCount"] == 4 and rest["pageInfo"]["hasNextPage"] is False
    bad = client(ONE, {"id": sample_id, "filter": {"byte_size_gt": "many"}})
    assert bad["errors"][0]["message"] == "byte_size_gt: 'many' is not an integer."


def test_attachments_of_unreadable_samples_are_hidden(graphql, factories):
    owner, outsider = factories.user(), factories.user()
    sample = factories.sample(factories.project(owner=owner))
    attachment = factories.attachment(sample=sample)
    body = graphql.as_user(outsider)('query($id: ID!) { node(id: $id) { id } }',
                                     {"id": gid("Attachment", attachment.id)})
    assert body["data"]["node"] is None and body["errors"]
    mine = graphql.as_user(owner)('query($id: ID!) { node(id: $id) { ... on Attachment { '
                                  'filename } } }', {"id": gid("Attachment", attachment.id)})
    assert mine["data"]["node"] == {"filename": "notes.txt"}


def test_filter_compares_case_as_the_database_like_does(graphql, factories, engine):
    """AttachmentFilter is declared case-sensitive: its ``cont``, ``start``, ``end`` and
    ``matches`` are the database's plain ``LIKE`` (case as given on PostgreSQL, as IRIDA
    Next's; SQLite's folds ASCII letters), where ProjectFilter's and GroupFilter's ignore case
    (``tests/graphql/test_groups.py``). ``i_cont`` ignores case everywhere; a flag that is not
    a no (``false``, ``f``, ``0``, empty) is a yes."""
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    for name in ("Reads.FASTQ", "notes.txt"):
        factories.attachment(sample=sample, file_name=name)
    client = graphql.as_user(owner)

    def names(**filter_):
        body = client(ONE, {"id": gid("Sample", sample.id), "filter": filter_})
        assert "errors" not in body, body
        return [n["filename"] for n in body["data"]["node"]["attachments"]["nodes"]]

    folded = ["Reads.FASTQ"] if engine.dialect.name == "sqlite" else []
    assert names(filename_cont="fastq") == folded
    assert names(filename_start="reads") == folded
    assert names(filename_end=".fastq") == folded
    assert names(filename_matches="%.fastq") == folded
    assert names(filename_cont="FASTQ") == ["Reads.FASTQ"]
    assert names(filename_i_cont="fastq") == ["Reads.FASTQ"]
    assert names(filename_not_i_cont="FASTQ") == ["notes.txt"]
    assert names(filename_null="no") == []
    assert names(filename_null="false") == ["Reads.FASTQ", "notes.txt"]
