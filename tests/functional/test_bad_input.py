"""Input that must be a 4xx, never a 500, and must change nothing.

Every bad input is sent to every REST endpoint it can reach: ids that ``str.isdigit``
accepts and ``int`` refuses, numbers beyond an id column in paths, paging parameters and bodies,
lone surrogates, deep nesting, unknown charsets, lists and objects where a scalar goes,
``null`` in required fields, metadata keys that collide once trimmed. Each answer is a 4xx
with the documented body, and the database holds exactly what it held before.
"""

import json
from urllib.parse import quote

import pytest

from seqcore.models.user import SystemRole
from tests.dbstate import snapshot

# Digits str.isdigit() accepts (superscripts, Arabic-Indic, full-width) and numbers beyond
# what an id column (PostgreSQL's 32-bit integer) holds.
BAD_ID_SEGMENTS = ["²", "¹²", "\u0661\u0662", "\uff11\uff12", "99999999999999999999",
                   str(2**31), str(2**63), str(2**64), "1" * 5000]


@pytest.fixture
def world(factories):
    admin = factories.user(SystemRole.ADMIN, username="admin")
    sequencer = factories.user(SystemRole.SEQUENCER, username="uploader")
    owner = factories.user(username="owner")
    project = factories.project(owner=owner, name="Project one")
    sample = factories.sample(project, name="sample-1", metadata={"serovar": "Typhi"})
    obj = factories.sequencing_object(sample, "pairs")
    run = factories.run(sequencer)
    submission = factories.submission(owner, [obj])
    return {
        "admin": factories.headers(admin), "sequencer": factories.headers(sequencer),
        "owner": factories.headers(owner), "owner_id": owner.id, "project": project.id,
        "sample": sample.id, "object": obj.id, "file": obj.files[0].id, "run": run.id,
        "submission": submission.id,
    }


@pytest.fixture
def unchanged(db, world):
    """Checks, after the test, that nothing in the database changed."""
    before = snapshot(db)
    yield
    assert snapshot(db) == before


def message_body(res):
    """The documented shape of a non-validation error: ``{"message": "..."}``."""
    assert isinstance(res.json["message"], str) and res.json["message"]
    return res.json["message"]


def field_errors(res):
    """The documented shape of a validation error: ``{"<field>": ["<message>", ...]}``."""
    body = res.json
    assert body and all(isinstance(v, list) and v and all(isinstance(m, str) for m in v)
                        for v in body.values()), body
    return body


# -- ids in paths ------------------------------------------------------------------------------


ID_PATHS = [
    ("owner", "/api/projects/{x}"),
    ("owner", "/api/projects/{x}/samples"),
    ("owner", "/api/projects/{x}/users"),
    ("owner", "/api/projects/{x}/samples/metadata"),
    ("owner", "/api/projects/{project}/samples/{x}"),
    ("owner", "/api/samples/{x}"),
    ("owner", "/api/samples/{x}/metadata"),
    ("owner", "/api/samples/{sample}/pairs/{x}"),
    ("owner", "/api/samples/{sample}/pairs/{object}/files/{x}"),
    ("owner", "/api/samples/{sample}/sequenceFiles/{x}"),
    ("owner", "/api/users/{x}"),
    ("owner", "/api/users/{x}/projects"),
    ("owner", "/api/analysisSubmissions/{x}"),
    ("admin", "/api/sequencingrun/{x}"),
]


@pytest.mark.parametrize("segment", BAD_ID_SEGMENTS)
@pytest.mark.parametrize(("who", "template"), ID_PATHS)
def test_an_id_that_is_not_one_is_not_found(testapp, world, unchanged, who, template, segment):
    url = template.format(x=quote(segment), **world)
    res = testapp.get(url, headers=world[who], expect_errors=True)
    assert res.status_int == 404, (url, res.status, res.body[:300])
    message_body(res)


@pytest.mark.parametrize("segment", BAD_ID_SEGMENTS)
@pytest.mark.parametrize(("who", "method", "template"), [
    ("owner", "PATCH", "/api/projects/{x}"),
    ("owner", "PATCH", "/api/samples/{x}"),
    ("owner", "PUT", "/api/samples/{x}/metadata"),
    ("owner", "PATCH", "/api/users/{x}"),
    ("sequencer", "PATCH", "/api/sequencingrun/{x}"),
])
def test_writes_to_an_id_that_is_not_one_change_nothing(testapp, world, unchanged, who, method,
                                                        template, segment):
    url = template.format(x=quote(segment), **world)
    res = testapp.request(url, method=method, headers=world[who], expect_errors=True,
                          body=b'{"description": "x"}', content_type="application/json")
    assert res.status_int == 404, (url, res.status, res.body[:300])
    message_body(res)


@pytest.mark.parametrize("run_id", ["1234567890123456789", str(2**31), str(2**63 - 1),
                                    str(2**31 - 1)])
def test_a_19_digit_run_id_is_a_run_that_does_not_exist(testapp, world, unchanged, run_id):
    """Not a sequencer type called ``1234567890123456789``: a run id, and there is no such
    run."""
    for who in ("admin", "sequencer"):
        res = testapp.get(f"/api/sequencingrun/{run_id}", headers=world[who],
                          expect_errors=True)
        assert res.status_int == 404, (who, res.status, res.body[:300])
        message_body(res)
        res = testapp.patch_json(f"/api/sequencingrun/{run_id}", {"uploadStatus": "COMPLETE"},
                                 headers=world[who], expect_errors=True)
        assert res.status_int == 404, (who, res.status, res.body[:300])
        message_body(res)


def test_a_run_id_written_with_leading_zeros_still_names_the_run(testapp, world):
    res = testapp.get(f"/api/sequencingrun/000{world['run']}", headers=world["admin"])
    assert res.json["resource"]["identifier"] == str(world["run"])


def test_a_username_that_looks_like_digits_is_a_username(testapp, factories, world):
    """``²³⁴`` is not an id (``int`` refuses it): it is looked up as a username."""
    user = factories.user(username="²³⁴")
    res = testapp.get("/api/users/" + quote("²³⁴"), headers=world["admin"])
    assert res.json["resource"]["identifier"] == str(user.id)


# -- paging parameters -------------------------------------------------------------------------


@pytest.mark.parametrize(("param", "value"), [
    ("limit", "²"), ("limit", "\u0661\u0660"), ("limit", "0"), ("limit", "-1"), ("limit", "10001"),
    ("limit", str(2**64)), ("limit", "1e3"), ("limit", ""), ("page", "²"), ("page", "0"),
    ("page", str(2**63)), ("page", str(10**18)), ("page", "1" * 5000),
])
def test_bad_paging_parameters_are_400(testapp, world, unchanged, param, value):
    other = "page=1" if param == "limit" else "limit=10"
    res = testapp.get(f"/api/projects/{world['project']}/samples?{param}={quote(value)}&{other}",
                      headers=world["owner"], expect_errors=True)
    assert res.status_int == 400, (param, value, res.body[:300])
    assert list(field_errors(res)) == [param]


def test_the_last_page_that_fits_is_an_empty_page(testapp, world):
    from seqcore.rest.paging import MAX_LIMIT, MAX_PAGE

    res = testapp.get(f"/api/projects/{world['project']}/samples?limit={MAX_LIMIT}"
                      f"&page={MAX_PAGE}", headers=world["owner"])
    assert res.json["resource"]["resources"] == []


# -- JSON bodies that cannot be read -----------------------------------------------------------

# (who, method, path, a valid body of the endpoint): each bad body is sent to each.
JSON_ENDPOINTS = [
    ("owner", "POST", "/api/projects", {"name": "A new project"}),
    ("owner", "PATCH", "/api/projects/{project}", {"projectDescription": "x"}),
    ("owner", "POST", "/api/projects/{project}/users", {"userId": "uploader"}),
    ("owner", "POST", "/api/projects/{project}/samples", {"sampleName": "sample-2"}),
    ("owner", "PATCH", "/api/samples/{sample}", {"description": "x"}),
    ("owner", "POST", "/api/samples/{sample}/metadata", {"a": {"value": "x"}}),
    ("owner", "PUT", "/api/samples/{sample}/metadata", {"a": {"value": "x"}}),
    ("admin", "POST", "/api/users", {"username": "newuser", "email": "new@example.org",
                                     "password": "Password1!", "firstName": "New",
                                     "lastName": "User", "phoneNumber": "5550100"}),
    ("owner", "PATCH", "/api/users/{owner_id}", {"firstName": "Own"}),
    ("sequencer", "POST", "/api/sequencingrun", {"layoutType": "PAIRED_END",
                                                 "sequencerType": "miseq"}),
    ("sequencer", "POST", "/api/sequencingrun/miseq", {"layoutType": "PAIRED_END"}),
    ("sequencer", "PATCH", "/api/sequencingrun/{run}", {"uploadStatus": "COMPLETE"}),
    ("owner", "POST", "/api/analysisSubmissions/analysisType/readcount",
     {"sequencingObjects": ["{object}"]}),
    ("owner", "PUT", "/api/projects/{project}/automatedAnalyses", {"analysisTypes": []}),
]


def _deep(levels):
    return ("[" * levels + "]" * levels).encode()


def _raw(valid, inject):
    """``valid`` with a bad value injected as a string's value, as raw JSON bytes."""
    text = json.dumps(valid)
    first = next(iter(valid))
    return text.replace(json.dumps(first) + ": ", json.dumps(first) + ": " + inject + ", "
                        + json.dumps("zz") + ": ", 1).encode()


def _poison(valid, bad):
    """``valid`` with every string, and every list's items, replaced by ``bad``."""
    out = {}
    for key, value in valid.items():
        if isinstance(value, str):
            out[key] = bad
        elif isinstance(value, list):
            out[key] = [bad]
        elif isinstance(value, dict):
            out[key] = json.loads(_poison(value, bad))
        else:
            out[key] = value
    return json.dumps(out).encode()


# name -> (body from a valid body, what the 400's message says)
BAD_BODIES = {
    "lone surrogate in a value": (lambda v: _poison(v, "\ud800"), "surrogate"),
    "lone low surrogate in a value": (lambda v: _poison(v, "a\udfffb"), "surrogate"),
    "lone surrogate in a key": (lambda v: json.dumps({**v, "\udc80": "x"}).encode(),
                                "surrogate"),
    "surrogate nested in a list": (lambda v: _poison(v, ["\ud83d"]), "surrogate"),
    "10,000 levels deep": (lambda v: _deep(10_000), "nested at most 32 deep"),
    "100,000 levels deep in a field": (lambda v: _raw(v, "[" * 100_000 + "]" * 100_000),
                                       "nested at most 32 deep"),
    "40 levels deep": (lambda v: _deep(40), "nested at most 32 deep"),
    "a 5,000-digit number": (lambda v: _raw(v, "1" * 5000), "too long"),
    "NaN": (lambda v: _raw(v, "NaN"), "not a JSON number"),
    "Infinity": (lambda v: _raw(v, "-Infinity"), "not a JSON number"),
}


def _endpoint_params():
    return [pytest.param(who, method, path, valid, id=f"{method} {path}")
            for who, method, path, valid in JSON_ENDPOINTS]


def _fill(world, path, valid):
    text = json.dumps(valid).replace('"{object}"', str(world["object"]))
    return path.format(**world), json.loads(text)


@pytest.mark.parametrize("bad", list(BAD_BODIES))
@pytest.mark.parametrize(("who", "method", "path", "valid"), _endpoint_params())
def test_unreadable_json_is_400_before_any_view(testapp, world, unchanged, who, method, path,
                                                valid, bad):
    url, valid = _fill(world, path, valid)
    make, expected = BAD_BODIES[bad]
    res = testapp.request(url, method=method, body=make(valid), headers=world[who],
                          content_type="application/json", expect_errors=True)
    assert res.status_int == 400, (bad, url, res.status, res.body[:300])
    message = message_body(res)
    assert "could not be parsed" in message and expected in message, message


@pytest.mark.parametrize("charset", ["foo", "rot13", "hex", "punycode", "utf-7", "x" * 5000,
                                     "unicode_escape"])
@pytest.mark.parametrize(("who", "method", "path", "valid"), _endpoint_params())
def test_an_unknown_charset_is_400(testapp, world, unchanged, who, method, path, valid,
                                   charset):
    url, valid = _fill(world, path, valid)
    res = testapp.request(url, method=method, body=json.dumps(valid).encode(),
                          headers={**world[who],
                                   "Content-Type": f"application/json; charset={charset}"},
                          expect_errors=True)
    assert res.status_int == 400, (charset, url, res.status, res.body[:300])
    assert "charset" in message_body(res)


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", '"utf-8"', "us-ascii",
                                     "ISO-8859-1"])
def test_a_known_charset_is_read(testapp, world, charset):
    res = testapp.post(f"/api/projects/{world['project']}/samples",
                       json.dumps({"sampleName": "sample-9"}).encode(),
                       headers={**world["owner"],
                                "Content-Type": f"application/json;charset={charset}"},
                       status=201)
    assert res.json["resource"]["sampleName"] == "sample-9"


def test_a_body_in_utf_16_as_declared_is_read(testapp, world):
    res = testapp.post(f"/api/projects/{world['project']}/samples",
                       json.dumps({"sampleName": "sample-é"}).encode("utf-16"),
                       headers={**world["owner"],
                                "Content-Type": "application/json; charset=utf-16"},
                       status=201)
    assert res.json["resource"]["sampleName"] == "sample-é"


def test_a_surrogate_pair_is_a_character_and_is_stored(testapp, world, db):
    """``\\ud83d\\ude00`` is one character (😀), not two lone surrogates."""
    res = testapp.put(f"/api/samples/{world['sample']}/metadata",
                      b'{"mood": {"value": "\\ud83d\\ude00"}}', headers=world["owner"],
                      content_type="application/json")
    assert res.json["resource"]["metadata"]["mood"]["value"] == "\U0001f600"


def test_32_levels_are_accepted_33_are_not(testapp, world):
    from seqcore.parsing.jsontext import MAX_DEPTH

    url = f"/api/sequencingrun/{world['run']}"

    def nested(levels):  # the body object is level 1
        return b'{"x": ' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    res = testapp.patch(url, nested(MAX_DEPTH), headers=world["sequencer"],
                        content_type="application/json", expect_errors=True)
    assert res.status_int == 400
    assert field_errors(res) == {"x": ["Run-sheet values must be strings or numbers."]}
    res = testapp.patch(url, nested(MAX_DEPTH + 1), headers=world["sequencer"],
                        content_type="application/json", expect_errors=True)
    assert res.status_int == 400
    assert "nested at most 32 deep" in message_body(res)


# -- sample id collections ---------------------------------------------------------------------


@pytest.mark.parametrize("ids", [["²"], ["\u0661"], [2**31], [2**63], [2**64], [str(2**64)],
                                 ["1" * 5000], [True], [1.5], [[1]], [{"id": 1}], ["\ud800"]])
def test_a_sample_id_collection_with_a_bad_id_is_400(testapp, factories, world, unchanged, ids):
    res = testapp.post(f"/api/projects/{world['project']}/samples",
                       json.dumps(ids).encode(), headers=world["owner"],
                       content_type="application/idcollection+json", expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    message_body(res)


# -- a list or an object where a scalar goes ---------------------------------------------------

# Every field of every body, with the endpoint that takes it.
FIELDS = {
    "POST /api/projects": ("owner", "POST", "/api/projects", {"name": "A new project"}, [
        "name", "projectDescription", "remoteURL", "organism", "genomeSize",
        "minimumCoverage", "maximumCoverage", "syncFrequency"]),
    "PATCH /api/projects/{project}": ("owner", "PATCH", "/api/projects/{project}", {}, [
        "name", "projectDescription", "remoteURL", "organism", "genomeSize",
        "minimumCoverage", "maximumCoverage", "syncFrequency"]),
    "POST /api/projects/{project}/users": ("owner", "POST", "/api/projects/{project}/users",
                                           {"userId": "uploader"},
                                           ["userId", "role", "metadataRole"]),
    "POST /api/projects/{project}/samples": (
        "owner", "POST", "/api/projects/{project}/samples", {"sampleName": "sample-2"}, [
            "sampleName", "description", "organism", "isolate", "strain", "collectedBy",
            "collectionDate", "geographicLocationName", "isolationSource", "latitude",
            "longitude"]),
    "PATCH /api/samples/{sample}": ("owner", "PATCH", "/api/samples/{sample}", {}, [
        "sampleName", "description", "organism", "isolate", "strain", "collectedBy",
        "collectionDate", "geographicLocationName", "isolationSource", "latitude",
        "longitude"]),
    "POST /api/users": ("admin", "POST", "/api/users", {
        "username": "newuser", "email": "new@example.org", "password": "Password1!",
        "firstName": "New", "lastName": "User", "phoneNumber": "5550100"}, [
        "username", "email", "password", "firstName", "lastName", "phoneNumber", "systemRole",
        "enabled", "locale"]),
    "PATCH /api/users/{owner_id}": ("admin", "PATCH", "/api/users/{owner_id}", {}, [
        "username", "email", "password", "firstName", "lastName", "phoneNumber", "systemRole",
        "enabled", "locale"]),
    "POST /api/sequencingrun/miseq": ("sequencer", "POST", "/api/sequencingrun/miseq",
                                      {"layoutType": "PAIRED_END"},
                                      ["description", "uploadStatus", "layoutType",
                                       "sequencerType", "readLengths"]),
    "PATCH /api/sequencingrun/{run}": ("sequencer", "PATCH", "/api/sequencingrun/{run}", {},
                                       ["description", "uploadStatus", "layoutType",
                                        "sequencerType", "readLengths"]),
    "POST launch": ("owner", "POST", "/api/analysisSubmissions/analysisType/readcount",
                    {"sequencingObjects": ["{object}"]},
                    ["name", "priority", "description", "writeResultsToSamples",
                     "sequencingObjects", "samples", "projects", "parameters"]),
}


def _field_params():
    out = []
    for endpoint, (who, method, path, valid, names) in FIELDS.items():
        for name in names:
            for label, value in (("list", ["HIGH"]), ("object", {"value": "HIGH"}),
                                 ("list of lists", [[1]])):
                out.append(pytest.param(who, method, path, valid, name, value,
                                        id=f"{endpoint} {name} {label}"))
    return out


@pytest.mark.parametrize(("who", "method", "path", "valid", "name", "value"), _field_params())
def test_a_list_or_object_in_a_scalar_field_is_400_naming_it(testapp, world, unchanged, who,
                                                             method, path, valid, name, value):
    if name in ("sequencingObjects", "samples", "projects") and value == ["HIGH"]:
        value = [["HIGH"]]  # a list is what goes there: its items must be ids
    if name == "parameters" and isinstance(value, dict):
        value = ["HIGH"]  # an object is what goes there
    url, body = _fill(world, path, valid)
    body[name] = value
    res = testapp.request(url, method=method, body=json.dumps(body).encode(),
                          headers=world[who], content_type="application/json",
                          expect_errors=True)
    assert res.status_int == 400, (name, value, res.status, res.body[:300])
    assert name in field_errors(res), res.json


# -- null where a value is required -------------------------------------------------------------


@pytest.mark.parametrize(("who", "method", "path", "valid", "name"), [
    ("owner", "POST", "/api/projects", {"name": "A new project"}, "name"),
    ("owner", "PATCH", "/api/projects/{project}", {}, "name"),
    ("owner", "POST", "/api/projects/{project}/users", {"userId": "uploader"}, "userId"),
    ("owner", "POST", "/api/projects/{project}/users", {"userId": "uploader"}, "role"),
    ("owner", "POST", "/api/projects/{project}/samples", {"sampleName": "sample-2"},
     "sampleName"),
    ("owner", "PATCH", "/api/samples/{sample}", {}, "sampleName"),
    *[("admin", "POST", "/api/users", {
        "username": "newuser", "email": "new@example.org", "password": "Password1!",
        "firstName": "New", "lastName": "User", "phoneNumber": "5550100"}, name)
      for name in ("username", "email", "password", "firstName", "lastName", "phoneNumber",
                   "systemRole", "enabled", "locale")],
    *[("admin", "PATCH", "/api/users/{owner_id}", {}, name)
      for name in ("username", "email", "password", "firstName", "lastName", "phoneNumber",
                   "systemRole", "enabled", "locale")],
    ("sequencer", "POST", "/api/sequencingrun/miseq", {"layoutType": "PAIRED_END"},
     "layoutType"),
    ("sequencer", "POST", "/api/sequencingrun", {"layoutType": "PAIRED_END"}, "sequencerType"),
    ("sequencer", "PATCH", "/api/sequencingrun/{run}", {}, "uploadStatus"),
    ("sequencer", "PATCH", "/api/sequencingrun/{run}", {}, "layoutType"),
    ("sequencer", "PATCH", "/api/sequencingrun/{run}", {}, "sequencerType"),
    ("owner", "POST", "/api/analysisSubmissions/analysisType/readcount",
     {"sequencingObjects": ["{object}"]}, "priority"),
    ("owner", "POST", "/api/analysisSubmissions/analysisType/readcount",
     {"sequencingObjects": ["{object}"]}, "writeResultsToSamples"),
])
def test_null_in_a_required_field_is_400_naming_it(testapp, world, unchanged, who, method,
                                                   path, valid, name):
    url, body = _fill(world, path, valid)
    body[name] = None
    res = testapp.request(url, method=method, body=json.dumps(body).encode(),
                          headers=world[who], content_type="application/json",
                          expect_errors=True)
    assert res.status_int == 400, (name, res.status, res.body[:300])
    assert name in field_errors(res), res.json


# -- numbers beyond what a column holds --------------------------------------------------------


@pytest.mark.parametrize("value", [2**31, 2**63, 2**64, 10**30, -(2**63) - 1, True, 1.5, "12"])
@pytest.mark.parametrize(("method", "path", "valid"), [
    ("POST", "/api/projects", {"name": "A new project"}),
    ("PATCH", "/api/projects/{project}", {}),
])
@pytest.mark.parametrize("name", ["genomeSize", "minimumCoverage", "maximumCoverage"])
def test_a_number_beyond_its_column_is_400(testapp, world, unchanged, method, path, valid,
                                           name, value):
    url, body = _fill(world, path, valid)
    body[name] = value
    res = testapp.request(url, method=method, body=json.dumps(body).encode(),
                          headers=world["owner"], content_type="application/json",
                          expect_errors=True)
    assert res.status_int == 400, (name, value, res.body[:300])
    assert list(field_errors(res)) == [name]


def test_the_largest_genome_size_a_column_holds_is_stored(testapp, world):
    res = testapp.patch_json(f"/api/projects/{world['project']}", {"genomeSize": 2**31 - 1},
                             headers=world["owner"])
    assert res.status_int == 200
    got = testapp.get(f"/api/projects/{world['project']}", headers=world["owner"]).json
    assert got["resource"]["genomeSize"] == 2**31 - 1


@pytest.mark.parametrize("field", ["sequencingObjects", "samples", "projects"])
@pytest.mark.parametrize("value", [[2**31], [2**63], [2**64], ["²"], [str(2**64)], ["1" * 5000],
                                   [True], [-1]])
def test_launch_with_an_id_that_is_not_one_is_400(testapp, world, unchanged, field, value):
    body = {"sequencingObjects": [world["object"]], field: value}
    res = testapp.post_json("/api/analysisSubmissions/analysisType/readcount", body,
                            headers=world["owner"], expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    assert field_errors(res)[field] == [f"'{field}' must be a list of ids."]


def test_automated_analyses_with_parameters_that_are_not_an_object_are_400(testapp, world,
                                                                           unchanged):
    res = testapp.put_json(f"/api/projects/{world['project']}/automatedAnalyses",
                           {"analysisTypes": [{"type": "readcount", "parameters": [{}]}]},
                           headers=world["owner"], expect_errors=True)
    assert res.status_int == 400
    assert field_errors(res) == {"readcount.parameters": [
        "'parameters' must be an object of name: value."]}


# -- metadata keys that collide once trimmed ---------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "PUT"])
@pytest.mark.parametrize("body", [
    {"serovar": {"value": "Paratyphi"}, " serovar": {"value": None}},
    {" host": {"value": "human"}, "host ": {"value": "cow"}},
    {"host": {"value": "human"}, "\thost\n": {"value": ""}},
])
def test_metadata_keys_that_collide_once_trimmed_are_400(testapp, world, unchanged, method,
                                                         body):
    res = testapp.request(f"/api/samples/{world['sample']}/metadata", method=method,
                          body=json.dumps(body).encode(), headers=world["owner"],
                          content_type="application/json", expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    errors = field_errors(res)
    second = list(body)[1]
    assert list(errors) == [second]
    assert "Names the same field as" in errors[second][0]


# -- URLs that are not UTF-8 -------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "/api/projects/%FF", "/api/users/%ED%A0%80", "/api/%C0%80",
    "/api/projects/{project}/samples?search=%FF",
    "/api/projects/{project}/samples?%FF=1",
    "/api/projects/{project}/samples?metadata.%ED%B0%80=x",
    "/api/sequencingrun?x=%FF",
])
def test_a_url_that_is_not_utf8_is_400(testapp, world, unchanged, url):
    res = testapp.get(url.format(**world), headers=world["owner"], expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    assert "not valid UTF-8" in message_body(res)


@pytest.mark.parametrize("url", ["/%FF", "/users/sign_in?next=%FF"])
def test_a_page_url_that_is_not_utf8_is_400(testapp, url):
    res = testapp.get(url, expect_errors=True)
    assert res.status_int == 400
    assert "not valid UTF-8" in res.text


# -- an upload's parameters part ---------------------------------------------------------------


def _stored(app_config):
    from pathlib import Path

    root = Path(app_config.get_settings()["seqcore.storage.path"])
    return sorted(str(p) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize(("label", "params", "message"), [
    ("run id in other digits", {"miseqRunId": "²"}, "sequencing run id"),
    ("run id in Arabic-Indic digits", {"miseqRunId": "\u0661"}, "sequencing run id"),
    ("run id beyond the column", {"miseqRunId": str(2**31)}, "sequencing run id"),
    ("run id beyond 64 bits", {"sequencingRunId": 2**64}, "sequencing run id"),
    ("run id of 5,000 digits", {"miseqRunId": "1" * 5000}, "sequencing run id"),
    ("run id true", {"miseqRunId": True}, "sequencing run id"),
    ("lone surrogate", {"note": "\ud800"}, "surrogate"),
])
def test_an_upload_with_bad_parameters_is_400_and_keeps_nothing(testapp, world, unchanged,
                                                                app_config, label, params,
                                                                message):
    from seqcore.testing.uploads import fastq, multipart

    before = _stored(app_config)
    body, content_type = multipart([("file", "a.fastq", fastq(), None),
                                    ("parameters", None, json.dumps(params).encode(),
                                     "application/json")])
    res = testapp.post(f"/api/samples/{world['sample']}/unpaired", body,
                       headers={**world["owner"], "Content-Type": content_type},
                       expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    assert message in message_body(res)
    assert _stored(app_config) == before


@pytest.mark.parametrize(("path", "content_type"), [
    ("/users/sign_in", "application/x-www-form-urlencoded; charset=foo"),
    ("/api/oauth/token", "application/x-www-form-urlencoded; charset=rot13"),
    ("/api/samples/{sample}/unpaired", "multipart/form-data; boundary=B; charset=foo"),
])
def test_a_form_in_an_unknown_charset_is_400(testapp, world, unchanged, path, content_type):
    res = testapp.post(path.format(**world), b"username=a&password=b",
                       headers={**world["owner"], "Content-Type": content_type},
                       expect_errors=True)
    assert res.status_int == 400, res.body[:300]
    assert "charset" in res.text


@pytest.mark.parametrize("action", ["revoke", "rotate"])
@pytest.mark.parametrize("token_id", ["²", "\u0661", str(2**31), str(2**63), "1" * 5000])
def test_revoking_a_token_whose_id_is_not_one_is_404(testapp, factories, token_id, action):
    """The web page's token ids follow the same rule as the API's."""
    from tests.web.test_pages import sign_in

    sign_in(testapp, factories.user())
    csrf = testapp.get("/-/profile").html.find("input", {"name": "csrf_token"})["value"]
    testapp.post(f"/-/profile/personal_access_tokens/{quote(token_id)}/{action}",
                 {"csrf_token": csrf}, status=404)
