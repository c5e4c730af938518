"""Batch loading, so a page of samples costs a fixed number of SQL statements.

Resolvers ask a loader for one key and get a future; the loader collects every key asked for
during one pass of the executor (all items of a list are resolved before the event loop
turns) and fetches them with one statement. Loaders live for one request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.access import PROJECT, SAMPLE
from seqcore.fieldaccess import Caller, readable_entry
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.security.identity import Identity


class DataLoader:
    """Collects keys until the event loop turns, then calls ``batch(keys)`` once.

    ``batch`` returns a mapping; keys it leaves out resolve to ``None``.
    """

    def __init__(self, batch: Callable[[list[Any]], Mapping[Any, Any]]) -> None:
        self.batch = batch
        self._futures: dict[Hashable, asyncio.Future] = {}
        self._queue: list[Hashable] = []

    def load(self, key: Hashable) -> asyncio.Future:
        future = self._futures.get(key)
        if future is None:
            loop = asyncio.get_running_loop()
            future = self._futures[key] = loop.create_future()
            self._queue.append(key)
            if len(self._queue) == 1:
                loop.call_soon(self._dispatch)
        return future

    def load_many(self, keys: Iterable[Hashable]) -> asyncio.Future:
        return asyncio.gather(*(self.load(key) for key in keys))

    def prime(self, key: Hashable, value: Any) -> None:
        """Record a value fetched some other way (a page of samples already loaded)."""
        if key not in self._futures:
            future = asyncio.get_running_loop().create_future()
            future.set_result(value)
            self._futures[key] = future

    def _dispatch(self) -> None:
        keys, self._queue = self._queue, []
        try:
            found = self.batch(keys)
        except Exception as err:  # every waiting resolver sees the failure
            for key in keys:
                self._futures[key].set_exception(err)
            return
        for key in keys:
            self._futures[key].set_result(found.get(key))


def readable_project(identity: Identity) -> Any:
    """A condition on ``Project`` true for the projects ``identity`` may read, from the
    same rules as the project ACL (:data:`seqcore.access.PROJECT`)."""
    return PROJECT.readable(identity.user_id, identity.role)


def readable_sample(identity: Identity) -> Any:
    """A condition on ``Sample`` true for the samples ``identity`` may read, from the same
    rules as the sample ACL (:data:`seqcore.access.SAMPLE`)."""
    return SAMPLE.readable(identity.user_id, identity.role)


class Loaders:
    """The loaders of one request."""

    def __init__(self, db: Session, identity: Identity) -> None:
        self.db = db
        self.identity = identity
        self.metadata = DataLoader(self._metadata)
        self.sample = DataLoader(self._samples)
        self.project = DataLoader(self._projects)
        self.sample_project = DataLoader(self._sample_projects)

    def _metadata(self, sample_ids: list[int]) -> dict[int, dict[str, str]]:
        found: dict[int, dict[str, str]] = {sample_id: {} for sample_id in sample_ids}
        rows = self.db.execute(
            select(MetadataEntry.sample_id, MetadataEntry.field, MetadataEntry.value)
            .where(MetadataEntry.sample_id.in_(sample_ids),
                   readable_entry(Caller.of(self.identity)))
            .order_by(MetadataEntry.sample_id, MetadataEntry.field))
        for sample_id, field, value in rows:
            found[sample_id][field] = value
        return found

    def _samples(self, sample_ids: list[int]) -> dict[int, Sample]:
        query = select(Sample).where(Sample.id.in_(sample_ids), readable_sample(self.identity))
        return {sample.id: sample for sample in self.db.scalars(query)}

    def _projects(self, project_ids: list[int]) -> dict[int, Project]:
        query = select(Project).where(Project.id.in_(project_ids),
                                      readable_project(self.identity))
        return {project.id: project for project in self.db.scalars(query)}

    def _sample_projects(self, sample_ids: list[int]) -> dict[int, Project]:
        """The project shown as a sample's ``project``: among those holding it that the
        caller may read, the one that owns it, else the one it joined first."""
        query = (select(ProjectSample.sample_id, Project)
                 .join(Project, Project.id == ProjectSample.project_id)
                 .where(ProjectSample.sample_id.in_(sample_ids),
                        readable_project(self.identity))
                 .order_by(ProjectSample.sample_id, ProjectSample.owner.desc(),
                           ProjectSample.id))
        found: dict[int, Project] = {}
        for sample_id, project in self.db.execute(query):
            found.setdefault(sample_id, project)
            self.project.prime(project.id, project)
        return found


__all__ = ["DataLoader", "Loaders", "readable_project", "readable_sample"]
