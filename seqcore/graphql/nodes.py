"""The ``Node`` interface and the global id every node type resolves, apart from the core's
types so that types defined elsewhere (NCBI submissions) can be fields of the core's."""

from __future__ import annotations

from typing import Any

import graphene


class Node(graphene.Interface):
    """An object with a global id (``gid://<app>/<Type>/<integer>``)."""

    id = graphene.ID(required=True)


def _gid(root: Any, info: Any) -> str:
    return info.context.gid(info.parent_type.name, root.id)
