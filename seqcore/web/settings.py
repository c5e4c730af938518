"""Settings read by the web pages, sessions and the GraphQL endpoint.

Each has a default here and, like every core setting, an ``SEQCORE_*`` environment override
(``seqcore.session.secret`` → ``SEQCORE_SESSION_SECRET``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from seqcore.settings import as_bool, env_name

DEFAULTS: dict[str, tuple[Any, Callable[[Any], Any], str]] = {
    "seqcore.session.secret": ("", str, "Signs session cookies. Required in production; "
                               "SQLite deployments generate one next to the database file."),
    "seqcore.session.secure": (False, as_bool, "Send the session cookie over HTTPS only."),
    "seqcore.session.max_age": (28800, int, "Seconds a session lasts without activity."),
    "seqcore.graphql.app": ("seqcore", str, "The app segment of GraphQL global ids "
                            "(gid://<app>/<Type>/<id>)."),
    "seqcore.graphql.max_depth": (15, int, "Deepest GraphQL selection accepted."),
    "seqcore.graphql.max_complexity": (550, int, "Highest GraphQL query complexity accepted."),
    "seqcore.graphql.max_response_bytes": (4 * 1024 * 1024, int, "Largest GraphQL answer "
                                           "sent; a larger one is a GraphQL error instead."),
    "seqcore.graphiql.assets": ("", str, "Directory holding the installed npm packages "
                                "(node_modules) GraphiQL is served from; default: the "
                                "source tree's node_modules."),
}


def setting(settings: Mapping[str, Any], name: str) -> Any:
    """The value of ``name``: environment, then ini, then the default."""
    default, convert, _ = DEFAULTS[name]
    value = os.environ.get(env_name(name), settings.get(name, default))
    return convert(value)
