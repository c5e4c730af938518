"""Domain errors: what an operation answers when it cannot do what was asked.

The domain (projects, samples, metadata, uploads, launching analyses) knows nothing of HTTP or
GraphQL. It raises one of these, and each transport turns it into its own wire format: REST
into a status and a JSON body (``seqcore.rest.errors``), GraphQL into payload errors or a
top-level error (``seqcore.graphql.mutations.base``). Plugins raise them too, through
``seqcore.plugin``, so a plugin's checks read the same on every transport.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class DomainError(Exception):
    """Base of the errors an operation raises on purpose; ``message`` is for the caller."""

    default_message = "The request cannot be carried out."

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)


class NotFound(DomainError):
    """The thing named does not exist, or the caller may not know that it does."""

    default_message = "The resource was not found."


class Forbidden(DomainError):
    """The caller may see the thing but not do this to it."""

    default_message = "You are not allowed to do this."


class Conflict(DomainError):
    """The request is well formed but clashes with the current state (a name taken, data in
    use, an analysis type not ready)."""

    default_message = "The request conflicts with the current state of the resource."


class Invalid(DomainError):
    """The input has problems: ``problems`` maps each input field to its messages, so a caller
    can fix them all at once. ``extra`` carries anything a transport should show beside them
    (the acceptable field names when unknown fields were sent)."""

    default_message = "The request could not be understood."

    def __init__(self, problems: Mapping[str, Sequence[str]] | None = None,
                 message: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.problems = {key: list(messages) for key, messages in (problems or {}).items()}
        self.has_message = message is not None
        self.extra = extra

    @classmethod
    def field(cls, name: str, message: str) -> Invalid:
        """One problem with one field."""
        return cls({name: [message]})
