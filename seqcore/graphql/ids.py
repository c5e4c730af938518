"""Global ids: ``gid://<app>/<Type>/<integer>``.

The app segment is the ``seqcore.graphql.app`` setting (``seqcore``). A malformed id, an id of
another app, or an id of the wrong type is a GraphQL error naming the id.
"""

from __future__ import annotations

import re

from graphql import GraphQLError

GID = re.compile(r"gid://([^/\s]+)/([A-Za-z_][A-Za-z0-9_]*)/([0-9]{1,18})")


def to_gid(app: str, type_name: str, pk: int | str) -> str:
    return f"gid://{app}/{type_name}/{pk}"


def parse_gid(app: str, value: object, expected: tuple[str, ...] = ()) -> tuple[str, int]:
    """``(type name, integer id)`` of a global id, or a :class:`GraphQLError`."""
    match = GID.fullmatch(value) if isinstance(value, str) else None
    if match is None or match.group(1) != app:
        raise GraphQLError(f"{value} is not a valid seqcore ID.",
                           extensions={"code": "invalid_id"})
    type_name = match.group(2)
    if expected and type_name not in expected:
        raise GraphQLError(f"{value} is not a valid ID for {', '.join(expected)}",
                           extensions={"code": "invalid_id"})
    return type_name, int(match.group(3))
