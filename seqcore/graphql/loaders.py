"""Batch loading, so a page of samples costs a fixed number of SQL statements.

Resolvers ask a loader for one key and get a future; the loader collects every key asked for
during one pass of the executor (all items of a list are resolved before the event loop
turns) and fetches them with one statement. Loaders live for one request.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from datetime import datetime
from functools import cache
from typing import Any

import aiodataloader
from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.orm import Session

from seqcore.graphql.attachments import attachment_pages, readable_attachment
from seqcore.models.attachment import Attachment
from seqcore.models.group import Group
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.user import User
from seqcore.security.access import GROUP, PROJECT, SAMPLE
from seqcore.security.fieldaccess import (
    Caller,
    CallerKind,
    caller_form,
    caller_kind,
    caller_params,
    readable_entry,
)
from seqcore.security.identity import Identity


class DataLoader(aiodataloader.DataLoader):
    """aiodataloader's loader over a plain batch function: ``batch(keys)`` runs in the
    request's own session (synchronously, as every statement of a request does) and returns a
    mapping; keys it leaves out resolve to ``None``. aiodataloader collects the keys asked for
    until the event loop turns and caches each key's future for the request.

    ``bench/dataloader.py`` prints its cost per key against the floor (one future and one
    batch call per key): about 8 µs against 4-6 µs at 100 keys, so batching the ~300 keys of a
    page of 100 samples with metadata and projects costs about 1 ms more than the floor.
    """

    def __init__(self, batch: Callable[[list[Any]], Mapping[Any, Any]]) -> None:
        self._batch = batch
        super().__init__()

    async def batch_load_fn(self, keys: list[Any]) -> list[Any]:
        found = self._batch(list(keys))
        return [found.get(key) for key in keys]


def readable_project(identity: Identity) -> Any:
    """A condition on ``Project`` true for the projects ``identity`` may read, from the
    same rules as the project ACL (:data:`seqcore.security.access.PROJECT`)."""
    return PROJECT.readable(identity.user_id, identity.role)


def readable_sample(identity: Identity) -> Any:
    """A condition on ``Sample`` true for the samples ``identity`` may read, from the same
    rules as the sample ACL (:data:`seqcore.security.access.SAMPLE`)."""
    return SAMPLE.readable(identity.user_id, identity.role)


def readable_group(identity: Identity) -> Any:
    """A condition on ``Group`` true for the groups ``identity`` may read, from the same
    rules as the group ACL (:data:`seqcore.security.access.GROUP`)."""
    return GROUP.readable(identity.user_id, identity.role)


# The metadata statements, built once per kind of caller
# (:func:`seqcore.security.fieldaccess.caller_form`): building the field-access condition and
# hashing it again for every request had cost a third of a page of 100 samples' metadata.


@cache
def _metadata(kind: CallerKind) -> Select[int, str, str]:
    return (select(MetadataEntry.sample_id, MetadataEntry.field, MetadataEntry.value)
            .where(MetadataEntry.sample_id.in_(bindparam("sample_ids", expanding=True)),
                   readable_entry(caller_form(kind)))
            .order_by(MetadataEntry.sample_id, MetadataEntry.field))


@cache
def _metadata_summaries(kind: CallerKind) -> Select[int, str, int]:
    return (select(ProjectSample.project_id, MetadataEntry.field,
                   func.count(func.distinct(MetadataEntry.sample_id)))
            .join(MetadataEntry, MetadataEntry.sample_id == ProjectSample.sample_id)
            .where(ProjectSample.project_id.in_(bindparam("project_ids", expanding=True)),
                   readable_entry(caller_form(kind)))
            .group_by(ProjectSample.project_id, MetadataEntry.field)
            .order_by(ProjectSample.project_id, MetadataEntry.field))


class Loaders:
    """The loaders of one request."""

    def __init__(self, db: Session, identity: Identity) -> None:
        self.db = db
        self.identity = identity
        self.group = DataLoader(self._groups)
        self.metadata_summary = DataLoader(self._metadata_summaries)
        self.user = DataLoader(self._users)
        self.user_namespace = DataLoader(self._user_namespaces)
        self._pages: dict[Hashable, DataLoader] = {}
        self.metadata = DataLoader(self._metadata)
        self.sample = DataLoader(self._samples)
        self.project = DataLoader(self._projects)
        self.sample_project = DataLoader(self._sample_projects)
        self.attachment = DataLoader(self._attachments)
        self.attachments = DataLoader(lambda queries: attachment_pages(self.db, queries))
        self.attachments_updated = DataLoader(self._attachments_updated)

    def pages(self, key: Hashable, batch: Callable[[list[Any]], Mapping[Any, Any]]
              ) -> DataLoader:
        """The loader of one kind of page (``key``: the field and its arguments), made on
        first use: the same connection under every item of a list is fetched once."""
        loader = self._pages.get(key)
        if loader is None:
            loader = self._pages[key] = DataLoader(batch)
        return loader

    def _metadata_summaries(self, project_ids: list[int]) -> dict[int, dict[str, int]]:
        """For each project, how many of its samples hold each metadata field the caller
        may read (``seqcore.security.fieldaccess.readable_entry``)."""
        found: dict[int, dict[str, int]] = {pid: {} for pid in project_ids}
        caller = Caller.of(self.identity)
        rows = self.db.execute(_metadata_summaries(caller_kind(caller)),
                               {"project_ids": project_ids, **caller_params(caller)})
        for project_id, field, count in rows:
            found[project_id][field] = count
        return found

    def _groups(self, group_ids: list[int]) -> dict[int, Group]:
        query = select(Group).where(Group.id.in_(group_ids), readable_group(self.identity))
        return {group.id: group for group in self.db.scalars(query)}

    def _users(self, user_ids: list[int]) -> dict[int, User]:
        return {user.id: user for user in self.db.scalars(select(User).where(
            User.id.in_(user_ids)))}

    def _user_namespaces(self, namespaces: list[str]) -> dict[str, User]:
        """The accounts whose personal namespaces these are (a namespace is the username,
        lower-cased)."""
        return {user.username.lower(): user for user in self.db.scalars(select(User).where(
            func.lower(User.username).in_(namespaces)))}

    def _metadata(self, sample_ids: list[int]) -> dict[int, dict[str, str]]:
        found: dict[int, dict[str, str]] = {sample_id: {} for sample_id in sample_ids}
        caller = Caller.of(self.identity)
        rows = self.db.execute(_metadata(caller_kind(caller)),
                               {"sample_ids": sample_ids, **caller_params(caller)})
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

    def _attachments(self, attachment_ids: list[int]) -> dict[int, Attachment]:
        query = select(Attachment).where(Attachment.id.in_(attachment_ids),
                                         readable_attachment(self.identity))
        return {attachment.id: attachment for attachment in self.db.scalars(query)}

    def _attachments_updated(self, sample_ids: list[int]) -> dict[int, datetime]:
        """``Sample.attachmentsUpdatedAt``: when each sample's attachments last changed
        (the latest creation or change among them; samples without any are left out)."""
        latest = func.max(func.coalesce(Attachment.modified, Attachment.created))
        rows = self.db.execute(select(Attachment.sample_id, latest)
                               .where(Attachment.sample_id.in_(sample_ids))
                               .group_by(Attachment.sample_id))
        return {sample_id: when for sample_id, when in rows if sample_id is not None}

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


__all__ = ["DataLoader", "Loaders", "readable_group", "readable_project", "readable_sample"]
