"""Global ids: ``gid://<app>/<Type>/<integer>``.

The app segment is the ``seqcore.graphql.app`` setting (``seqcore``). A malformed id, an id of
another app, an id of the wrong type, or a number no id column holds (beyond 31 bits, or
digits other than ASCII ``0``-``9``) is a GraphQL error naming the id.
"""

from __future__ import annotations

import re

from graphql import GraphQLError

from seqcore.parsing.identifiers import parse_id

GID = re.compile(r"gid://([^/\s]+)/([A-Za-z_][A-Za-z0-9_]*)/([0-9]+)", re.ASCII)


def to_gid(app: str, type_name: str, pk: int | str) -> str:
    return f"gid://{app}/{type_name}/{pk}"


def parse_gid(app: str, value: object, expected: tuple[str, ...] = ()) -> tuple[str, int]:
    """``(type name, integer id)`` of a global id, or a :class:`GraphQLError`."""
    match = GID.fullmatch(value) if isinstance(value, str) else None
    pk = parse_id(match.group(3)) if match is not None else None
    if match is None or match.group(1) != app or pk is None:
        raise GraphQLError(f"{value} is not a valid seqcore ID.",
                           extensions={"code": "invalid_id"})
    type_name = match.group(2)
    if expected and type_name not in expected:
        raise GraphQLError(f"{value} is not a valid ID for {', '.join(expected)}",
                           extensions={"code": "invalid_id"})
    return type_name, pk
