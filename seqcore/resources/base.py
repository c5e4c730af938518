"""The base traversal context."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pyramid.request import Request

from seqcore.parsing.identifiers import parse_id

if TYPE_CHECKING:
    from seqcore.models.project import Project
    from seqcore.models.sample import Sample


class Context:
    """A node of the resource tree.

    ``read_permission`` is what a caller needs to know the node exists: when a write is
    denied to someone who cannot even read, the answer is 404 rather than 403.
    ``known_with`` lists further permissions that also reveal the node: one who may update
    a thing without reading it (a run's creator) knows it exists, so a verb it may not do
    there is 403, as IRIDA answers, not 404.
    """

    read_permission: str | None = None
    known_with: tuple[str, ...] = ()
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


class ProjectNode(Protocol):
    """What the contexts below a project read from their ``__parent__``
    (:class:`seqcore.resources.projects.ProjectResource`). The tree is built at run time from
    registered child factories, so a child names what it needs of its parent, not its class."""

    @property
    def project(self) -> Project: ...

    @property
    def project_id(self) -> int: ...


class SampleNode(Protocol):
    """What the contexts below a sample read from their ``__parent__``
    (:class:`seqcore.resources.samples.SampleResource`)."""

    sample: Sample

    def __getitem__(self, key: str) -> Any: ...


def int_key(key: str) -> int:
    """The numeric id a URL segment names; anything else (``²``, other scripts' digits, a
    number beyond what an id column holds) is simply not found. Every context looks ids up
    through this, so no database is asked about a number it cannot store."""
    number = parse_id(key)
    if number is None:
        raise KeyError(key)
    return number


def is_id(key: str) -> bool:
    """Whether a URL segment is written as an id (ASCII digits), whatever its value: such a
    segment names a row, never anything else (a run's sequencer type, a username)."""
    return key.isascii() and key.isdigit()


def readable(request: Request, context: Any) -> bool:
    """Whether the caller may know that ``context`` exists."""
    node = context
    while node is not None:
        permission = getattr(node, "read_permission", None)
        if permission is not None:
            return any(request.has_permission(each, node)
                       for each in (permission, *getattr(node, "known_with", ())))
        node = getattr(node, "__parent__", None)
    return True
