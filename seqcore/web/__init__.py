"""Server-rendered web pages: the workbench (dashboard, groups, projects and their samples,
analyses, management), sign-in and sign-out, the profile page with its personal access
tokens, GraphiQL and Redoc. Plain HTML forms that work without JavaScript (Turbo and Stimulus
make them better), signed-cookie sessions and CSRF tokens on every form, every message in
English or French (``seqcore.web.i18n``). ``docs/web.md`` describes the pages."""

from __future__ import annotations

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.web.sessions")
    config.include("seqcore.web.i18n")
    config.include("seqcore.web.framing")
    from seqcore.web.render import STATIC

    # A directory path rather than an asset spec: served straight from the file system, the
    # same way however seqcore was installed.
    config.add_static_view("-/static", str(STATIC), cache_max_age=3600)
    config.include("seqcore.web.views")
    config.include("seqcore.web.graphiql")
    config.include("seqcore.web.redoc")
    config.include("seqcore.web.downloads")
    config.include("seqcore.web.frontend")
    config.include("seqcore.web.dashboard")
    config.include("seqcore.web.activity")
    config.include("seqcore.web.groups")
    config.include("seqcore.web.projects")
    config.include("seqcore.web.sync")
    config.include("seqcore.web.bulk")
    config.include("seqcore.web.exports")
    config.include("seqcore.web.imports")
    config.include("seqcore.web.manage")
    config.include("seqcore.web.shares")
    config.include("seqcore.web.bots")
    config.include("seqcore.web.lifecycle")
    config.include("seqcore.web.samples")
    config.include("seqcore.web.uploads")
    config.include("seqcore.web.accounts")
    config.include("seqcore.web.clients")
    config.include("seqcore.web.remotes")
    config.include("seqcore.web.qc")
    config.include("seqcore.web.projectqc")
    config.include("seqcore.web.pluginviews")
    # /-/analyses/new before /-/analyses/{id}, which would take it otherwise.
    config.include("seqcore.web.launch")
    config.include("seqcore.web.analyses")
