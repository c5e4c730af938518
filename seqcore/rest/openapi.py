"""The OpenAPI 3.1 description of the REST interface, generated from what is registered.

Every :class:`~seqcore.framework.contrib.Endpoint` the core and the plugins register is a path of
the document, each of its views an operation; nothing is listed by hand, so a plugin's endpoints
appear as soon as it is installed and a removed endpoint leaves. What an endpoint declaration does
not say is added from the tables below: the request bodies the core's views read with their
marshmallow schemas (turned into JSON Schema by apispec's marshmallow plugin), which collections
page, and the shapes every answer shares: IRIDA's envelope (``{"resource": {..., "links": [...]}}``)
and the error bodies of ``docs/rest_api.md``.

The document is built once per application (the registry does not change after start-up)
and served at ``/api/openapi.json``; like every ``/api`` path it needs a token.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema
from pyramid.config import Configurator
from pyramid.registry import Registry

from seqcore import __version__
from seqcore.framework.contrib import Endpoint
from seqcore.parsing.schemas import (
    MembershipSchema,
    ProjectSchema,
    RemoteApiSchema,
    RunSchema,
    SampleSchema,
    UserSchema,
)

OPENAPI_VERSION = "3.1.0"
JSON = "application/json"
CACHE_KEY = "seqcore.openapi.document"
BYTES_CACHE_KEY = "seqcore.openapi.document.json"

# JSON bodies the core's views read, by (endpoint name, method): the schema, and whether
# every field is optional (PATCH changes only the fields sent).
REQUEST_SCHEMAS: dict[tuple[str, str], tuple[str, type[Schema], bool]] = {
    ("api.users", "POST"): ("User", UserSchema, False),
    ("api.user", "PATCH"): ("UserChanges", UserSchema, True),
    ("api.projects", "POST"): ("Project", ProjectSchema, False),
    ("api.project", "PATCH"): ("ProjectChanges", ProjectSchema, True),
    ("api.project.users", "POST"): ("Membership", MembershipSchema, False),
    ("api.project.samples", "POST"): ("Sample", SampleSchema, False),
    ("api.sample", "PATCH"): ("SampleChanges", SampleSchema, True),
    ("api.runs", "POST"): ("Run", RunSchema, False),
    ("api.run.typed", "POST"): ("Run", RunSchema, False),
    ("api.run", "PATCH"): ("RunChanges", RunSchema, True),
    ("api.remoteapis", "POST"): ("RemoteApi", RemoteApiSchema, False),
    ("api.remoteapi", "PATCH"): ("RemoteApiChanges", RemoteApiSchema, True),
}
_LIBRARY = {
    "libraryStrategy": {"type": "string", "description": "NCBI's library_strategy (WGS...)."},
    "librarySource": {"type": "string", "description": "NCBI's library_source (GENOMIC...)."},
    "librarySelection": {"type": "string",
                         "description": "NCBI's library_selection (RANDOM...)."},
    "instrumentModel": {"type": "string",
                        "description": "An instrument model of the vocabulary "
                                       "(Illumina MiSeq...)."},
    "libraryConstructionProtocol": {"type": "string", "maxLength": 4000},
}
# JSON bodies described by JSON Schema (read by the domain, not a marshmallow schema): an
# NCBI submission (docs/ncbi.md); the values allowed come from seqcore.ncbi.vocabulary.
JSON_BODIES: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {
    ("api.project.ncbi_submissions", "POST"): ("NcbiSubmissionRequest", {
        "type": "object", "additionalProperties": False,
        "required": ["bioProject", "organization", "samples"],
        "properties": {
            "bioProject": {"type": "string", "pattern": "^PRJ(NA|EB|DB)[0-9]+$"},
            "organization": {"type": "string", "minLength": 1, "maxLength": 255},
            "namespace": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"},
            "releaseDate": {"type": "string", "format": "date"},
            "bioSamplePackage": {"type": "string", "description": "Pathogen.cl.1.0..."},
            "attributes": {"type": "object", "description": "BioSample attribute: metadata "
                                                            "field name.",
                           "additionalProperties": {"type": "string"}},
            **_LIBRARY,
            "samples": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {
                "type": "object", "additionalProperties": False, "required": ["sampleId"],
                "properties": {
                    "sampleId": {"type": ["string", "integer"]},
                    "sequencingObjects": {"type": "array", "minItems": 1,
                                          "items": {"type": ["string", "integer"]}},
                    "bioSample": {"type": "string", "pattern": "^SAM(N|D|EA|E)[0-9]+$"},
                    "libraryName": {"type": "string", "maxLength": 255},
                    **_LIBRARY,
                }}},
        },
    }),
    ("api.project.exports", "POST"): ("DataExportRequest", {
        "type": "object", "additionalProperties": False,
        "description": "docs/exports.md: at least one sample or analysis.",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 255},
            "samples": {"type": "array", "maxItems": 100000,
                        "items": {"type": ["string", "integer"]}},
            "fileKinds": {"type": "array", "items": {"type": "string"},
                          "description": "pairs, unpaired, fast5, assemblies...; default "
                                         "every kind."},
            "analyses": {"type": "array", "maxItems": 1000,
                         "items": {"type": ["string", "integer"]}},
            "analysisOutputs": {"type": "array", "items": {"type": "string"}},
            "metadataFields": {"type": "array", "items": {"type": "string"}},
            "metadataTemplate": {"type": ["string", "integer"]},
        },
    }),
}

# Bodies whose extra keys are kept rather than refused (a run's run-sheet metadata).
OPEN_BODIES = {"Run", "RunChanges"}

# Other media types a view reads besides its JSON body: sharing samples into a project
# with a list of their ids.
EXTRA_BODIES: dict[str, dict[str, Any]] = {
    "api.project.samples": {"application/idcollection+json": {"schema": {
        "type": "array", "minItems": 1, "items": {"type": ["string", "integer"]}}}},
}

# Collections that page with ?limit and ?page (seqcore.rest.paging).
PAGED = {"api.project.samples"}

# The core's collections (answers {"resource": {"resources": [...], "links": [...]}}); the
# file kinds' lists are added from the kind registry.
COLLECTIONS = {"api.users", "api.projects", "api.project.users", "api.project.samples",
               "api.project.analyses", "api.runs", "api.submissions", "api.submissions.type",
               "api.project.analyses.type", "api.plugins", "api.analysis_types",
               "api.sample.sequencefiles", "api.project.ncbi_submissions",
               "api.project.exports", "api.exports", "api.remoteapis"}

# Answers with a second top-level key: a user's projects sit under ``resource`` and under
# ``projectResources``, where IRIDA's clients read them (docs/rest_api.md).
OWN_SHAPES = {"api.user.projects": "UserProjects"}

# Statuses any operation may answer with the ``{"message": ...}`` body (docs/rest_api.md).
ERROR_STATUSES = {
    "400": "Malformed body or parameters, failed validation, or unknown fields.",
    "401": "No token, or an expired, revoked or unknown one (WWW-Authenticate: Bearer).",
    "403": "The caller may read the resource but not do this.",
    "404": "No such resource, or one the caller may not read.",
    "405": "The resource does not support the method (Allow lists those it does).",
    "406": "None of the media types in Accept can be served.",
    "409": "Conflicts with the current state (a duplicate name, an input still in use).",
    "413": "The body or an uploaded file is larger than the deployment allows.",
    "415": "The body's media type is not one this endpoint reads.",
    "429": "Too many failed sign-ins; try again later.",
}
# What a successful call answers, by method.
SUCCESS = {"get": ("200",), "post": ("200", "201"), "put": ("200",),
           "patch": ("200",), "delete": ("200", "204")}

_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::((?:[^{}]|\{[^{}]*\})+))?\}")


def openapi_path(pattern: str) -> tuple[str, list[dict[str, Any]]]:
    """A route pattern as an OpenAPI path and its path parameters: ``{pid:\\d+}`` becomes
    ``{pid}`` with the route's regular expression as the parameter's pattern."""
    parameters = []

    def name_only(match: re.Match[str]) -> str:
        name, regex = match.group(1), match.group(2) or "[^/]+"
        regex = regex.replace("\\d", "[0-9]")
        parameters.append({"name": name, "in": "path", "required": True,
                           "schema": {"type": "string", "pattern": f"^{regex}$"}})
        return "{" + name + "}"

    return _PARAM.sub(name_only, pattern), parameters


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {JSON: {"schema": dict(schema)}}


# The shapes every answer shares.
SHAPES: dict[str, dict[str, Any]] = {
    "Link": {
        "type": "object", "required": ["rel", "href"],
        "properties": {"rel": {"type": "string"}, "href": {"type": "string"}},
    },
    "Resource": {
        "type": "object", "required": ["links"],
        "description": "One resource: its fields and its links. Timestamps are integers of "
                       "milliseconds since the epoch; identifier is the id as a string.",
        "properties": {
            "links": {"type": "array", "items": _ref("Link")},
            "identifier": {"type": "string"},
            "label": {"type": ["string", "null"]},
            "createdDate": {"type": ["integer", "null"]},
            "modifiedDate": {"type": ["integer", "null"]},
        },
        "additionalProperties": True,
    },
    "Collection": {
        "type": "object", "required": ["links", "resources"],
        "description": "A collection: its entries (each with its own links) and its links "
                       "(next/prev when paged).",
        "properties": {
            "links": {"type": "array", "items": _ref("Link")},
            "resources": {"type": "array", "items": _ref("Resource")},
        },
        "additionalProperties": True,
    },
    "Envelope": {
        "type": "object", "required": ["resource"],
        "properties": {"resource": _ref("Resource")},
        "additionalProperties": True,
    },
    "CollectionEnvelope": {
        "type": "object", "required": ["resource"],
        "properties": {"resource": _ref("Collection")},
        "additionalProperties": True,
    },
    "UserProjects": {
        "type": "object", "required": ["resource", "projectResources"],
        "properties": {"resource": _ref("Collection"),
                       "projectResources": _ref("Collection")},
        "additionalProperties": True,
    },
    "Message": {
        "type": "object", "required": ["message"],
        "description": "An error. A body with unknown fields also lists "
                       "acceptable-properties.",
        "properties": {
            "message": {"type": "string"},
            "acceptable-properties": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": True,
    },
    "FieldErrors": {
        "type": "object",
        "description": "Failed validation: every problem at once, by field name.",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    "Token": {
        "type": "object", "required": ["access_token", "token_type"],
        "properties": {
            "access_token": {"type": "string"}, "token_type": {"type": "string"},
            "expires_in": {"type": "integer"}, "scope": {"type": "string"},
            "refresh_token": {"type": "string"},
        },
        "additionalProperties": True,
    },
    "OAuthError": {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
        "additionalProperties": True,
    },
    "GraphQLRequest": {
        "type": "object", "required": ["query"],
        "properties": {"query": {"type": "string"},
                       "variables": {"type": ["object", "null"]},
                       "operationName": {"type": ["string", "null"]}},
    },
    "GraphQLResponse": {
        "type": "object",
        "properties": {"data": {"type": ["object", "null"]},
                       "errors": {"type": "array", "items": {"type": "object"}}},
        "additionalProperties": True,
    },
}

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "bearer": {"type": "http", "scheme": "bearer",
               "description": "An OAuth2 access token from /api/oauth/token."},
    "oauth2": {
        "type": "oauth2",
        "description": "seqcore's OAuth2 server. The client authenticates with its client_id "
                       "and client_secret; the client_credentials grant is not offered (a "
                       "token always acts for a user, docs/security.md).",
        "flows": {
            "password": {"tokenUrl": "/api/oauth/token", "refreshUrl": "/api/oauth/token",
                         "scopes": {"read": "Read what the user may read.",
                                    "write": "Change what the user may change."}},
            "authorizationCode": {"authorizationUrl": "/api/oauth/authorize",
                                  "tokenUrl": "/api/oauth/token",
                                  "refreshUrl": "/api/oauth/token",
                                  "scopes": {"read": "Read what the user may read.",
                                             "write": "Change what the user may change."}},
        },
    },
    "personalToken": {"type": "http", "scheme": "basic",
                      "description": "GraphQL only: e-mail and a personal access token "
                                     "(scopes read_api, api) made on the profile page."},
}
API_SECURITY = [{"bearer": []}, {"oauth2": ["read", "write"]}]

# The token endpoints authenticate the OAuth client (form fields or Basic), not a user's
# token, and answer OAuth2's own shapes.
OAUTH_FORM = {"application/x-www-form-urlencoded": {"schema": {
    "type": "object",
    "properties": {name: {"type": "string"} for name in (
        "grant_type", "client_id", "client_secret", "username", "password", "refresh_token",
        "code", "redirect_uri", "scope", "token", "token_type_hint")},
}}}


def _errors(statuses: Iterable[str]) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in statuses:
        schema: dict[str, Any] = _ref("Message")
        if status == "400":
            schema = {"anyOf": [_ref("Message"), _ref("FieldErrors")]}
        responses[status] = {"description": ERROR_STATUSES[status], "content": _json(schema)}
    return responses


def _success(endpoint: Endpoint, method: str, renderer: str | None,
             kinds: Mapping[str, int]) -> dict[str, Any]:
    collection = endpoint.name in COLLECTIONS or endpoint.name in kinds
    schema = _ref("CollectionEnvelope" if collection and method == "get" else "Envelope")
    if endpoint.name in OWN_SHAPES and method == "get":
        schema = _ref(OWN_SHAPES[endpoint.name])
    content: dict[str, Any] = _json(schema)
    if renderer is None:
        # A view that makes its own response: a download by Accept, a redirect, a page.
        content["*/*"] = {"schema": {}}
    responses: dict[str, Any] = {}
    for status in SUCCESS[method]:
        if status == "204":
            responses[status] = {"description": "Done; nothing to answer."}
        else:
            responses[status] = {"description": "Created." if status == "201" else "OK.",
                                 "content": content}
    if renderer is None and method == "get":
        responses["302"] = {"description": "Found elsewhere (Location)."}
    return responses


def _operation(endpoint: Endpoint, method: str, renderer: str | None,
               parameters: list[dict[str, Any]], bodies: Mapping[tuple[str, str], str],
               tag: str, kinds: Mapping[str, int]) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": f"{endpoint.name}.{method}",
        "summary": endpoint.description.split(". ")[0][:120] if endpoint.description else
        endpoint.name,
        "tags": [tag],
    }
    if endpoint.description:
        operation["description"] = endpoint.description
    if parameters:
        operation["parameters"] = list(parameters)
    if method == "get" and endpoint.name in PAGED:
        operation.setdefault("parameters", []).extend([
            {"name": "limit", "in": "query", "required": False,
             "description": "Page size; without it the collection is returned whole.",
             "schema": {"type": "integer", "minimum": 1, "maximum": 10_000}},
            {"name": "page", "in": "query", "required": False,
             "description": "Page number, from 1.",
             "schema": {"type": "integer", "minimum": 1}},
        ])
    body = bodies.get((endpoint.name, method.upper()))
    if body is not None:
        operation["requestBody"] = {"required": True, "content": _json(_ref(body))}
        operation["requestBody"]["content"].update(EXTRA_BODIES.get(endpoint.name, {}))
    elif endpoint.name in kinds and method == "post":
        operation["requestBody"] = {"required": True, "content": _upload(kinds[endpoint.name])}
    elif method in ("post", "put", "patch"):
        # A body no schema is declared for (a plugin's, a launch, metadata): a JSON object
        # that the view checks itself.
        operation["requestBody"] = {"required": False,
                                    "content": _json({"type": "object"})}
    operation["responses"] = {**_success(endpoint, method, renderer, kinds),
                              **_errors(ERROR_STATUSES)}
    return operation


def _upload(files: int) -> dict[str, Any]:
    """Uploads of a file kind: ``file`` (+ ``parameters``), or ``file1``/``file2`` for pairs."""
    names = ["file"] if files == 1 else [f"file{n}" for n in range(1, files + 1)]
    properties: dict[str, Any] = {}
    for index, name in enumerate(names):
        suffix = "" if files == 1 else str(index + 1)
        properties[name] = {"type": "string", "contentMediaType": "application/octet-stream"}
        properties[f"parameters{suffix}"] = {
            "type": "string", "contentMediaType": JSON,
            "description": "JSON: miseqRunId (alias sequencingRunId) ties the file to a run."}
    return {"multipart/form-data": {"schema": {"type": "object", "required": names,
                                               "properties": properties}}}


def _oauth_operation(endpoint: Endpoint, method: str, tag: str) -> dict[str, Any]:
    success: dict[str, Any]
    if endpoint.name == "oauth.authorize":
        success = {"200": {"description": "The consent page.",
                           "content": {"text/html": {"schema": {"type": "string"}}}},
                   "302": {"description": "Back to the client's redirect URI."}}
    elif endpoint.name == "oauth.token":
        success = {"200": {"description": "A token.", "content": _json(_ref("Token"))}}
    else:
        success = {"200": {"description": "OK.", "content": _json({"type": "object"})}}
    if endpoint.name == "oauth.authorize":
        # A page for the user's browser: its refusals are pages too.
        error_content: dict[str, Any] = {"text/html": {"schema": {"type": "string"}},
                                         **_json(_ref("Message"))}
    else:
        error_content = _json({"anyOf": [_ref("OAuthError"), _ref("Message")]})
    failure = {status: {"description": text, "content": error_content}
               for status, text in ERROR_STATUSES.items()}
    failure.pop("404")
    failure["200"] = success["200"]
    operation: dict[str, Any] = {
        "operationId": f"{endpoint.name}.{method}", "summary": endpoint.description,
        "tags": [tag], "security": [{}], "responses": {**failure, **success},
    }
    if method == "post":
        operation["requestBody"] = {"required": True, "content": OAUTH_FORM}
    elif endpoint.name == "oauth.authorize":
        operation["parameters"] = [
            {"name": name, "in": "query", "required": name in ("client_id", "response_type"),
             "schema": {"type": "string"}}
            for name in ("response_type", "client_id", "redirect_uri", "scope", "state",
                         "code_challenge", "code_challenge_method")]
    return operation


def _graphql_path() -> dict[str, Any]:
    responses = {"200": {"description": "The query's data and errors.",
                         "content": _json(_ref("GraphQLResponse"))},
                 **{status: {"description": ERROR_STATUSES[status], "content": _json({
                     "anyOf": [_ref("GraphQLResponse"), _ref("Message")]})}
                    for status in ("400", "401", "405", "409", "413", "415")}}
    common = {"tags": ["graphql"], "security": [{"personalToken": []}],
              "description": "The GraphQL API (docs/graphql.md); its schema is served by "
                             "introspection."}
    return {
        "get": {**common, "operationId": "graphql.get", "summary": "A read-only query.",
                "parameters": [{"name": "query", "in": "query", "required": True,
                                "schema": {"type": "string"}}],
                "responses": responses},
        "post": {**common, "operationId": "graphql.post", "summary": "A query or mutation.",
                 "requestBody": {"required": True, "content": _json(_ref("GraphQLRequest"))},
                 "responses": responses},
    }


def _tag(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    return parts[1] if len(parts) > 1 else "root"


def build_document(endpoints: Iterable[Endpoint], kinds: Mapping[str, int],
                   graphql_path: str | None = "/api/graphql") -> dict[str, Any]:
    """The OpenAPI document of ``endpoints``; ``kinds`` maps the upload endpoints of file
    kinds to how many files one upload takes."""
    spec = APISpec(title="seqcore", version=__version__, openapi_version=OPENAPI_VERSION,
                   plugins=[MarshmallowPlugin()],
                   info={"description": "seqcore's REST interface (IRIDA's dialect): every "
                                        "answer is {\"resource\": ...} with links to follow. "
                                        "See docs/rest_api.md."})
    for name, shape in SHAPES.items():
        spec.components.schema(name, shape)
    bodies: dict[tuple[str, str], str] = {}
    for key, (name, schema, partial) in REQUEST_SCHEMAS.items():
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema(partial=partial))
            if name in OPEN_BODIES:
                spec.components.schemas[name]["additionalProperties"] = {
                    "type": ["string", "number", "integer", "boolean", "null"]}
        bodies[key] = name
    for key, (name, json_schema) in JSON_BODIES.items():
        spec.components.schema(name, json_schema)
        bodies[key] = name
    for scheme, definition in SECURITY_SCHEMES.items():
        spec.components.security_scheme(scheme, definition)
    for endpoint in sorted(endpoints, key=lambda e: e.path):
        path, parameters = openapi_path(endpoint.path)
        tag = _tag(path)
        operations: dict[str, Any] = {}
        for method, view in endpoint.views.items():
            verb = method.lower()
            if endpoint.name.startswith("oauth."):
                operations[verb] = _oauth_operation(endpoint, verb, tag)
            else:
                operations[verb] = _operation(endpoint, verb, view.renderer, parameters,
                                              bodies, tag, kinds)
        if "get" in operations:
            # HEAD follows GET wherever GET is served: the same answers without bodies.
            head = copy.deepcopy(operations["get"])
            head["operationId"] = f"{endpoint.name}.head"
            head["responses"] = {status: {"description": response["description"]}
                                 for status, response in head["responses"].items()}
            operations["head"] = head
        spec.path(path=path, operations=operations)
    if graphql_path is not None:
        spec.path(path=graphql_path, operations=_graphql_path())
    document = spec.to_dict()
    document["security"] = API_SECURITY
    return document


def document_for(registry: Registry) -> dict[str, Any]:
    """The application's document, built on first use."""
    cached = registry.get(CACHE_KEY)
    if cached is None:
        endpoints = registry.get("seqcore.endpoints", {}).values()
        cached = build_document(endpoints, upload_endpoints(registry))
        registry[CACHE_KEY] = cached
    return cached


def document_bytes(registry: Registry) -> bytes:
    """The application's document as the JSON ``/api/openapi.json`` answers, serialised on
    first use and kept."""
    cached = registry.get(BYTES_CACHE_KEY)
    if cached is None:
        cached = json.dumps(document_for(registry), separators=(",", ":")).encode()
        registry[BYTES_CACHE_KEY] = cached
    return cached


def upload_endpoints(registry: Registry) -> dict[str, int]:
    """The upload endpoints of the registered file kinds (their names, canonical and alias,
    as :mod:`seqcore.rest.kinds` gives them, and the sample's ``sequenceFiles`` for the
    default kind) and their number of files."""
    from seqcore.resources.files import registered_kinds

    uploads = {}
    for kind in registered_kinds(registry).values():
        uploads[f"api.{kind.name}"] = kind.files
        uploads[f"api.{kind.name}.alias"] = kind.files
        if kind.default_upload:  # POST /api/samples/{sid}/sequenceFiles uploads one
            uploads["api.sample.sequencefiles"] = kind.files
    return uploads


def includeme(config: Configurator) -> None:
    # The web pages show the document too (seqcore.web.redoc) without importing REST.
    config.add_request_method(lambda request: document_for(request.registry),
                              "openapi_document", reify=True)
