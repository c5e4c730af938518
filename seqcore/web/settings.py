"""The settings of the web pages, sessions and the GraphQL endpoint.

Declared like every core setting (:mod:`seqcore.settings` resolves them once at start-up,
environment first: ``seqcore.session.secret`` → ``SEQCORE_SESSION_SECRET``); code reads the
typed values from ``registry.settings``.
"""

from __future__ import annotations

from seqcore.contrib import Setting
from seqcore.settings import as_bool

WEB_SETTINGS: tuple[Setting, ...] = (
    Setting("seqcore.session.secret", "", "Signs session cookies. Required in production; "
            "SQLite deployments generate one next to the database file."),
    Setting("seqcore.session.secure", False, "Send the session cookie over HTTPS only.",
            as_bool),
    Setting("seqcore.session.max_age", 28800, "Seconds a session lasts without activity.",
            int),
    Setting("seqcore.graphql.app", "seqcore", "The app segment of GraphQL global ids "
            "(gid://<app>/<Type>/<id>)."),
    Setting("seqcore.graphql.max_depth", 15, "Deepest GraphQL selection accepted.", int),
    Setting("seqcore.graphql.max_complexity", 550, "Highest GraphQL query complexity "
            "accepted.", int),
    Setting("seqcore.graphql.max_response_bytes", 4 * 1024 * 1024, "Largest GraphQL answer "
            "sent; a larger one is a GraphQL error instead.", int),
    Setting("seqcore.graphiql.assets", "", "Directory holding the installed npm packages "
            "(node_modules) GraphiQL is served from; default: the source tree's "
            "node_modules."),
)
