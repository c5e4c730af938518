"""What every resolver finds in ``info.context``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyramid.request import Request

from seqcore.graphql.ids import parse_gid, to_gid
from seqcore.graphql.loaders import Loaders
from seqcore.security.identity import Identity


@dataclass
class Context:
    """The request, the caller, the request's loaders, and the schema's node types."""

    request: Request
    identity: Identity
    loaders: Loaders
    app: str
    node_types: dict[str, type] = field(default_factory=dict)
    method: str | None = None  # how the caller authenticated: "token" or "session"

    @property
    def db(self) -> Any:
        return self.request.db

    def gid(self, type_name: str, pk: int) -> str:
        return to_gid(self.app, type_name, pk)

    def parse(self, value: object, *expected: str) -> tuple[str, int]:
        return parse_gid(self.app, value, expected)
