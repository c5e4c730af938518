"""The core's REST endpoints, declared as :class:`seqcore.contrib.Endpoint` objects and
registered through the same hook plugins use."""

from seqcore.contrib import Endpoint


def core_endpoints() -> list[Endpoint]:
    from seqcore.rest.views import (
        analyses,
        files,
        metadata,
        projects,
        root,
        runs,
        samples,
        users,
    )

    return [*root.ENDPOINTS, *users.ENDPOINTS, *projects.ENDPOINTS, *samples.ENDPOINTS,
            *metadata.ENDPOINTS, *files.ENDPOINTS, *runs.ENDPOINTS, *analyses.ENDPOINTS]
