"""The REST machinery. The only package that imports cornice.

Plugins describe endpoints with :class:`seqcore.framework.contrib.Endpoint` and
:class:`seqcore.framework.contrib.View`; :func:`seqcore.rest.endpoints.add_endpoint` turns them into
cornice services, so the web-framework details can change in one place.
"""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    # seqcore renders every error itself (seqcore.rest.errors), in the contract's shapes.
    config.get_settings()["handle_exceptions"] = False
    config.include("cornice")
    config.include("seqcore.rest.errors")
    config.include("seqcore.rest.renderers")
    config.include("seqcore.rest.endpoints")
    config.include("seqcore.rest.kinds")
    config.include("seqcore.rest.openapi")
