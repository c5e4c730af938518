"""The queries of IRIDA Next's GraphQL documentation return the documented shapes."""

import base64

from tests.graphql.conftest import gid


def test_current_user(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)("query { currentUser { email } }")
    assert body == {"data": {"currentUser": {"email": "user0@email.com"}}}


def test_samples_first_five(graphql, outbreak):
    owner, _, samples = outbreak
    body = graphql.as_user(owner)("query { samples(first: 5) { nodes { name id } } }")
    assert body == {"data": {"samples": {"nodes": [
        {"name": s.name, "id": gid("Sample", s.id)} for s in samples]}}}


def test_sample_detail_through_node(graphql, outbreak):
    owner, project, samples = outbreak
    sample = samples[0]
    sample_id = gid("Sample", sample.id)
    body = graphql.as_user(owner)(
        f'query {{ node(id: "{sample_id}") {{ ... on Sample {{ id, name description metadata '
        "project { id, fullPath } } } }")
    assert body == {"data": {"node": {
        "id": gid("Sample", sample.id),
        "name": "Outbreak-2022-Sample-1",
        "description": "Sample 1",
        "metadata": {"age": "31", "collection_date": "2024-01-15", "country": "Canada"},
        "project": {"id": gid("Project", project.id), "fullPath": "user0/outbreak-2022"},
    }}}


def test_curl_token_example_with_the_brace_corrected(testapp, factories, outbreak):
    """The documented curl call: Basic base64(email:token), JSON body; the documentation's
    body has one closing brace too many, corrected here."""
    owner, _, _ = outbreak
    token = factories.access_token(owner, scopes=("read_api",))
    encoded = base64.b64encode(f"user0@email.com:{token}".encode()).decode()
    response = testapp.post(
        "/api/graphql", '{"query": "query {currentUser{email}}"}',
        headers={"Authorization": f"Basic {encoded}", "Content-Type": "application/json"})
    assert response.status_int == 200
    assert response.json == {"data": {"currentUser": {"email": "user0@email.com"}}}


def test_the_documented_stray_brace_is_a_syntax_error(graphql, outbreak):
    owner, _, _ = outbreak
    body = graphql.as_user(owner)("query {currentUser{email}}}")
    assert "data" not in body
    assert body["errors"][0]["message"].startswith("Syntax Error")
