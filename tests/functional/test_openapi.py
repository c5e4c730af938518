"""``/api/openapi.json``: a valid OpenAPI 3.1 document of every registered endpoint, and the
Redoc page that shows it."""

import json
import re
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from seqcore.rest.openapi import openapi_path
from tests.functional.walking import hrefs
from tests.web.test_pages import sign_in

IGNORED_METHODS = {None}


def api_operations(registry):
    """(method, OpenAPI path) of every view registered on a route under ``/api``, read from
    Pyramid's own registry of routes and views (not from seqcore's endpoint list)."""
    operations = set()
    for route in registry.introspector.get_category("routes"):
        pattern = route["introspectable"]["pattern"]
        if not (pattern == "/api" or pattern.startswith("/api/")):
            continue
        path, _ = openapi_path(pattern)
        for related in route["related"]:
            if related.category_name != "views":
                continue
            methods = related["request_methods"]
            if methods is None:
                continue  # the method-not-allowed fallback
            for method in (methods,) if isinstance(methods, str) else methods:
                operations.add((method.lower(), path))
    return operations


def document_operations(document):
    return {(method, path) for path, item in document["paths"].items()
            for method in item if method in {"get", "head", "post", "put", "patch", "delete",
                                             "options"}}


def test_document_validates(testapp, factories):
    headers = factories.headers(factories.user())
    response = testapp.get("/api/openapi.json", headers=headers)
    assert response.content_type == "application/json"
    document = response.json
    validate(document)
    assert document["openapi"] == "3.1.0"
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"]["scheme"] == "bearer"
    assert set(schemes["oauth2"]["flows"]) == {"password", "authorizationCode"}
    assert schemes["personalToken"]["scheme"] == "basic"
    project = document["paths"]["/api/projects/{pid}"]
    assert project["get"]["parameters"][0] == {
        "name": "pid", "in": "path", "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"}}
    created = document["paths"]["/api/projects"]["post"]
    body = created["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    project_schema = document["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert "name" in project_schema["required"]
    assert project_schema["properties"]["name"]["minLength"] == 5
    samples = document["paths"]["/api/projects/{pid}/samples"]["get"]
    assert {p["name"] for p in samples["parameters"]} == {"pid", "limit", "page"}
    assert samples["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/CollectionEnvelope"}
    assert created["responses"]["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Message"}
    upload = document["paths"]["/api/samples/{sid}/pairs"]["post"]["requestBody"]
    assert upload["content"]["multipart/form-data"]["schema"]["required"] == ["file1", "file2"]
    single = document["paths"]["/api/samples/{sid}/sequenceFiles"]["post"]["requestBody"]
    assert single["content"]["multipart/form-data"]["schema"]["required"] == ["file"]


def test_the_document_needs_a_token(testapp):
    response = testapp.get("/api/openapi.json", status=401)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_every_registered_api_endpoint_is_described(testapp, factories, app_config):
    document = testapp.get("/api/openapi.json",
                           headers=factories.headers(factories.user())).json
    registered = api_operations(app_config.registry)
    assert ("post", "/api/projects") in registered and ("post", "/api/graphql") in registered
    missing = registered - document_operations(document)
    assert not missing, sorted(missing)
    # ...and nothing is described that is not served.
    assert not document_operations(document) - registered


def test_a_plugin_endpoint_appears(build_app, factories, seqcore_plugins):
    from tests.plugins import greeting

    app = build_app([*seqcore_plugins, greeting])
    document = app.get("/api/openapi.json", headers=factories.headers(factories.user())).json
    greetings = document["paths"]["/api/greetings"]
    assert set(greetings) == {"get", "head", "post"}
    assert greetings["get"]["operationId"] == "greeting.list.get"
    validate(document)
    bare = build_app([]).get("/api/openapi.json",
                             headers=factories.headers(factories.user())).json
    assert "/api/greetings" not in bare["paths"]
    assert "/api/samples/{sid}/pairs" not in bare["paths"]


def test_redoc_page_needs_a_session_and_carries_the_document(testapp, factories):
    response = testapp.get("/redoc", status=302)
    assert response.location.endswith("/users/sign_in?next=%2Fredoc")
    sign_in(testapp, factories.user())
    page = testapp.get("/redoc")
    carried = json.loads(page.html.find("script", id="openapi-document").string)
    assert carried["paths"]["/api/projects"]["post"]["operationId"] == "api.projects.post"
    scripts = [s["src"] for s in page.html.find_all("script") if s.get("src")]
    assert scripts and all(src.startswith("/") for src in scripts)  # served here: no CDN
    for src in scripts:
        assert testapp.get(src).content_type.endswith("javascript")
    testapp.get("/-/redoc/unknown.js", status=404)


def operation_for(document, method, url_path):
    """The document's operation serving ``method`` on ``url_path``: the path template whose
    parameters' patterns match it, the most literal first."""
    candidates = []
    for template, item in document["paths"].items():
        if method not in item:
            continue
        patterns = {p["name"]: p["schema"]["pattern"].strip("^$")
                    for p in item[method].get("parameters", []) if p["in"] == "path"}
        regex = re.sub(r"\{(\w+)\}", lambda m, p=patterns: f"(?:{p[m.group(1)]})", template)
        if re.fullmatch(regex, url_path):
            candidates.append((template.count("{"), template))
    return document["paths"][min(candidates)[1]][method] if candidates else None


def conforms(document, operation, response):
    """The response's status and media type are declared, and a JSON body matches its
    schema; returns what does not hold."""
    declared = operation["responses"].get(str(response.status_int))
    if declared is None:
        return [f"status {response.status_int} not declared"]
    content = declared.get("content", {})
    media = response.content_type
    if media not in content and "*/*" not in content:
        return [f"{media} not declared for {response.status_int}"]
    if media != "application/json":
        return []
    schema = {"$id": "urn:seqcore:openapi", "components": document["components"],
              **content[media]["schema"]}
    validator = Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(response.json)]


def test_every_answer_met_walking_the_api_is_the_documented_one(deployment, testapp):
    """Every resource a client reaches from /api through links (projects, samples, files
    and their downloads, QC, analyses and outputs, runs, users) answers as documented."""
    headers = deployment["headers"]
    document = testapp.get("/api/openapi.json", headers=headers).json
    problems, visited, queue = {}, set(), ["/api"]
    while queue:
        path = queue.pop(0)
        if path in visited:
            continue
        visited.add(path)
        url_path = urlsplit(path).path.rstrip("/") or "/api"
        operation = operation_for(document, "get", url_path)
        response = testapp.get(path, headers=headers, expect_errors=True)
        if operation is None:  # a link to POST to (a run's type): GET is not served
            if response.status_int != 405:
                problems[path] = [f"undocumented GET answered {response.status_int}"]
            continue
        if found := conforms(document, operation, response):
            problems[path] = found
        if "/files/" in url_path and not url_path.endswith("/qc"):
            download = testapp.get(path, headers={**headers, "Accept": "application/fastq"})
            if found := conforms(document, operation, download):
                problems[path + " (download)"] = found
        if response.content_type == "application/json":
            for href in hrefs(response.json):
                target = urlsplit(href)
                if target.path.startswith("/api"):
                    queue.append(target.path + (f"?{target.query}" if target.query else ""))
    assert len(visited) > 30
    assert not problems, problems
