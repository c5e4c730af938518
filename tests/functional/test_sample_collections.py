"""A project's sample collection: whole by default, streamed, optionally paged and filtered,
with a constant number of SQL statements."""

import pytest
from sqlalchemy import insert

from seqcore.models.sample import MetadataEntry, ProjectSample, Sample


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def project(factories, owner):
    return factories.project(owner=owner)


@pytest.fixture
def headers(factories, owner):
    return factories.headers(owner)


def bulk_samples(engine, project, count, fields=0, start=0):
    with engine.begin() as conn:
        ids = [start + i + 1 for i in range(count)]
        conn.execute(insert(Sample), [{"id": i, "name": f"S{i:06d}"} for i in ids])
        conn.execute(insert(ProjectSample), [
            {"project_id": project.id, "sample_id": i, "sample_name": f"S{i:06d}"} for i in ids])
        if fields:
            conn.execute(insert(MetadataEntry), [
                {"sample_id": i, "field": f"f{k}", "value": f"v{i}-{k}"}
                for i in ids for k in range(fields)])
    return ids


def listing(testapp, project, headers, query=""):
    return testapp.get(f"/api/projects/{project.id}/samples{query}", headers=headers).json


def test_whole_collection_with_links(testapp, factories, project, headers):
    samples = [factories.sample(project, name=f"S{i}") for i in range(3)]
    body = listing(testapp, project, headers)["resource"]
    assert [e["sampleName"] for e in body["resources"]] == ["S0", "S1", "S2"]
    assert body["links"] == [
        {"rel": "self", "href": f"http://localhost/api/projects/{project.id}/samples"},
        {"rel": "project/samples/metadata",
         "href": f"http://localhost/api/projects/{project.id}/samples/metadata"}]
    for sample, listed in zip(samples, body["resources"], strict=True):
        item = testapp.get(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
        assert listed == item.json["resource"]


def test_empty_collection(testapp, project, headers):
    assert listing(testapp, project, headers)["resource"]["resources"] == []


def test_paging(testapp, engine, project, headers):
    bulk_samples(engine, project, 25)
    first = listing(testapp, project, headers, "?limit=10")["resource"]
    assert [e["identifier"] for e in first["resources"]] == [str(i) for i in range(1, 11)]
    links = {link["rel"]: link["href"] for link in first["links"]}
    assert "prev" not in links
    second = testapp.get(links["next"].replace("http://localhost", ""), headers=headers).json
    assert second["resource"]["resources"][0]["identifier"] == "11"
    third = listing(testapp, project, headers, "?limit=10&page=3")["resource"]
    assert len(third["resources"]) == 5
    links = {link["rel"]: link["href"] for link in third["links"]}
    assert "next" not in links and links["prev"].endswith("page=2")


@pytest.mark.parametrize("query", ["?limit=0", "?limit=abc", "?limit=100000", "?page=0",
                                   "?limit=5&page=-1"])
def test_bad_paging_parameters(testapp, project, headers, query):
    res = testapp.get(f"/api/projects/{project.id}/samples{query}", headers=headers, status=400)
    assert set(res.json) <= {"limit", "page"}


def test_filters(testapp, factories, project, headers):
    factories.sample(project, name="Listeria-1", metadata={"serovar": "4b", "host": "cow"})
    factories.sample(project, name="Listeria-2", metadata={"serovar": "1/2a"})
    factories.sample(project, name="Salmonella-1", metadata={"serovar": "4b"})

    def names(query):
        return [e["sampleName"] for e in listing(testapp, project, headers, query)["resource"][
            "resources"]]

    assert names("?search=listeria") == ["Listeria-1", "Listeria-2"]
    assert names("?metadata.serovar=4b") == ["Listeria-1", "Salmonella-1"]
    assert names("?metadata.serovar=4b&search=list") == ["Listeria-1"]
    assert names("?metadata.serovar=4b&metadata.host=cow") == ["Listeria-1"]
    assert names("?search=%25") == []  # wildcards are literal


def test_constant_sql_statements(testapp, engine, sql_counter, project, headers):
    bulk_samples(engine, project, 5, fields=3)
    # The first request checks the token in the database; later ones find it in the cache.
    testapp.get(f"/api/projects/{project.id}", headers=headers)
    counts = []
    for total in (5, 500):
        if total > 5:
            bulk_samples(engine, project, total - 5, fields=3, start=5)
        for path in ("samples", "samples/metadata"):
            with sql_counter:
                res = testapp.get(f"/api/projects/{project.id}/{path}", headers=headers)
            assert len(res.json["resource"]["resources"]) == total
            counts.append((path, sql_counter.count))
    assert counts[0] == counts[2] and counts[1] == counts[3]


def test_head_of_a_streamed_collection(testapp, engine, project, headers):
    bulk_samples(engine, project, 3)
    res = testapp.head(f"/api/projects/{project.id}/samples", headers=headers)
    assert res.status_int == 200 and res.body == b""
