"""The base traversal context."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request


class Context:
    """A node of the resource tree.

    ``read_permission`` is what a caller needs to know the node exists: when a write is
    denied to someone who cannot even read, the answer is 404 rather than 403.
    """

    read_permission: str | None = None
    has_self_link = True

    def __init__(self, request: Request, name: str, parent: Context | None) -> None:
        self.request = request
        self.__name__ = name
        self.__parent__ = parent

    def child(self, key: str) -> Any:
        """Return the child named ``key``; raise ``KeyError`` when there is none."""
        raise KeyError(key)

    def __getitem__(self, key: str) -> Any:
        table = self.request.registry.get("seqcore.children", {})
        for cls in type(self).__mro__:
            factory = table.get(cls, {}).get(key)
            if factory is not None:
                return factory(self)
        return self.child(key)

    @property
    def db(self) -> Any:
        return self.request.db


def int_key(key: str) -> int:
    """Numeric ids in URLs; anything else is simply not found."""
    if not key.isdigit() or len(key) > 18:
        raise KeyError(key)
    return int(key)


def readable(request: Request, context: Any) -> bool:
    """Whether the caller may know that ``context`` exists."""
    node = context
    while node is not None:
        permission = getattr(node, "read_permission", None)
        if permission is not None:
            return bool(request.has_permission(permission, node))
        node = getattr(node, "__parent__", None)
    return True
