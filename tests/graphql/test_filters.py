"""``samples(filter:, orderBy:)``: name contains, advanced search over metadata and dates."""

import pytest

QUERY = """query($filter: SampleFilter, $orderBy: SampleOrder) {
  samples(first: 100, filter: $filter, orderBy: $orderBy) { totalCount nodes { name } }
}"""


@pytest.fixture
def caller(factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    rows = [
        ("alpha-1", {"country": "Canada", "collection_date": "2024-03-01", "age": "40",
                     "outbreak_code": "2406MLGX6-1"}),
        ("alpha-2", {"country": "canada", "collection_date": "2023-12-31", "age": "9"}),
        ("beta-1", {"country": "France", "collection_date": "2024-07-04", "age": "100",
                    "outbreak_code": "2406MLGX6-2"}),
        ("beta_2", {"country": "Canada", "age": "unknown"}),
        ("gamma%3", {}),
    ]
    for name, metadata in rows:
        factories.sample(project, name=name, metadata=metadata)
    return owner


def run(graphql, caller, filter_=None, order_by=None):
    body = graphql.as_user(caller)(QUERY, {"filter": filter_, "orderBy": order_by})
    if "errors" in body:
        return body["errors"]
    return sorted(n["name"] for n in body["data"]["samples"]["nodes"])


def cond(field, operator, value=None):
    return {"field": field, "operator": operator, "value": value}


def test_name_contains_is_case_insensitive_and_literal(graphql, caller):
    assert run(graphql, caller, {"name_or_puid_cont": "ALPHA"}) == ["alpha-1", "alpha-2"]
    assert run(graphql, caller, {"name_cont": "a_"}) == ["beta_2"]
    assert run(graphql, caller, {"name_cont": "%"}) == ["gamma%3"]


@pytest.mark.parametrize(("conditions", "expected"), [
    ([cond("metadata.country", "EQUALS", "CANADA")], ["alpha-1", "alpha-2", "beta_2"]),
    ([cond("metadata.country", "NOT_EQUALS", "canada")], ["beta-1", "gamma%3"]),
    ([cond("metadata.country", "CONTAINS", "anc")], ["beta-1"]),
    ([cond("metadata.country", "NOT_CONTAINS", "an")], ["gamma%3"]),
    ([cond("metadata.outbreak_code", "EXISTS")], ["alpha-1", "beta-1"]),
    ([cond("metadata.outbreak_code", "NOT_EXISTS")], ["alpha-2", "beta_2", "gamma%3"]),
    ([cond("metadata.outbreak_code", "IN", ["2406mlgx6-1", "2406MLGX6-2"])],
     ["alpha-1", "beta-1"]),
    ([cond("metadata.outbreak_code", "NOT_IN", ["2406MLGX6-1"])],
     ["alpha-2", "beta-1", "beta_2", "gamma%3"]),
    ([cond("metadata.collection_date", "GREATER_THAN_EQUALS", "2024-01-01"),
      cond("metadata.collection_date", "LESS_THAN_EQUALS", "2024-12-31")],
     ["alpha-1", "beta-1"]),
    ([cond("metadata.age", "GREATER_THAN_EQUALS", "40")], ["alpha-1", "beta-1"]),
    ([cond("metadata.age", "LESS_THAN_EQUALS", "10")], ["alpha-2"]),
    ([cond("name", "CONTAINS", "beta")], ["beta-1", "beta_2"]),
    ([cond("name", "IN", ["ALPHA-1", "gamma%3"])], ["alpha-1", "gamma%3"]),
    ([cond("created_at", "GREATER_THAN_EQUALS", "2000-01-01")],
     ["alpha-1", "alpha-2", "beta-1", "beta_2", "gamma%3"]),
    ([cond("created_at", "LESS_THAN_EQUALS", "2000-01-01")], []),
])
def test_advanced_search_conditions(graphql, caller, conditions, expected):
    assert run(graphql, caller, {"advanced_search": [conditions]}) == expected


@pytest.mark.parametrize(("conditions", "expected"), [
    # Typed text operators are the standard ones on metadata.
    ([cond("metadata.country", "TEXT_EQUALS", "canada")], ["alpha-1", "alpha-2", "beta_2"]),
    ([cond("metadata.country", "TEXT_NOT_EQUALS", "canada")],
     ["beta-1", "delta-4", "epsilon", "gamma%3"]),
    ([cond("metadata.country", "TEXT_CONTAINS", "ANC")], ["beta-1"]),
    ([cond("metadata.country", "TEXT_NOT_CONTAINS", "an")], ["delta-4", "epsilon", "gamma%3"]),
    ([cond("metadata.country", "TEXT_IN", ["france", "x"])], ["beta-1"]),
    ([cond("metadata.country", "TEXT_NOT_IN", ["canada"])],
     ["beta-1", "delta-4", "epsilon", "gamma%3"]),
    # Numeric: only values that are numbers take part ("unknown" is none).
    ([cond("metadata.age", "NUMERIC_EQUALS", "40.0")], ["alpha-1"]),
    ([cond("metadata.age", "NUMERIC_NOT_EQUALS", "40")],
     ["alpha-2", "beta-1", "beta_2", "delta-4", "epsilon", "gamma%3"]),
    ([cond("metadata.age", "NUMERIC_GREATER_THAN_EQUALS", "10"),
      cond("metadata.age", "NUMERIC_LESS_THAN_EQUALS", "100")], ["alpha-1", "beta-1"]),
    ([cond("metadata.age", "NUMERIC_EXISTS")], ["alpha-1", "alpha-2", "beta-1"]),
    ([cond("metadata.age", "NUMERIC_NOT_EXISTS")],
     ["beta_2", "delta-4", "epsilon", "gamma%3"]),
    # Dates: YYYY, YYYY-MM and YYYY-MM-DD values, the shorter meaning their first day.
    ([cond("metadata.collection_date", "DATE_GREATER_THAN_EQUALS", "2024-01-01"),
      cond("metadata.collection_date", "DATE_LESS_THAN_EQUALS", "2024-06-30")],
     ["alpha-1", "delta-4"]),
    ([cond("metadata.collection_date", "DATE_EQUALS", "2023-12-31")], ["alpha-2"]),
    ([cond("metadata.collection_date", "DATE_NOT_EQUALS", "2023-12-31")],
     ["alpha-1", "beta-1", "beta_2", "delta-4", "epsilon", "gamma%3"]),
    ([cond("metadata.collection_date", "DATE_EXISTS")],
     ["alpha-1", "alpha-2", "beta-1", "delta-4"]),
    ([cond("metadata.collection_date", "DATE_NOT_EXISTS")], ["beta_2", "epsilon", "gamma%3"]),
    # puid and attachments_updated_at are search fields too.
    ([cond("puid", "CONTAINS", "INXT_SAM_")],
     ["alpha-1", "alpha-2", "beta-1", "beta_2", "delta-4", "epsilon", "gamma%3"]),
    ([cond("attachments_updated_at", "EXISTS")], []),
    ([cond("attachments_updated_at", "NOT_EXISTS")],
     ["alpha-1", "alpha-2", "beta-1", "beta_2", "delta-4", "epsilon", "gamma%3"]),
])
def test_typed_operators(graphql, factories, caller, conditions, expected):
    project = factories.project(owner=caller)
    factories.sample(project, name="delta-4", metadata={"collection_date": "2024-03"})
    factories.sample(project, name="epsilon", metadata={"collection_date": "spring"})
    assert run(graphql, caller, {"advanced_search": [conditions]}) == expected


def test_attachments_updated_at_is_searched_by_day(graphql, testapp, factories, caller):
    """A sample given an attachment today is found by today's date and not before."""
    from datetime import UTC, datetime

    from seqcore.testing.uploads import direct_upload, fastq

    project = factories.project(owner=caller)
    sample = factories.sample(project, name="attached")
    graphql.as_user(caller)
    blob = direct_upload(testapp, graphql, "a.fastq", fastq(seed=1))
    attached = graphql("""mutation($f: [String!]!, $s: ID) { attachFilesToSample(input:
        {files: $f, samplePuid: $s}) { errors { message } } }""", {"f": [blob], "s": sample.puid})
    assert attached["data"]["attachFilesToSample"]["errors"] == []
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert run(graphql, caller, {"advanced_search": [[
        cond("attachments_updated_at", "EQUALS", today)]]}) == ["attached"]
    assert run(graphql, caller, {"advanced_search": [[
        cond("attachments_updated_at", "LESS_THAN_EQUALS", "2020-01-01")]]}) == []


def test_groups_are_alternatives_and_combine_with_name(graphql, caller):
    groups = [[cond("metadata.country", "EQUALS", "France")],
              [cond("metadata.age", "EQUALS", "9")]]
    assert run(graphql, caller, {"advanced_search": groups}) == ["alpha-2", "beta-1"]
    assert run(graphql, caller, {"advanced_search": groups, "name_cont": "beta"}) == ["beta-1"]


def test_documented_filter_example(graphql, caller):
    """The filter example of IRIDA Next's documentation (with our sample names)."""
    query = """{ samples(orderBy: {field: name, direction: desc}, filter: {name_or_puid_cont: "a",
      advanced_search: [[{field: "metadata.country", operator: EQUALS, value: "Canada"},
        {field: "metadata.collection_date", operator: GREATER_THAN_EQUALS, value: "2024-01-01"},
        {field: "metadata.collection_date", operator: LESS_THAN_EQUALS, value: "2024-12-31"}],
       [{field: "metadata.outbreak_code", operator: IN, value: ["2406MLGX6-1", "2406MLGX6-2"]}]]
      }) { nodes { name description id puid createdAt metadata } totalCount } }"""
    body = graphql.as_user(caller)(query)
    nodes = body["data"]["samples"]["nodes"]
    assert [n["name"] for n in nodes] == ["beta-1", "alpha-1"]
    assert all(n["puid"].startswith("INXT_SAM_") for n in nodes)
    assert body["data"]["samples"]["totalCount"] == 2
    assert nodes[1]["metadata"]["outbreak_code"] == "2406MLGX6-1"


@pytest.mark.parametrize(("condition", "message"), [
    (cond("metadata.", "EQUALS", "x"),
     "filter.advanced_search.0.0.field: 'metadata.' is an invalid metadata field"),
    (cond("colour", "EQUALS", "x"), "filter.advanced_search.0.0.field: 'colour' is an invalid "
                                    "field"),
    (cond("metadata.country", "IN", "Canada"),
     "filter.advanced_search.0.0.value: IN takes a non-empty list of values"),
    (cond("metadata.country", "EQUALS", ["a"]),
     "filter.advanced_search.0.0.value: EQUALS takes one non-empty value"),
    (cond("metadata.age", "GREATER_THAN_EQUALS", "old"),
     "filter.advanced_search.0.0.value: 'old' is not a number or a date (YYYY-MM-DD)"),
    (cond("created_at", "CONTAINS", "2024"),
     "filter.advanced_search.0.0.operator: 'CONTAINS' is an invalid operator for date fields"),
    (cond("created_at", "EQUALS", "yesterday"),
     "filter.advanced_search.0.0.value: 'yesterday' is not a date (YYYY-MM-DD)"),
    (cond("metadata.age", "NUMERIC_EQUALS", "forty"),
     "filter.advanced_search.0.0.value: 'forty' is not a number"),
    (cond("metadata.collection_date", "DATE_LESS_THAN_EQUALS", "2024-13-01"),
     "filter.advanced_search.0.0.value: '2024-13-01' must be formatted YYYY-MM-DD"),
    (cond("created_at", "DATE_EQUALS", "2024-01-01"),
     "filter.advanced_search.0.0.operator: 'DATE_EQUALS' is an invalid operator for "
     "non-metadata fields"),
    (cond("name", "EQUALS", "x"),
     "filter.advanced_search.0.0.field: 'name' exists within another condition in this "
     "group"),
    (cond("", "EQUALS", "x"), "filter.advanced_search.0.0.field: a field is required"),
])
def test_bad_conditions_are_errors(graphql, caller, condition, message):
    errors = run(graphql, caller, {"advanced_search": [[cond("name", "EXISTS"), condition]]})
    assert errors[0]["message"] == message.replace(".0.0.", ".0.1.")


def test_a_field_repeats_in_a_group_only_as_a_range(graphql, caller):
    repeated = [cond("metadata.age", "NUMERIC_GREATER_THAN_EQUALS", "1"),
                cond("metadata.age", "LESS_THAN_EQUALS", "50")]
    errors = run(graphql, caller, {"advanced_search": [repeated]})
    assert errors[0]["message"] == ("filter.advanced_search.0.1.field: 'metadata.age' exists "
                                    "within another condition in this group")
    # The same field in two groups is two alternatives.
    assert run(graphql, caller, {"advanced_search": [[repeated[0]], [repeated[1]]]}) == [
        "alpha-1", "alpha-2", "beta-1"]
    errors = run(graphql, caller, {"advanced_search": [[], []]})
    assert "every group is empty" in errors[0]["message"]


def test_value_must_be_a_string_or_list_of_strings(graphql, caller):
    body = graphql.as_user(caller)('{ samples(filter: {advanced_search: [[{field: "name", '
                                   "operator: EQUALS, value: 5}]]}) { totalCount } }")
    assert "ValueScalar" in body["errors"][0]["message"]


def test_order_by_name_descending(graphql, caller):
    body = graphql.as_user(caller)(QUERY, {"orderBy": {"field": "name", "direction": "desc"}})
    assert [n["name"] for n in body["data"]["samples"]["nodes"]] == [
        "gamma%3", "beta_2", "beta-1", "alpha-2", "alpha-1"]


def test_metadata_keys_slice(graphql, caller):
    body = graphql.as_user(caller)('{ samples(first: 1, orderBy: {field: name}) { nodes { '
                                   'metadata(keys: ["age", "missing"]) } } }')
    assert body["data"]["samples"]["nodes"] == [{"metadata": {"age": "40"}}]


def test_metadata_keys_are_one_field_whatever_their_case(graphql, testapp, factories):
    """GraphQL follows IRIDA Next: keys are not case-sensitive. A key written over GraphQL is
    stored in lower case, or under the spelling the sample (or a project's declaration)
    already uses; a search on ``metadata.<key>`` finds it in any case. REST keeps keys as
    written."""
    owner = factories.user()
    project = factories.project(owner=owner)
    rest = factories.sample(project, name="by-rest", metadata={"Serotype": "Typhi"})
    fresh = factories.sample(project, name="fresh")
    client = graphql.as_user(owner)
    update = """mutation($s: ID!, $m: JSON!) { updateSampleMetadata(input: {samplePuid: $s,
      metadata: $m}) { sample { metadata } status errors { message path } } }"""
    written = client(update, {"s": rest.puid, "m": {"SEROTYPE": "Enteritidis"}})
    payload = written["data"]["updateSampleMetadata"]
    assert payload["errors"] == []
    assert payload["sample"]["metadata"] == {"Serotype": "Enteritidis"}
    assert payload["status"]["updated"] == ["Serotype"]
    created = client(update, {"s": fresh.puid, "m": {"Collection_Date": "2024-01-02"}})
    assert created["data"]["updateSampleMetadata"]["sample"]["metadata"] == {
        "collection_date": "2024-01-02"}
    # Two spellings of one key in one request are refused.
    twice = client(update, {"s": fresh.puid, "m": {"Host": "human", "host": "cow"}})
    assert twice["data"]["updateSampleMetadata"]["errors"] == [{
        "message": "Names the same field as 'Host' (field names are not case-sensitive in "
                   "GraphQL); send each field once.", "path": ["metadata", "host"]}]
    # Search in any case.
    assert run(graphql, owner, {"advanced_search": [[
        cond("metadata.serotype", "EQUALS", "enteritidis")]]}) == ["by-rest"]
    assert run(graphql, owner, {"advanced_search": [[
        cond("metadata.COLLECTION_DATE", "DATE_EXISTS")]]}) == ["fresh"]
    # REST writes keys as given: a second spelling is a second field there.
    headers = factories.headers(owner)
    testapp.put_json(f"/api/samples/{fresh.id}/metadata", {"Host": {"value": "human"}},
                     headers=headers)
    fields = testapp.get(f"/api/samples/{fresh.id}/metadata", headers=headers).json
    assert {"Host", "collection_date"} <= set(fields["resource"]["metadata"])
