"""GraphQL input that must be refused cleanly, never an internal error, and change nothing.

Global ids whose number is not an id (``²``, other scripts' digits, beyond an id column), cursors
that do not match their ordering, lone surrogates, deep nesting and unknown charsets in the
request, and metadata keys that collide once trimmed: each is refused with a GraphQL error
or a payload error (HTTP 400 for a request that cannot be read), and nothing is written.
"""

import base64
import json

import pytest

from seqcore.models.user import SystemRole
from tests.dbstate import snapshot

BAD_NUMBERS = ["²", "¹²", "\u0661\u0662", "\uff11\uff12",
               "99999999999999999999", str(2**31), str(2**63), str(2**64),
               "1" * 5000, "-1", "1.0", "1e3", ""]


def gid(kind, pk):
    return f"gid://seqcore/{kind}/{pk}"


@pytest.fixture
def world(factories):
    owner = factories.user(SystemRole.USER, username="owner")
    project = factories.project(owner=owner, name="Project one")
    other = factories.project(owner=owner, name="Project two")
    sample = factories.sample(project, name="sample-1", metadata={"serovar": "Typhi"})
    factories.sample(project, name="sample-2")
    factories.sequencing_object(sample, "pairs")
    return {"owner": owner, "project": project, "other": other, "sample": sample}


@pytest.fixture
def headers(factories, world):
    """The owner's personal access token (made before :func:`unchanged` looks)."""
    return factories.graphql_headers(world["owner"])


@pytest.fixture
def client(graphql, headers):
    graphql.headers = headers
    return graphql


@pytest.fixture
def unchanged(db, world, headers):
    before = snapshot(db)
    yield
    assert snapshot(db) == before


def no_internal_error(body):
    for error in body.get("errors") or []:
        assert (error.get("extensions") or {}).get("code") != "internal_error", error
        assert error["message"] != "Internal server error.", error


def refused(body, payload_name=None):
    """The documented shapes of a refusal: top-level ``errors`` with a message, or a
    payload whose ``errors`` name a message and a path."""
    no_internal_error(body)
    if body.get("errors"):
        assert all(isinstance(e["message"], str) and e["message"] for e in body["errors"])
        return [e["message"] for e in body["errors"]]
    payload = body["data"][payload_name]
    assert payload["errors"], payload
    assert all(e["message"] and isinstance(e["path"], list) for e in payload["errors"])
    return [e["message"] for e in payload["errors"]]


# (name, document, variables from a bad id and the world, payload field or None)
OPERATIONS = [
    ("node", "query($id: ID!) { node(id: $id) { id } }",
     lambda bad, w: {"id": bad("Sample")}, None),
    ("nodes", "query($ids: [ID!]!) { nodes(ids: $ids) { id } }",
     lambda bad, w: {"ids": [gid("Sample", w["sample"].id), bad("Sample")]}, None),
    ("createSample", """mutation($input: CreateSampleInput!) { createSample(input: $input) {
        sample { id } errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": bad("Project"), "name": "sample-new"}},
     "createSample"),
    ("updateSampleMetadata", """mutation($input: UpdateSampleMetadataInput!) {
        updateSampleMetadata(input: $input) { sample { id } errors { message path } } }""",
     lambda bad, w: {"input": {"sampleId": bad("Sample"), "metadata": {"a": "b"}}},
     "updateSampleMetadata"),
    ("bulkUpdateSampleMetadata by project", """mutation($input: BulkUpdateSampleMetadataInput!)
        { bulkUpdateSampleMetadata(input: $input) { status errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": bad("Project"),
                               "metadata": {"sample-1": {"a": "b"}}}},
     "bulkUpdateSampleMetadata"),
    ("bulkUpdateSampleMetadata by sample", """mutation($input: BulkUpdateSampleMetadataInput!)
        { bulkUpdateSampleMetadata(input: $input) { status errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": gid("Project", w["project"].id),
                               "metadata": {bad("Sample"): {"a": "b"}}}},
     "bulkUpdateSampleMetadata"),
    ("copySamples", """mutation($input: CloneSamplesInput!) { copySamples(input: $input) {
        samples errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": gid("Project", w["project"].id),
                               "newProjectId": gid("Project", w["other"].id),
                               "sampleIds": [bad("Sample")]}}, "copySamples"),
    ("shareSamples", """mutation($input: ShareSamplesInput!) { shareSamples(input: $input) {
        samples errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": gid("Project", w["project"].id),
                               "newProjectId": gid("Project", w["other"].id),
                               "sampleIds": [bad("Sample")]}}, "shareSamples"),
    ("transferSamples target", """mutation($input: TransferSamplesInput!) {
        transferSamples(input: $input) { samples errors { message path } } }""",
     lambda bad, w: {"input": {"projectId": gid("Project", w["project"].id),
                               "newProjectId": bad("Project"),
                               "sampleIds": [gid("Sample", w["sample"].id)]}},
     "transferSamples"),
    ("launchAnalysis", """mutation($input: LaunchAnalysisInput!) { launchAnalysis(input: $input)
        { submission { id } errors { message path } } }""",
     lambda bad, w: {"input": {"analysisType": "readcount", "sampleIds": [bad("Sample")],
                               "projectIds": [gid("Project", w["project"].id)]}},
     "launchAnalysis"),
    ("launchAnalysis project", """mutation($input: LaunchAnalysisInput!) {
        launchAnalysis(input: $input) { submission { id } errors { message path } } }""",
     lambda bad, w: {"input": {"analysisType": "readcount",
                               "sampleIds": [gid("Sample", w["sample"].id)],
                               "projectIds": [bad("Project")]}}, "launchAnalysis"),
]


@pytest.mark.parametrize("number", BAD_NUMBERS)
@pytest.mark.parametrize(("name", "document", "variables", "payload"),
                         [pytest.param(*op, id=op[0]) for op in OPERATIONS])
def test_a_global_id_whose_number_is_not_an_id_is_refused(client, world, unchanged, name,
                                                          document, variables, payload,
                                                          number):
    body = client(
        document, variables(lambda kind: gid(kind, number), world))
    messages = refused(body, payload)
    assert any("not a valid" in m or "not found" in m.lower() for m in messages), messages


def test_the_largest_id_is_valid_and_simply_not_found(client, world):
    body = client("query($id: ID!) { node(id: $id) { id } }",
                                           {"id": gid("Sample", 2**31 - 1)})
    no_internal_error(body)
    assert body["data"]["node"] is None


# -- cursors -----------------------------------------------------------------------------------

PAGE = """query($first: Int, $last: Int, $after: String, $before: String,
             $field: SampleOrderField!) {
  samples(first: $first, last: $last, after: $after, before: $before,
          orderBy: {field: $field, direction: asc}) { nodes { name } } }"""


def cursor(raw):
    text = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


BAD_CURSORS = {
    "id beyond 64 bits": ["sample-1", 2**70],
    "id of 2**63": ["sample-1", 2**63],
    "id of 2**31": ["sample-1", 2**31],
    "negative id": ["sample-1", -1],
    "id as digits": ["sample-1", "²"],
    "id as a float": ["sample-1", 1.5],
    "id as a boolean": ["sample-1", True],
    "number for a name": [12, 1],
    "float for a name": [1.5, 1],
    "list for a name": [["sample-1"], 1],
    "null for a name": [None, 1],
    "lone surrogate": ["\ud800", 1],
    "three items": ["sample-1", 1, 2],
    "an object": {"a": 1, "b": 2},
    "deep": b"[" * 50_000 + b"]" * 50_000,
    "5,000-digit id": b'["sample-1", ' + b"1" * 5000 + b"]",
    "NaN": b'["sample-1", NaN]',
    "not base64": "@@@@",
    "not UTF-8": b"\xff\xfe",
    "huge": "A" * 100_000,
}


@pytest.mark.parametrize("which", ["after", "before"])
@pytest.mark.parametrize("field", ["name", "created_at"])
@pytest.mark.parametrize("bad", list(BAD_CURSORS))
def test_a_cursor_that_does_not_match_its_ordering_is_an_error(client, world, bad, field,
                                                               which):
    raw = BAD_CURSORS[bad]
    value = raw if isinstance(raw, str) and bad in ("not base64", "huge") else cursor(raw)
    size = "first" if which == "after" else "last"
    body = client(PAGE, {which: value, size: 1, "field": field})
    messages = refused(body)
    assert messages[0].startswith("Invalid cursor"), messages


def test_a_name_cursor_is_not_a_time(client, world):
    body = client(PAGE, {"after": cursor(["not a time", 1]), "first": 1,
                         "field": "created_at"})
    assert refused(body)[0].startswith("Invalid cursor")


def test_cursors_handed_out_still_work(client, world):
    first = client("""query { samples(first: 1, orderBy: {field: name, direction: asc}) {
        nodes { name } pageInfo { endCursor } } }""")["data"]["samples"]
    body = client(PAGE, {"after": first["pageInfo"]["endCursor"], "first": 1, "field": "name"})
    assert body["data"]["samples"]["nodes"] == [{"name": "sample-2"}]


# -- requests that cannot be read --------------------------------------------------------------

QUERY = "query($name: String) { samples(filter: {name_cont: $name}) { nodes { name } } }"


def post(testapp, headers, body, content_type="application/json"):
    return testapp.post("/api/graphql", body, headers={**headers, "Content-Type": content_type},
                        expect_errors=True)


@pytest.mark.parametrize(("label", "body", "expected"), [
    ("surrogate in a variable", json.dumps({"query": QUERY, "variables": {"name": "\ud800"}}),
     "surrogate"),
    ("surrogate in a variable's key", json.dumps({"query": QUERY,
                                                  "variables": {"\udfff": "x"}}), "surrogate"),
    ("surrogate in the query text",
     json.dumps({"query": '{ samples(filter: {name_cont: "\ud800"}) { nodes { name } } }'}),
     "surrogate"),
    ("surrogate in the operation name", json.dumps({"query": QUERY,
                                                    "operationName": "\ud800"}), "surrogate"),
    ("surrogate in variables sent as a string",
     json.dumps({"query": QUERY, "variables": json.dumps({"name": "\ud800"})}), "surrogate"),
    ("deep variables", '{"query": "' + QUERY + '", "variables": {"name": '
     + "[" * 50_000 + "]" * 50_000 + "}}", "nested at most 32 deep"),
    ("deep variables as a string", json.dumps({"query": QUERY, "variables":
                                               "[" * 50_000 + "]" * 50_000}),
     "nested at most 32 deep"),
    ("40 levels", json.dumps({"query": QUERY, "variables": {"name": json.loads(
        "[" * 40 + "]" * 40)}}), "nested at most 32 deep"),
    ("a 5,000-digit number", '{"query": "' + QUERY + '", "x": ' + "9" * 5000 + "}", "too long"),
    ("NaN", '{"query": "' + QUERY + '", "variables": {"name": NaN}}', "not a JSON number"),
])
def test_a_request_that_cannot_be_read_is_400(testapp, headers, world, unchanged, label,
                                              body, expected):
    res = post(testapp, headers, body.encode())
    assert res.status_int == 400, (label, res.status, res.body[:300])
    assert res.json["errors"][0]["extensions"] == {"code": "bad_request"}
    assert expected in res.json["errors"][0]["message"]


@pytest.mark.parametrize("charset", ["foo", "rot13", "hex", "punycode", "x" * 5000])
def test_an_unknown_charset_is_400(testapp, headers, world, unchanged, charset):
    res = post(testapp, headers, json.dumps({"query": QUERY}).encode(),
               f"application/json; charset={charset}")
    assert res.status_int == 400, res.body[:300]
    assert res.json["errors"][0]["extensions"] == {"code": "bad_request"}
    assert "charset" in res.json["errors"][0]["message"]


def test_a_declared_charset_is_read(testapp, headers, world):
    res = post(testapp, headers, json.dumps({"query": QUERY, "variables": {
        "name": "sample-1"}}).encode("utf-16"), "application/json; charset=utf-16")
    assert res.json["data"]["samples"]["nodes"] == [{"name": "sample-1"}]


@pytest.mark.parametrize("query", ["%ED%A0%80", "%FF", "%C0%80"])
def test_a_query_string_that_is_not_utf8_is_refused(testapp, headers, world, query):
    res = testapp.get(f"/api/graphql?query={{samples{{nodes{{name}}}}}}%23{query}",
                      headers=headers, expect_errors=True)
    assert res.status_int < 500, res.body[:300]
    if res.status_int == 200:
        assert res.json["data"]["samples"]["nodes"]


def test_a_deep_query_document_is_refused(client, world):
    query = "{ samples(filter: {name_cont: " + "[" * 5000 + "]" * 5000 + "}) { nodes { name } } }"
    body = client(query)
    assert refused(body)


# -- metadata keys that collide once trimmed ----------------------------------------------------

UPDATE = """mutation($input: UpdateSampleMetadataInput!) { updateSampleMetadata(input: $input)
  { sample { metadata } status errors { message path } } }"""
BULK = """mutation($input: BulkUpdateSampleMetadataInput!) {
  bulkUpdateSampleMetadata(input: $input) { status overallStatus errors { message path } } }"""


@pytest.mark.parametrize("metadata", [
    {"serovar": "Paratyphi", " serovar": ""},
    {" host": "human", "host ": "cow"},
    {"host": "human", "host\t": None},
    json.dumps({" host": "human", "host ": None}),
])
def test_metadata_keys_that_collide_once_trimmed_are_refused(client, world, unchanged,
                                                             metadata):
    body = client(UPDATE, {"input": {
        "sampleId": gid("Sample", world["sample"].id), "metadata": metadata}})
    payload = body["data"]["updateSampleMetadata"]
    assert payload["sample"] is None
    keys = list(metadata if isinstance(metadata, dict) else json.loads(metadata))
    assert payload["errors"] == [{
        "message": f"Names the same field as {keys[0]!r} (field names are trimmed); send "
                   "each field once.", "path": ["metadata", keys[1]]}]


def test_bulk_metadata_keys_that_collide_once_trimmed_are_refused(client, world, unchanged):
    body = client(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"sample-1": {"host": "human", " host": None}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    assert payload["overallStatus"] == "unsuccessful"
    assert payload["errors"] == [{
        "message": "Names the same field as 'host' (field names are trimmed); send each field "
                   "once.", "path": ["metadata", "sample-1", " host"]}]


def test_bulk_metadata_naming_one_sample_twice_is_refused(client, world, unchanged):
    sample_gid = gid("Sample", world["sample"].id)
    body = client(BULK, {"input": {
        "projectId": gid("Project", world["project"].id),
        "metadata": {"sample-1": {"host": "human"}, sample_gid: {"host": "cow"}}}})
    payload = body["data"]["bulkUpdateSampleMetadata"]
    no_internal_error(body)
    assert payload["overallStatus"] == "unsuccessful"
    assert payload["errors"] == [{
        "message": "Names the same sample as 'sample-1'; send each sample once.",
        "path": ["metadata", sample_gid]}]


@pytest.mark.parametrize("metadata", [
    '{"a": "\\ud800"}', '{"\\udc00": "x"}', "[" * 50_000 + "]" * 50_000,
    '{"a": ' + "1" * 5000 + "}",
])
def test_metadata_sent_as_a_json_string_is_checked_like_a_body(client, world, unchanged,
                                                               metadata):
    body = client(UPDATE, {"input": {
        "sampleId": gid("Sample", world["sample"].id), "metadata": metadata}})
    messages = refused(body, "updateSampleMetadata")
    assert "could not be parsed" in messages[0], messages


def test_a_form_post_in_an_unknown_charset_is_400(testapp, headers, world, unchanged):
    res = post(testapp, headers, b"query=%7B__typename%7D",
               "application/x-www-form-urlencoded; charset=foo")
    assert res.status_int == 400, res.body[:300]
    assert res.json["errors"][0]["extensions"] == {"code": "bad_request"}


ATTACHMENTS_BY_SIZE = """query($id: ID!, $size: String) { node(id: $id) { ... on Sample {
    attachments(filter: {byte_size_gt: $size}) { nodes { filename } } } } }"""


@pytest.mark.parametrize("size", [str(2**63), str(-(2**63) - 1), "9" * 30])
def test_an_integer_filter_beyond_64_bits_is_refused(client, world, unchanged, size):
    """Integer filters bind 64-bit numbers: a larger one is a GraphQL error naming the
    argument (it was an internal error when the driver refused it)."""
    body = client(ATTACHMENTS_BY_SIZE, {"id": gid("Sample", world["sample"].id), "size": size})
    messages = refused(body)
    assert any("byte_size_gt" in m and "out of range" in m for m in messages), messages


def test_the_largest_64_bit_integer_filter_is_answered(client, world):
    body = client(ATTACHMENTS_BY_SIZE,
                  {"id": gid("Sample", world["sample"].id), "size": str(2**63 - 1)})
    no_internal_error(body)
    assert body["data"]["node"]["attachments"]["nodes"] == []
