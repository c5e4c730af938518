"""The core's REST endpoints, declared as :class:`seqcore.framework.contrib.Endpoint` objects and
registered through the same hook plugins use.

This package is one of the core's own plugins (``seqcore.framework.plugins.CORE_PLUGINS``): the REST
transport contributes its endpoints itself, so nothing below it has to know the views.
"""

from seqcore import hookimpl
from seqcore.framework.contrib import Endpoint


def core_endpoints() -> list[Endpoint]:
    from seqcore.rest.views import (
        activity,
        analyses,
        archive,
        attachments,
        bots,
        exports,
        files,
        groups,
        imports,
        linelist,
        members,
        metadata,
        metadatafields,
        ncbi,
        openapi,
        projects,
        remoteapis,
        root,
        runs,
        samples,
        sync,
        transfers,
        trash,
        users,
    )

    return [*root.ENDPOINTS, *users.ENDPOINTS, *projects.ENDPOINTS, *members.ENDPOINTS,
            *bots.ENDPOINTS, *samples.ENDPOINTS, *metadata.ENDPOINTS,
            *metadatafields.ENDPOINTS, *activity.ENDPOINTS, *linelist.ENDPOINTS,
            *files.ENDPOINTS, *runs.ENDPOINTS,
            *analyses.ENDPOINTS, *ncbi.ENDPOINTS, *groups.ENDPOINTS, *exports.ENDPOINTS,
            *attachments.ENDPOINTS, *trash.ENDPOINTS, *imports.ENDPOINTS,
            *transfers.ENDPOINTS, *archive.ENDPOINTS, *remoteapis.ENDPOINTS, *sync.ENDPOINTS,
            *openapi.ENDPOINTS]


@hookimpl
def register_rest_endpoints() -> list[Endpoint]:
    return core_endpoints()
