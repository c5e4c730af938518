"""Hostile requests for every registered endpoint, generated with hypothesis, sent to a live
server; a 5xx (or a GraphQL ``internal_error``) is recorded with the traceback it logged.

The targets are read from the application's registry, not listed here: every
:class:`~seqcore.framework.contrib.Endpoint` (its URL pattern and the methods it declares), every
other route (web pages, OAuth, GraphQL) and every root field of the GraphQL schema. A plugin's new
endpoint or mutation is fuzzed without editing this module.

What is generated (see :class:`Strategies`): ids in path segments (real ones, and ``²``,
other Unicode digits, 19 digits, beyond 64 bits, negative, non-ASCII); query parameters
(``page``, ``limit``, cursors, ``ownership``...); JSON bodies with the endpoints' field names
and wrong types, lists and objects for scalars, ``null``, lone surrogates as raw ``\\ud800``
escapes, deep nesting, numbers too big for any column, metadata keys that collide after
trimming; forms; multipart uploads with odd part names and file names; Content-Types with
unknown charsets; every method an endpoint allows (and one it does not); as an
administrator, an ordinary user, a sequencer and nobody. GraphQL operations are built from
the schema, with variables of the declared types carrying hostile values, and sometimes of the
wrong types; some documents hold two mutations.

hypothesis is used for generation only (no shrinking): every failure is recorded, so one run
gives the whole list, grouped by route and root cause in :meth:`Findings.summary`. The run
learns as it goes, from the answers only (so a seed still gives the same run against the same
code): field names from ``acceptable-properties`` and from resources a route returns, and
which routes take multipart uploads (their 415).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import http.client
import json
import os
import re
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from hypothesis import strategies as st

PLACEHOLDER = re.compile(r"\{(\w+)(?::([^}]*))?\}")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
BODY_METHODS = ("POST", "PUT", "PATCH")
REPO_MARKERS = ("/seqcore/", "/plugins/")
# hypothesis favours the first of small integer ranges and of one_of's branches; drawing
# from lists of repeated values spreads evenly.
MOSTLY = st.sampled_from([True] * 17 + [False] * 3)
ONE_IN_THREE = st.sampled_from([True, False, False])
ONE_IN_TEN = st.sampled_from([True] + [False] * 9)
SPREAD = st.sampled_from(range(997))  # an index into a pool, evenly
CHUNK = 100  # requests generated per hypothesis run; the time budget is checked between

# Ids that are not what `int` accepts, or not what a column holds.
HOSTILE_IDS = (
    "²", "³", "٣", "१", "\uff11\uff12", "\U0001d7d9", "0", "-1", "-0", "00", "007", "+1",
    " 1", "1 ", "1.0",
    "1e3", "0x1f", "1_000", str(2**31), str(2**31 - 1), str(2**63 - 1), str(2**63),
    str(2**64), "9" * 19, "1" * 19, "9" * 40, "9" * 400, "é", "ß", "名前", "\u200b", "%00",
    "..", ".", "null", "true", "[]", "{}", "NaN", "Infinity", "a" * 300,
)
HOSTILE_STRINGS = (
    "", " ", "\ud800", "a\udfffb", "\x00", "\r\n", "a\u0000b", "²", "'\"<>&", "%s%n",
    "é" * 300, "x" * 5000, "🧬", "\u202e", "..\\..\\", "../../etc/passwd", "true", "null",
    "1e999", str(2**64), "-9" * 20, "2024-13-45", "0000-00-00", "gid://seqcore/Sample/²",
)
HUGE_NUMBERS = (2**31, 2**63, 2**64, -(2**63) - 1, 10**30, -(10**30), 1e308, -1e308, 0.5)
QUERY_KEYS = ("page", "limit", "size", "cursor", "after", "before", "first", "last",
              "ownership", "sampleName", "sort", "order", "q", "name", "type", "state",
              "includeSamples", "format", "projectId", "sampleId", "analysisType")
METADATA_KEYS = ("a", " a", "a ", " a ", "\ta", "A", "a\u00a0", "organism", " organism")
FORM_KEYS = ("grant_type", "client_id", "client_secret", "username", "password", "scope",
             "refresh_token", "code", "redirect_uri", "response_type", "state", "token",
             "token_type_hint", "code_verifier", "csrf_token", "name", "scopes", "expires_at",
             "login", "remember_me", "current_password", "new_password")
EXTRA_FIELDS = ("metadata", "uploadStatus", "priority", "description", "label", "resources",
                "identifier", "miseqRunId", "sequencingRunId", "layoutType", "sequencerType",
                "ownership", "projectRole", "samples", "sequenceFiles", "inputParameters",
                "parameters", "reference", "writeResults", "emailPipelineResult",
                "analysisType", "submissions", "enabled", "href", "rel", "links", "runId",
                "id", "ids", "type", "value", "samplesToCopy", "fileName")
CONTENT_TYPES = (
    "application/json", "application/json; charset=utf-8", "application/json; charset=bogus",
    "application/json; charset=utf-16", "application/json; charset=latin-1",
    "application/json; charset=\"\"", "application/json; charset=utf-8; charset=ascii",
    "application/idcollection+json", "application/hal+json", "text/plain",
    "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=bogus",
    "multipart/form-data", "multipart/form-data; boundary=", "application/octet-stream",
    "*/*", "", "json",
)
ACCEPTS = ("application/json", "*/*", "application/fastq", "application/fasta", "text/html",
           "application/xml", "application/hal+json", "text/csv", "garbage", "",
           "application/json;q=x")
FILE_PART_NAMES = ("file", "file1", "file2", "parameters", "parameters1", "parameters2",
                   "files", "file3", "", "FILE", "file\u00e9")
FILE_NAMES = (
    "reads.fastq", "x_R1.fastq", "x_R2.fastq", "x_1.fastq.gz", "x_2.fastq.gz",
    "assembly.fasta", "run.fast5", "é.fastq", "名前_R1.fastq", "a\"b.fastq", "a;b=c.fastq",
    "a\rb.fastq", "a\r\nContent-Type: x.fastq", "\x01\x02.fastq", "../../x.fastq",
    "C:\\temp\\x.fastq", "/abs/path/x.fastq", "", ".", "..", "x" * 300 + ".fastq",
    "é" * 200 + ".fastq", "a\x00b.fastq", " .fastq", "x.FASTQ", "x.gz",
)


def _deep(depth: int, opener: bytes = b"[", closer: bytes = b"]") -> bytes:
    return opener * depth + closer * depth


RAW_BODIES = (
    b"", b"null", b"[]", b"{}", b"\"\"", b"0", b"{", b"\xff\xfe{}", b"\xef\xbb\xbf{}",
    b"{\"a\": \"\\ud800\"}", b"{\"\\ud800\": 1}", b"[\"\\udfff\\ud800\"]",
    b"{\"sampleName\": \"\\ud800\"}", b"{\"name\": \"\\udc00x\"}",
    b"{\"a\": 1e999999}", b"{\"a\": -1e999999}", b"{\"a\": " + b"9" * 5000 + b"}",
    b"{\"a\": NaN}", b"{\"a\": Infinity}", _deep(100_000), _deep(5000, b"{\"a\":", b"}"),
    b"{\"a\": " + _deep(3000) + b"}", b"\x00\x01\x02", "{\"a\": \"é\"}".encode("latin-1"),
    "{\"a\": 1}".encode("utf-16"), b"{\"a\":1,\"a\":2}", b"{\"metadata\": {\"a\": \"1\", "
    b"\" a \": \"2\"}}", b"[" + b"{}," * 10_000 + b"{}]", b"\"" + b"\\u0000" * 1000 + b"\"",
)


@dataclass(frozen=True)
class Target:
    """One route: its public pattern and the methods it declares (``None``: unknown)."""

    name: str
    pattern: str
    methods: tuple[str, ...]
    graphql: bool = False
    endpoint: bool = False  # a REST endpoint (seqcore.framework.contrib.Endpoint), not a page

    def placeholders(self) -> list[str]:
        return [m.group(1) for m in PLACEHOLDER.finditer(self.pattern)]


def discover_targets(registry: Any) -> list[Target]:
    """Every route of the configured app: endpoints with their declared methods, other routes
    (web pages, GraphQL) with every method. Static assets are left out."""
    from pyramid.interfaces import IRoutesMapper

    endpoints = registry.get("seqcore.endpoints", {})
    mapper = registry.queryUtility(IRoutesMapper)
    targets = []
    for route in mapper.get_routes():
        pattern = route.pattern if route.pattern.startswith("/") else "/" + route.pattern
        if "*" in pattern or "static" in route.name:
            continue
        endpoint = endpoints.get(route.name)
        if endpoint is not None:
            declared = tuple(m.upper() for m in endpoint.views)
            if "GET" in declared:
                declared += ("HEAD",)
            targets.append(Target(route.name, pattern, declared, endpoint=True))
        else:
            targets.append(Target(route.name, pattern, METHODS,
                                  graphql=route.name == "graphql"))
    return sorted(targets, key=lambda t: t.name)


def field_names() -> list[str]:
    """The JSON field names the REST schemas know (marshmallow), and a few more the views
    read by hand; bodies use them so that they get past "unknown field" checks."""
    from marshmallow import Schema

    def subclasses(cls: type) -> list[type]:
        found: list[type] = []
        sub: type
        for sub in cls.__subclasses__():
            found += [sub, *subclasses(sub)]
        return found

    names = {(f.data_key or n) for c in subclasses(Schema)
             for n, f in getattr(c, "_declared_fields", {}).items()}
    return sorted(names | set(EXTRA_FIELDS))


# --- what a fuzzing run knows about the server ------------------------------------------------


@dataclass
class Account:
    """A role the fuzzer acts as: a bearer token for REST, Basic with a personal access token
    for GraphQL."""

    role: str
    bearer: str | None
    email: str = ""
    pat: str = ""

    def headers(self, graphql: bool) -> dict[str, str]:
        if self.bearer is None:
            return {}
        if graphql:
            raw = base64.b64encode(f"{self.email}:{self.pat}".encode()).decode()
            return {"Authorization": f"Basic {raw}"}
        return {"Authorization": f"Bearer {self.bearer}"}


@dataclass
class Pools:
    """Real values for placeholders (``sid`` -> sample ids...), grown by seeding and by what
    the server creates during the run; ``gids`` are GraphQL global ids."""

    values: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    gids: list[str] = field(default_factory=list)
    bindings: list[dict[str, str]] = field(default_factory=list)
    fields: dict[str, list[str]] = field(default_factory=dict)
    uploads: set[str] = field(default_factory=set)  # routes that take multipart uploads

    def add(self, name: str, *values: object) -> None:
        pool = self.values[name]
        for value in values:
            text = str(value)
            if text not in pool:
                pool.append(text)

    def learn_fields(self, route: str, names: list[str]) -> None:
        """The field names a route said it accepts (``acceptable-properties``), or that its
        resources have (a GET's answer): later bodies for the route use them."""
        self.fields[route] = sorted({*self.fields.get(route, ()), *(str(n) for n in names)}
                                    - {"links", "resources"})

    def learn_from_answer(self, route: str, answer: Any) -> None:
        resource = answer.get("resource") if isinstance(answer, dict) else None
        if isinstance(resource, dict) and isinstance(resource.get("resources"), list):
            items = resource["resources"]
            resource = items[0] if items else None
        if isinstance(resource, dict) and not set(resource) <= set(self.fields.get(route, ())):
            self.learn_fields(route, list(resource))

    def field(self, route: str, index: int, fallback: list[str]) -> str:
        """A field name for a body of ``route``: mostly one it accepts, once learnt."""
        learnt = self.fields.get(route)
        if learnt and index % 6:
            return learnt[index % len(learnt)]
        return fallback[index % len(fallback)]

    def bind(self, **values: object) -> None:
        """Values that belong together in one path (a sample, its object, its file)."""
        self.bindings.append({k: str(v) for k, v in values.items()})
        for key, value in values.items():
            self.add(key, value)

    def binding(self, index: int) -> dict[str, str]:
        return self.bindings[index % len(self.bindings)] if self.bindings else {}

    def pick(self, name: str, index: int) -> str | None:
        pool = self.values.get(name) or self.values.get("*")
        if not pool:
            return None
        return pool[index % len(pool)]


# --- strategies -----------------------------------------------------------------------------

@functools.cache
def _text(max_size: int = 30) -> st.SearchStrategy[str]:
    """Text of any code point, and text made of lone surrogates, NUL, ``²`` and friends
    (hypothesis draws a surrogate rarely on its own)."""
    odd = st.lists(st.sampled_from(("\ud800", "\udfff", "a", "é", "\x00", "²", " ", "\n")),
                   max_size=max_size).map("".join)
    return st.one_of(st.text(st.characters(codec=None, exclude_categories=()),
                             max_size=max_size), odd)


@st.composite
def _colliding_metadata(draw: Any) -> dict[str, Any]:
    drawn: dict[str, Any] = draw(st.dictionaries(st.sampled_from(METADATA_KEYS),
                                                 Strategies.scalars, min_size=1, max_size=4))
    return drawn


class Strategies:
    """hypothesis strategies for the parts of a request."""

    scalars: st.SearchStrategy[Any] = st.one_of(
        st.none(), st.booleans(), st.sampled_from(HUGE_NUMBERS),
        st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
        st.sampled_from(HOSTILE_STRINGS), st.sampled_from(HOSTILE_IDS), _text(),
    )

    def __init__(self, pools: Pools, fields: list[str], gid_types: list[str]) -> None:
        self.pools = pools
        self.fields = fields
        self.gid_types = gid_types
        keys = st.one_of(st.sampled_from(fields), st.sampled_from(METADATA_KEYS), _text(12))
        self.json = st.recursive(
            self.scalars,
            lambda children: st.one_of(st.lists(children, max_size=4),
                                       st.dictionaries(keys, children, max_size=4)),
            max_leaves=12)
        self._identifiers: dict[str, st.SearchStrategy[str]] = {}
        self._bodies: dict[tuple[str, str], st.SearchStrategy[Any]] = {}
        self._graphql_values: dict[tuple[str, int], st.SearchStrategy[Any]] = {}
        self.shaped = st.dictionaries(
            st.sampled_from(fields), st.one_of(self.scalars, self.json,
                                               _colliding_metadata()), max_size=6)

    def identifier(self, name: str) -> st.SearchStrategy[str]:
        """Mostly a real value of the placeholder ``name`` (so the request reaches the
        view), else a hostile one."""
        if name not in self._identifiers:
            real = SPREAD.map(lambda i: self.pools.pick(name, i) or "1")
            hostile = st.one_of(st.sampled_from(HOSTILE_IDS), st.sampled_from(HOSTILE_IDS),
                                _text(12).filter(bool))
            self._identifiers[name] = st.one_of([real] * 8 + [hostile] * 2)
        return self._identifiers[name]

    def path(self, target: Target) -> st.SearchStrategy[str]:
        """The target's pattern filled in: mostly from one binding (ids that belong together,
        so the request gets past traversal), each placeholder sometimes replaced."""

        @st.composite
        def build(draw: Any) -> str:
            binding = self.pools.binding(draw(SPREAD))

            def fill(match: re.Match[str]) -> str:
                name = match.group(1)
                # Always drawn: what is drawn must not depend on the pools' state.
                if draw(MOSTLY) and name in binding:
                    return _quote(binding[name])
                return _quote(draw(self.identifier(name)))

            path = PLACEHOLDER.sub(fill, target.pattern)
            return cast("str", path + draw(st.sampled_from(("", "", "", "", "/", "//"))))

        return build()

    @functools.cached_property
    def query(self) -> st.SearchStrategy[str]:
        values = st.one_of(st.sampled_from(HOSTILE_IDS), st.sampled_from(HOSTILE_STRINGS),
                           st.integers(-(2**70), 2**70).map(str), _text(10),
                           st.sampled_from(("true", "false", "1", "25", "0", "")))
        pairs = st.lists(st.tuples(st.one_of(st.sampled_from(QUERY_KEYS), _text(8)), values),
                         max_size=4)
        return pairs.map(lambda items: "&".join(f"{_quote(k)}={_quote(v)}" for k, v in items))

    def body(self, target: Target, method: str) -> st.SearchStrategy[tuple[bytes, str | None]]:
        """``(body, content type)``: mostly JSON objects with the target's field names
        (learnt from its ``acceptable-properties`` answers) and hostile values; also raw
        hostile bytes, forms, multipart, other content types. Bodyless requests mostly for
        GET and friends."""
        key = (target.name, method)
        if key in self._bodies:
            return self._bodies[key]
        values = st.one_of(self.json, self.scalars, _colliding_metadata())
        shaped = st.lists(st.tuples(SPREAD, values), max_size=5).map(
            lambda items: {self.pools.field(target.pattern, i, self.fields): v for i, v in items})
        json_body = st.one_of(shaped, shaped, shaped, self.json, _colliding_metadata()
                              ).map(_dumps)
        as_json = st.tuples(json_body, st.just("application/json"))
        kinds = st.one_of(
            as_json, as_json, as_json, as_json, as_json, as_json,
            st.tuples(json_body, st.sampled_from(CONTENT_TYPES)),
            st.tuples(st.sampled_from(RAW_BODIES), st.just("application/json")),
            st.tuples(st.sampled_from(RAW_BODIES), st.sampled_from(CONTENT_TYPES)),
            st.tuples(self.form, st.sampled_from(
                ("application/x-www-form-urlencoded",
                 "application/x-www-form-urlencoded; charset=bogus"))),
            self.multipart, self.multipart,
        )
        if method in BODY_METHODS:
            # Both are always drawn (what is drawn must not depend on what the run learnt);
            # a route that said it takes uploads mostly gets the multipart one.
            strategy = st.tuples(st.one_of(kinds, kinds, kinds, kinds, st.just((b"", None))),
                                 self.multipart, MOSTLY).map(
                lambda t: t[1] if t[2] and target.pattern in self.pools.uploads else t[0])
        else:
            strategy = st.one_of(st.just((b"", None)), st.just((b"", None)),
                                 st.just((b"", None)), kinds)
        self._bodies[key] = strategy
        return strategy

    @functools.cached_property
    def form(self) -> st.SearchStrategy[bytes]:
        values = st.one_of(st.sampled_from(HOSTILE_STRINGS), _text(20),
                           st.sampled_from(("password", "refresh_token", "authorization_code",
                                            "client_credentials", "read write", "code")))
        pairs = st.lists(st.tuples(st.sampled_from(FORM_KEYS), values), max_size=6)
        return pairs.map(lambda items: "&".join(
            f"{_quote(k)}={_quote(v)}" for k, v in items).encode())

    @functools.cached_property
    def multipart(self) -> st.SearchStrategy[tuple[bytes, str | None]]:
        from seqcore.testing.uploads import fasta, fastq

        contents = st.sampled_from((fastq(reads=3, seed=1), fastq(reads=3, seed=2),
                                    gzip.compress(fastq(reads=3, seed=3), mtime=0),
                                    fasta(contigs=1, length=50), b"", b"\x00garbage\xff",
                                    b"@r\nACGT\n+\nII\n", b"{}", b"{\"miseqRunId\": \"1\"}"))
        parameters = st.one_of(self.shaped, self.json).map(_dumps)
        part = st.tuples(
            st.sampled_from(FILE_PART_NAMES),
            st.one_of(st.none(), st.sampled_from(FILE_NAMES), _text(20)),
            st.one_of(contents, parameters),
            st.sampled_from((None, None, "application/json", "application/octet-stream",
                             "text/plain; charset=bogus")))
        boundaries = st.sampled_from(("B0undary", "B0undary", "x" * 75, "é", "a b", ""))
        hostile = st.tuples(st.lists(part, max_size=5), boundaries)
        # Uploads as a client makes them (one file or a pair, maybe parameters), with odd
        # file names and parameters: these get past the multipart parser into the views.
        names = st.one_of(st.sampled_from(FILE_NAMES), _text(20))
        reads = st.sampled_from((fastq(reads=3, seed=4), fasta(contigs=1, length=50),
                                 b"@r\nACGT\n+\nII\n"))
        parameter_part = st.tuples(st.sampled_from(("parameters", "parameters1")),
                                   st.sampled_from((None, None, "p.json")), parameters,
                                   st.just("application/json"))
        single = st.tuples(st.just("file"), names, reads, st.none())
        pair = st.tuples(st.tuples(st.just("file1"), names, reads, st.none()),
                         st.tuples(st.just("file2"), names, reads, st.none()))
        uploads = st.tuples(
            st.one_of(single.map(lambda p: [p]), pair.map(list)),
            st.lists(parameter_part, max_size=2)).map(lambda t: (t[0] + t[1], "B0undary"))
        return st.one_of(uploads, hostile).map(_multipart)

    def graphql(self, schema: Any) -> st.SearchStrategy[bytes]:
        """A GraphQL request body: an operation on one or two root fields of the schema."""
        from graphql import GraphQLNonNull

        roots = [(schema.query_type, "query")]
        if schema.mutation_type is not None:
            roots.append((schema.mutation_type, "mutation"))
        choices = [(root, kind, name) for root, kind in roots for name in root.fields]

        @st.composite
        def build(draw: Any) -> bytes:
            root, kind, name = draw(st.sampled_from(choices))
            picked = [name]
            if kind == "mutation" and draw(st.booleans()):
                picked.append(draw(st.sampled_from(sorted(root.fields))))
            definitions, selections, variables = [], [], {}
            for position, field_name in enumerate(picked):
                gql_field = root.fields[field_name]
                args = []
                for arg_name, arg in gql_field.args.items():
                    if not isinstance(arg.type, GraphQLNonNull) and draw(st.booleans()):
                        continue
                    var = f"v{position}_{arg_name}"
                    definitions.append(f"${var}: {arg.type}")
                    args.append(f"{arg_name}: ${var}")
                    variables[var] = draw(self.graphql_value(arg.type, schema))
                call = f"f{position}: {field_name}" + (f"({', '.join(args)})" if args else "")
                selections.append(call + _selection(gql_field.type))
            if draw(ONE_IN_TEN):
                variables = draw(st.dictionaries(st.sampled_from(sorted(variables) or ["x"]),
                                                 self.json, max_size=3))
            head = f"{kind} Fuzz" + (f"({', '.join(definitions)})" if definitions else "")
            return _dumps({"query": f"{head} {{ {' '.join(selections)} }}",
                           "variables": variables})

        return build()

    def graphql_value(self, gql_type: Any, schema: Any, depth: int = 0
                      ) -> st.SearchStrategy[Any]:
        """Values of ``gql_type``, with hostile content (and sometimes ``null``)."""
        key = (str(gql_type), depth)
        if key not in self._graphql_values:
            self._graphql_values[key] = self._graphql_value(gql_type, schema, depth)
        return self._graphql_values[key]

    def _graphql_value(self, gql_type: Any, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        from graphql import (
            GraphQLEnumType,
            GraphQLInputObjectType,
            GraphQLList,
            GraphQLNonNull,
            GraphQLScalarType,
        )

        if isinstance(gql_type, GraphQLNonNull):
            inner = self.graphql_value(gql_type.of_type, schema, depth)
            return st.one_of(inner, inner, inner, inner, inner, inner, inner, inner, st.none())
        if depth > 4:
            return self.scalars
        if isinstance(gql_type, GraphQLList):
            inner = self.graphql_value(gql_type.of_type, schema, depth + 1)
            return st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=4), inner)
        if isinstance(gql_type, GraphQLEnumType):
            return st.one_of(st.sampled_from(sorted(gql_type.values)), _text(10))
        if isinstance(gql_type, GraphQLInputObjectType):
            fields = gql_type.fields

            @st.composite
            def build(draw: Any) -> dict[str, Any]:
                value = {}
                for name, input_field in fields.items():
                    required = isinstance(input_field.type, GraphQLNonNull)
                    if required or draw(st.booleans()):
                        value[name] = draw(self.graphql_value(input_field.type, schema,
                                                              depth + 1))
                if draw(ONE_IN_TEN):
                    value[draw(st.sampled_from(self.fields))] = draw(self.scalars)
                return value

            return st.one_of(build(), build(), build(), build(), self.json)
        if isinstance(gql_type, GraphQLScalarType):
            return self._graphql_scalar(gql_type.name)
        return self.scalars

    def _graphql_scalar(self, name: str) -> st.SearchStrategy[Any]:
        if name == "ID":
            real = SPREAD.map(
                lambda i: self.pools.gids[i % len(self.pools.gids)] if self.pools.gids
                else "gid://seqcore/Sample/1")
            made = st.tuples(st.sampled_from(self.gid_types or ["Sample"]),
                             st.sampled_from(HOSTILE_IDS)).map(
                lambda t: f"gid://seqcore/{t[0]}/{t[1]}")
            paths = SPREAD.map(
                lambda i: self.pools.pick("fullPath", i) or "x/y")
            return st.one_of(real, real, made, paths, st.sampled_from(HOSTILE_STRINGS),
                             _text(20))
        if name == "String":
            cursors = st.sampled_from(HOSTILE_IDS).map(
                lambda v: base64.b64encode(v.encode("utf-8", "surrogatepass")).decode())
            return st.one_of(cursors, st.sampled_from(HOSTILE_STRINGS), _text(20))
        if name == "Int":
            return st.one_of(st.integers(-10, 200), st.sampled_from(HUGE_NUMBERS))
        if name == "Float":
            return st.one_of(st.floats(allow_nan=False), st.sampled_from(HUGE_NUMBERS))
        if name == "Boolean":
            return st.one_of(st.booleans(), self.scalars)
        # Custom scalars (JSON, dates...): anything.
        return st.one_of(self.json, _colliding_metadata(), self.scalars)


def _selection(gql_type: Any, depth: int = 0) -> str:
    """A selection set for ``gql_type``: its argument-free leaf fields, and one level of
    objects below, so the resolvers of each field run."""
    from graphql import (
        GraphQLInterfaceType,
        GraphQLObjectType,
        GraphQLUnionType,
        get_named_type,
        is_leaf_type,
    )

    named = get_named_type(gql_type)
    if is_leaf_type(named):
        return ""
    if isinstance(named, GraphQLUnionType) or not isinstance(
            named, GraphQLObjectType | GraphQLInterfaceType):
        return " { __typename }"
    parts = ["__typename"]
    for name, child in named.fields.items():
        if any(a.type.__class__.__name__ == "GraphQLNonNull" for a in child.args.values()):
            continue
        if is_leaf_type(get_named_type(child.type)):
            parts.append(name)
        elif depth < 2:
            parts.append(name + _selection(child.type, depth + 1))
    return " { " + " ".join(parts) + " }"


def _quote(value: str) -> str:
    return urllib.parse.quote(value.encode("utf-8", "surrogatepass"), safe="")


def _dumps(value: Any) -> bytes:
    """JSON with lone surrogates written as ``\\ud800`` escapes, as a hostile client would."""
    return json.dumps(value, ensure_ascii=True).encode("ascii")


def _multipart(args: tuple[Sequence[tuple[str, str | None, bytes, str | None]], str]
               ) -> tuple[bytes, str | None]:
    parts, boundary = args
    chunks = []
    for name, filename, content, content_type in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        if content_type:
            head += f"Content-Type: {content_type}\r\n"
        chunks.append(head.encode("utf-8", "surrogatepass") + b"\r\n" + content + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


# --- sending and recording ----------------------------------------------------------------


@dataclass
class Failure:
    route: str
    method: str
    path: str
    status: int
    cause: str
    where: str
    role: str
    body: bytes


@dataclass
class Findings:
    """Every request sent and every failure, with the server log's explanation."""

    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    routes_sent: Counter[str] = field(default_factory=Counter)
    route_statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    seconds: float = 0.0
    waiting: float = 0.0  # of ``seconds``, waiting for the server's answers
    # temporary file name -> the request after whose answer it was first seen
    temporary_files: dict[str, str] = field(default_factory=dict)

    def coverage(self) -> str:
        """Statuses by route: which routes the run reached past traversal and validation."""
        by_route: dict[str, Counter[int]] = defaultdict(Counter)
        for (route, status), count in self.route_statuses.items():
            by_route[route][status] += count
        return "\n".join(f"{route}: " + ", ".join(f"{k}x{v}" for k, v in sorted(c.items()))
                         for route, c in sorted(by_route.items()))

    def summary(self) -> str:
        by_cause: dict[tuple[str, str], list[Failure]] = defaultdict(list)
        for failure in self.failures:
            by_cause[(failure.cause.split(":", 1)[0], failure.where)].append(failure)
        routes = {f"{f.method} {f.route}" for f in self.failures}
        lines = [f"{self.requests} requests in {self.seconds:.0f} s "
                 f"({self.waiting:.0f} s waiting for answers), "
                 f"{len(self.failures)} failures (5xx or GraphQL internal errors) on "
                 f"{len(routes)} routes from {len(by_cause)} root causes; statuses: "
                 + ", ".join(f"{k}: {v}" for k, v in sorted(self.statuses.items()))]
        for (cause, where), group in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"\n* {len(group)} x {cause} at {where}")
            per_route = Counter(f"{f.method} {f.route} ({f.status})" for f in group)
            for route, count in per_route.most_common():
                lines.append(f"    - {count} x {route}")
            example = group[0]
            lines.append(f"    e.g. as {example.role}: {example.method} {example.path[:200]} "
                         f"body {example.body[:160]!r} -> {example.cause}")
        return "\n".join(lines)


class ServerLog:
    """Reads what the server logged since the last look, for the traceback of a failure."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0

    def new_text(self) -> str:
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        self.offset += len(data)
        return data.decode("utf-8", "replace")


def root_cause(log_text: str) -> tuple[str, str]:
    """``(exception, seqcore file:line)`` of the last traceback in ``log_text``: the exception
    type and message head, and the innermost frame inside seqcore or a plugin."""
    start = log_text.rfind("Traceback (most recent call last):")
    if start < 0:
        return "no traceback logged", "?"
    block = log_text[start:].splitlines()[1:]
    where = "?"
    exception = "?"
    for index, line in enumerate(block):
        frame = re.match(r'\s+File "([^"]+)", line (\d+), in (\S+)', line)
        if frame:
            path = frame.group(1)
            here = f"{_short(path)}:{frame.group(2)} ({frame.group(3)})"
            if any(m in path for m in REPO_MARKERS) and "site-packages" not in path:
                where = here
            elif not where.startswith(("seqcore", "plugins")):
                where = f"{here} (no seqcore frame)"
            continue
        if line and not line.startswith(" ") and index > 0:
            exception = line.strip()[:140]
            break
    return exception, where


def _internal_error(data: bytes) -> bool:
    """Whether a GraphQL answer reports a resolver's unexpected exception."""
    if b"internal_error" not in data:
        return False
    try:
        errors = json.loads(data).get("errors") or []
    except (ValueError, AttributeError):
        return False
    return any(isinstance(e, dict) and (e.get("extensions") or {}).get("code") ==
               "internal_error" for e in errors)


def _short(path: str) -> str:
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    for marker in ("/plugins/", "/seqcore/"):
        if marker in path:
            return path[path.index(marker) + 1:]
    return path


class Sender:
    """Sends requests over one keep-alive connection and records what came back."""

    def __init__(self, port: int, log: ServerLog, findings: Findings,
                 on_created: Callable[[str, Any], None] | None = None,
                 timeout: float = 60, pools: Pools | None = None,
                 temporary_dir: Path | None = None) -> None:
        self.pools = pools
        self.temporary_dir = temporary_dir  # storage's, to name what left a file there
        self.port = port
        self.log = log
        self.findings = findings
        self.on_created = on_created
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def send(self, route: str, method: str, path: str, headers: dict[str, str], body: bytes,
             role: str, graphql: bool = False) -> int:
        self.findings.requests += 1
        self.findings.routes_sent[f"{method} {route}"] += 1
        sent = time.monotonic()
        status, data = self._exchange(method, path, headers, body)
        self.findings.waiting += elapsed(sent)
        if self.temporary_dir is not None and self.temporary_dir.is_dir():
            for name in os.listdir(self.temporary_dir):
                self.findings.temporary_files.setdefault(
                    name, f"as {role}: {method} {path} -> {status}, body {body[:300]!r}")
        self.findings.statuses[status] += 1
        self.findings.route_statuses[(f"{method} {route}", status)] += 1
        cause: tuple[str, str] | None = None
        if status >= 500 or status == 0:
            text = self.log.new_text()
            cause = root_cause(text) if status else ("no answer (timeout or reset)", "?")
        elif graphql and status == 200 and _internal_error(data):
            cause = root_cause(self.log.new_text())
        if (status == 415 and self.pools is not None
                and b'"supported-media-types": ["multipart/form-data"]' in data):
            self.pools.uploads.add(route)
        if status == 400 and self.pools is not None and b"acceptable-properties" in data:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                self.pools.learn_fields(route, json.loads(data)["acceptable-properties"])
        if cause is not None:
            self.findings.failures.append(Failure(route, method, path, status, cause[0],
                                                  cause[1], role, body[:400]))
        elif 200 <= status < 300 and data[:1] == b"{":
            with contextlib.suppress(ValueError):
                answer = json.loads(data)
                if self.pools is not None and not graphql:
                    self.pools.learn_from_answer(route, answer)
                if self.on_created is not None:
                    self.on_created(route, answer)
        return status

    def _exchange(self, method: str, path: str, headers: dict[str, str], body: bytes
                  ) -> tuple[int, bytes]:
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=body if body or method in BODY_METHODS
                             else None, headers=headers)
                response = conn.getresponse()
                data = response.read()
                if response.will_close:
                    self.close()
                return response.status, data
            except TimeoutError:
                self.close()
                return 0, b""
            except (http.client.HTTPException, OSError):
                # A keep-alive connection the server closed: once more on a new one.
                self.close()
                if attempt == 2:
                    return 0, b""
        return 0, b""


def elapsed(start: float) -> float:
    return time.monotonic() - start


# --- the run ------------------------------------------------------------------------------


def request_plan(targets: list[Target]) -> list[tuple[Target | None, str]]:
    """What each request goes to, weighted: an endpoint's declared methods (writes more than
    reads), one method it does not declare, every other route's GET and POST, and GraphQL
    operations from the schema (``None``) for a fifth of the requests."""
    plan: list[tuple[Target | None, str]] = []
    for number, target in enumerate(targets):
        if not target.endpoint:
            plan += [(target, "GET"), (target, "POST")]
            continue
        for method in target.methods:
            plan += [(target, method)] * (4 if method in BODY_METHODS else
                                          1 if method == "HEAD" else 2)
        undeclared = [m for m in METHODS if m not in target.methods]
        if undeclared:
            plan.append((target, undeclared[number % len(undeclared)]))
    plan += [(None, "POST")] * (len(plan) // 4)
    return plan



def fuzz(targets: list[Target], strategies: Strategies, accounts: list[Account],
         sender: Sender, schema: Any, examples: int, seconds: float, seed: int | None = None,
         reseed: Callable[[], None] | None = None, reseed_every: int = 400) -> Findings:
    """Send up to ``examples`` generated requests within ``seconds``; return the findings.

    The run is the same for the same ``seed`` (0 if ``None``), as CI needs; requests are
    generated in chunks of :data:`CHUNK`, so up to one chunk more than ``examples`` is sent.
    ``reseed()`` is called every ``reseed_every`` requests to put back objects the run's own
    DELETEs removed, so later requests still reach real rows.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    findings = sender.findings
    start = time.monotonic()
    paths = {t.name: strategies.path(t) for t in targets}
    operations = strategies.graphql(schema)
    graphql_path = next((t.pattern for t in targets if t.graphql), "/api/graphql")
    plan = st.sampled_from(request_plan(targets))

    def send_one(data: Any, target: Target | None, method: str) -> None:
        account = data.draw(st.sampled_from(accounts))
        if target is None:  # an operation built from the GraphQL schema
            body = data.draw(operations)
            headers = {**account.headers(graphql=True), "Content-Type": "application/json"}
            sender.send("graphql (schema)", "POST", graphql_path, headers, body,
                        account.role, graphql=True)
            return
        path = data.draw(paths[target.name])
        if data.draw(ONE_IN_THREE):
            path += "?" + data.draw(strategies.query)
        body, content_type = data.draw(strategies.body(target, method))
        headers = account.headers(graphql=target.graphql)
        if content_type is not None:
            headers["Content-Type"] = content_type
        if data.draw(ONE_IN_THREE):
            headers["Accept"] = data.draw(st.sampled_from(ACCEPTS))
        sender.send(target.pattern, method, path, headers, body, account.role,
                    graphql=target.graphql)

    def reseed_now() -> None:
        if reseed is not None and findings.requests and findings.requests % reseed_every == 0:
            reseed()

    run = settings(database=None, deadline=None, phases=[Phase.generate],
                   suppress_health_check=list(HealthCheck))

    @settings(run, max_examples=CHUNK)
    @given(st.data())
    def one_request(data: Any) -> None:
        reseed_now()
        target, method = data.draw(plan)
        send_one(data, target, method)

    def first_request(target: Target, method: str) -> Callable[[], None]:
        """One request to ``target``: every endpoint is reached once before the weighted
        plan takes over, so a slow machine that sends fewer requests within ``seconds``
        still reaches them all."""

        @settings(run, max_examples=1)
        @given(st.data())
        def one(data: Any) -> None:
            reseed_now()
            send_one(data, target, method)

        return one

    # Chunks of CHUNK requests, each with a seed of its own, so the time budget is checked
    # between them (a test that stopped drawing midway would confuse hypothesis) and the
    # run is the same every time.
    try:
        first_pass = [(t, "GET" if "GET" in t.methods else t.methods[0])
                      for t in targets if t.endpoint and t.methods]
        for number, (target, method) in enumerate(first_pass):
            if elapsed(start) > seconds:
                break
            hypothesis_seed((seed or 0) * 100_003 - 1 - number)(first_request(target, method))()
        for chunk in range(-(-examples // CHUNK)):
            if elapsed(start) > seconds:
                break
            hypothesis_seed((seed or 0) * 100_003 + chunk)(one_request)()
    finally:
        findings.seconds = elapsed(start)
        sender.close()
    return findings
