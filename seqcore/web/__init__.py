"""Server-rendered web pages: sign-in and sign-out, the profile page with its personal access
tokens, and GraphiQL. Plain HTML forms (they work without JavaScript, except GraphiQL),
signed-cookie sessions and CSRF tokens on every form."""

from __future__ import annotations

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.web.sessions")
    from seqcore.web.render import STATIC

    # A directory path rather than an asset spec: served straight from the file system, the
    # same way however seqcore was installed.
    config.add_static_view("-/static", str(STATIC), cache_max_age=3600)
    config.include("seqcore.web.views")
    config.include("seqcore.web.graphiql")
    config.include("seqcore.web.redoc")
    config.include("seqcore.web.downloads")
