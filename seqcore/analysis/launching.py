"""What a launch is made of, in typed form: the request a transport parsed, who asks, and
what an analysis type's own launch check sees and answers.

REST and GraphQL each read their wire format into a :class:`LaunchRequest`;
:func:`seqcore.analysis.service.launch` checks it and creates the submission. An analysis type
that needs more than the generic launch (a reference genome resolved and checked against the
caller's permissions) declares ``launch_fields``, ``launch_check`` and ``record_launch`` on its
:class:`~seqcore.framework.contrib.AnalysisType`; the objects below are what those callables
receive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from seqcore.models.analysis import Priority

# The launch fields every analysis type takes, by the names its problems are reported under
# (REST's body keys). A type's own ``launch_fields`` may not reuse them.
GENERIC_FIELDS = ("name", "sequencingObjects", "samples", "projects", "parameters",
                  "writeResultsToSamples", "priority", "description")


@dataclass(frozen=True)
class LaunchRequest:
    """A launch as a transport read it.

    :param analysis_type: the type's name or alias.
    :param name: the submission's name (the type's label when ``None``).
    :param object_ids: sequencing objects to analyse; ``sample_ids`` add each sample's latest
        object of an accepted kind.
    :param project_ids: projects the submission is shared with.
    :param group_id: the group namespace launched in (IRIDA Next's group workflow
        executions): each sample must be in a project of the group or of its subgroups that
        the caller reads, and the submission is shared with those projects.
    :param parameters: the parameter values given (checked against the type's schema).
    :param write_back: write the results back to the samples.
    :param email_notification: e-mail the submitter when it ends (:mod:`seqcore.notifications`).
    :param priority: ``LOW``, ``MEDIUM`` or ``HIGH``.
    :param extra: values of the fields the type declares in ``launch_fields``, as given.
    :param problems: what the transport could not read (a list where ids belong), keyed like
        the launch's own problems; the launch reports them together with its own, so the
        caller learns everything at once. A field with a problem is passed as absent.
    """

    analysis_type: str
    name: str | None = None
    object_ids: tuple[int, ...] = ()
    sample_ids: tuple[int, ...] = ()
    project_ids: tuple[int, ...] = ()
    group_id: int | None = None
    parameters: Any = None
    write_back: bool = False
    email_notification: bool = False
    priority: Any = Priority.MEDIUM.value
    description: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    problems: Mapping[str, Sequence[str]] = field(default_factory=dict)


class Actor:
    """Who launches, for the checks that depend on it.

    Built from the Pyramid request, which carries the database session, the identity and the
    permission checks of this call; nothing else of the request (its body, its HTTP errors) is
    used. ``may`` answers through the same traversal ACLs as every REST endpoint, so a launch
    check sees exactly what the caller may read.
    """

    def __init__(self, request: Any) -> None:
        self._request = request

    @property
    def db(self) -> Any:
        return self._request.db

    @property
    def storage(self) -> Any:
        return self._request.storage

    @property
    def user_id(self) -> int | None:
        identity = self._request.identity
        return identity.user_id if identity else None

    @property
    def identity(self) -> Any:
        """The caller's :class:`~seqcore.security.identity.Identity` (``None``: none)."""
        return self._request.identity

    def context(self, *path: str) -> Any | None:
        """The resource at ``/api/<path...>``, or ``None`` when there is none."""
        node = self._request.root["api"]
        try:
            for name in path:
                node = node[str(name)]
        except KeyError:
            return None
        return node

    def may(self, permission: str, *path: str) -> bool:
        """Whether the caller holds ``permission`` on ``/api/<path...>`` (false when there is
        nothing there: what the caller may not read does not exist for it)."""
        context = self.context(*path)
        return context is not None and bool(self._request.has_permission(permission, context))


@dataclass(frozen=True)
class Launch:
    """What an analysis type's ``launch_check`` receives: the launch with the generic checks
    done.

    :param request: the launch as given (``request.extra`` holds the type's own fields).
    :param analysis_type: the type launched.
    :param inputs: the sequencing objects resolved from the objects and samples named.
    :param parameters: the parameters typed and completed with their defaults.
    :param problems: the problems the generic checks found; a check may stay quiet about
        something that only matters once those are fixed.
    :param actor: who launches (database session, permission checks, storage).
    """

    request: LaunchRequest
    analysis_type: Any
    inputs: tuple[Any, ...]
    parameters: Mapping[str, Any]
    problems: Mapping[str, Sequence[str]]
    actor: Actor

    @property
    def db(self) -> Any:
        return self.actor.db

    @property
    def sample_ids(self) -> set[int]:
        """The samples the inputs belong to."""
        return {obj.sample_id for obj in self.inputs}


@dataclass(frozen=True)
class LaunchChecked:
    """What a ``launch_check`` answers: ``problems`` keyed by field (reported with the
    generic ones, as one 400), and ``resolved`` values handed to the type's ``record_launch``
    once the submission exists (a reference's stored path)."""

    problems: Mapping[str, Sequence[str]] = field(default_factory=dict)
    resolved: Mapping[str, Any] = field(default_factory=dict)
