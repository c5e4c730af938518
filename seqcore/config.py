"""Building the application: one function, in a fixed and commented order.

``main()`` (PasteDeploy), the CLI, the worker and the tests all call :func:`configure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyramid.config import Configurator

from seqcore.framework.plugins import build_plugin_manager
from seqcore.framework.settings import resolve_declared, resolve_settings
from seqcore.observability import tracing
from seqcore.resources.root import Root


def configure(settings: Mapping[str, Any] | None = None,
              plugins: Iterable[object] | None = None,
              origin: str = "the settings passed to configure") -> Configurator:
    """Assemble the application.

    :param settings: ini settings; ``SEQCORE_*`` environment variables override them
        (:mod:`seqcore.framework.settings`).
    :param plugins: plugin objects to load instead of the installed entry points (tests).
    :param origin: where ``settings`` came from (``ini file production.ini``), named when a
        value is refused.
    """
    raw = dict(settings or {})
    # 1. The core's settings first: loading plugins reads them.
    core = resolve_settings(raw, origin=origin)
    # 2. The plugin manager; then every declared setting (core and plugins) is parsed once,
    #    from the same sources, before anything else reads it. A bad or missing value stops
    #    here, naming the key, the value and where it came from.
    pm = build_plugin_manager(core, plugins)
    resolved = resolve_declared(raw, pm, origin=origin)
    # Traces on or off for this process before anything is built: the database engine gets
    # its SQL spans only if they are on (seqcore.observability.tracing).
    tracing.setup(resolved)

    config = Configurator(settings=resolved, root_factory=Root)
    config.registry.pm = pm
    # URL dispatch tries only the routes a path can match (before any route is added).
    config.include("seqcore.framework.routing")

    # 3. Core infrastructure, in dependency order: the service registry first (storage, the
    #    database, links, QC, analyses and executors register there against the interfaces
    #    of seqcore.services); the database (and pyramid_tm) before security
    #    (token lookups use request.db); links and resource directives before anything
    #    registers links or children; the REST machinery before endpoints. Malformed framing
    #    (paths, query strings, charsets, boundaries) is refused first.
    config.include("pyramid_services")
    config.include("seqcore.parsing.wellformed")
    config.include("seqcore.db")
    config.include("seqcore.security")
    # Operations: the request id and access log (a tween above all others, so even a refused
    # request has its line), /-/health, /-/ready and /-/metrics (public routes outside /api).
    config.include("seqcore.observability.accesslog")
    config.include("seqcore.observability.health")
    config.include("seqcore.observability.metrics")
    # A span per request under the access log's tween, spans around the storage service's
    # calls (both only when traces are on).
    config.include("seqcore.observability.tracehooks")
    config.include("seqcore.framework.links")
    config.include("seqcore.resources")
    config.include("seqcore.rest")
    config.include("seqcore.samples.metadata")
    config.include("seqcore.storage.service")
    config.include("seqcore.files.filekinds")
    config.include("seqcore.qc.processing")
    config.include("seqcore.analysis")
    config.include("seqcore.oauth")
    # Sessions and web pages (sign-in, access tokens, GraphiQL), then GraphQL, whose schema
    # is built by a late action once every contribution below is registered.
    config.include("seqcore.web")
    config.include("seqcore.graphql")

    # 4. Every declaration of the core and plugins, turned into conflict-checked actions.
    config.include("seqcore.framework.contributions")
    config.include("seqcore.projects.projecthash")

    # 5. The escape hatch: plugins may do anything else Pyramid allows.
    pm.hook.configure_app(config=config)
    # 6. Last of all (an action ordered after every other): the request extensions registered
    #    above become attributes of one request class, instead of a class made per request.
    config.include("seqcore.framework.requestclass")
    return config


def main(global_config: dict[str, Any] | None = None, **settings: Any):  # noqa: ANN201
    """PasteDeploy entry point (``pserve development.ini``): build the WSGI application; a bad
    setting's error names the ini file it came from."""
    from seqcore.observability.logconfig import apply as apply_logging

    ini = (global_config or {}).get("__file__")
    origin = f"ini file {ini}" if ini else "the PasteDeploy settings"
    config = configure(settings, origin=origin)
    # The server's process logs as the settings say (format, access log); tests' apps do not
    # touch the test runner's logging.
    apply_logging(config.get_settings())
    app = config.make_wsgi_app()
    compile_request_reads(app.registry)
    return app


def compile_request_reads(registry: Any) -> None:
    """Compile the prepared reads of every request's path (:mod:`seqcore.db.prepared`: the
    revocation generation, traversal's project and sample reads with their ACLs, a sample's
    metadata for each kind of caller, the project collection for each role) for the
    database, before the server takes requests."""
    from seqcore.models.revocation import generation_read
    from seqcore.models.user import SystemRole
    from seqcore.resources.projects import listing, project_with_acl
    from seqcore.resources.samples import project_sample_with_acl, sample_with_acl
    from seqcore.security.fieldaccess import readable_metadata
    from seqcore.services import IDatabaseEngine, registry_service

    dialect = registry_service(registry, IDatabaseEngine).dialect
    reads = [generation_read(), project_with_acl(), sample_with_acl(),
             project_sample_with_acl()]
    reads += [readable_metadata(kind) for kind in ((True, False), (False, True), (False, False))]
    reads += [listing(role.value, False) for role in SystemRole]
    for read in reads:
        read.compile_for(dialect)
