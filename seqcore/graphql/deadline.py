"""A wall-clock limit per GraphQL request (``seqcore.graphql.max_seconds``).

graphql-core resolves one field after another; :meth:`Deadline.resolve` (a graphql-core
middleware) runs before each resolver and, once the time is up, answers the field with an
error instead of resolving it, so a request that asks for too much stops within about one
resolver's time of its limit. The view then saves nothing of a mutation request
(:mod:`seqcore.graphql.view`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from graphql import GraphQLError


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.at = self.started + seconds
        self.passed_during_execution = False

    @property
    def message(self) -> str:
        return (f"The request ran longer than {self.seconds:g} s "
                "(seqcore.graphql.max_seconds); ask for less at once.")

    def resolve(self, next_: Callable[..., Any], root: Any, info: Any, **args: Any) -> Any:
        """graphql-core middleware (an object with ``resolve``): runs before every resolver."""
        if time.monotonic() > self.at:
            self.passed_during_execution = True
            raise GraphQLError(self.message, extensions={"code": "timeout"})
        return next_(root, info, **args)
