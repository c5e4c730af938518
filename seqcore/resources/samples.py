"""Samples: canonically at ``/api/samples/{id}``, and listed under each project holding them."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import and_, bindparam
from sqlalchemy.orm.util import identity_key

from seqcore.db.prepared import PreparedRead, attach
from seqcore.models.project import Project
from seqcore.models.sample import ProjectSample, Sample
from seqcore.resources.base import Context, ProjectNode, int_key
from seqcore.security.access import SAMPLE, SAMPLES, Ace
from seqcore.security.permissions import Permission


class SamplesCollection(Context):
    """``/api/samples``: no listing of its own; samples are listed per project."""

    __acl__ = SAMPLES.acl()

    def child(self, key: str) -> Any:
        sid = int_key(key)
        if identity_key(Sample, sid) in self.db.identity_map:  # loaded already: no query
            sample = self.db.get(Sample, sid)
            if sample is None:
                raise KeyError(key)
            return SampleResource(self.request, str(sample.id), self, sample)
        self.db.flush()  # as an ORM query would (autoflush): the row includes this request's
        rows = sample_with_acl().all(self.db.connection(), object_id=sid)
        if not rows:
            raise KeyError(key)
        sample = attach(self.db, Sample, rows[0])
        context = SampleResource(self.request, str(sample.id), self, sample)
        context._acl = SAMPLE.acl_of(sample, [(r.grant, r.user_id) for r in rows])
        return context


@cache
def sample_with_acl() -> PreparedRead:
    """A sample's columns by id with its ACL's rows
    (:meth:`seqcore.security.access.Rules.with_acl`):
    one prepared statement (:mod:`seqcore.db.prepared`) where loading the sample and then its
    ACL took two; the mapped Sample is built from the row (:func:`seqcore.db.prepared.attach`)."""
    return PreparedRead(SAMPLE.with_acl(*Sample.__table__.columns), ("object_id",))


class SampleResource(Context):
    read_permission = SAMPLE.read

    def __init__(self, request: Any, name: str, parent: Context, sample: Sample) -> None:
        super().__init__(request, name, parent)
        self.sample = sample

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.SAMPLE`: members of any project holding the
        sample read it; owners of a project that owns it write and own it; sequencer accounts
        read and write (they upload into any sample) but own none."""
        if not hasattr(self, "_acl"):
            self._acl = SAMPLE.acl(self.db, self.sample)
        return self._acl

    def child(self, key: str) -> Any:
        if key == "metadata":
            return SampleMetadata(self.request, key, self)
        if key == "sequenceFiles":
            from seqcore.resources.files import SampleSequenceFiles

            return SampleSequenceFiles(self.request, key, self)
        raise KeyError(key)


class SampleMetadata(Context):
    """``/api/samples/{id}/metadata``."""


class ProjectSamples(Context):
    """``/api/projects/{id}/samples``."""

    def child(self, key: str) -> Any:
        if key == "metadata":
            return ProjectSamplesMetadata(self.request, key, self)
        if key == "bySampleName":
            return SampleByName(self.request, key, self)
        sid = int_key(key)
        self.db.flush()  # as an ORM query would (autoflush)
        rows = project_sample_with_acl().all(self.db.connection(), object_id=sid,
                                             project_id=self.project.id)
        if not rows:
            raise KeyError(key)
        first = rows[0]
        sample = attach(self.db, Sample, first)
        join = attach(self.db, ProjectSample, SimpleNamespace(**{
            column.key: getattr(first, f"{_JOINED}{column.key}")
            for column in ProjectSample.__table__.columns}))
        context = ProjectSampleResource(self.request, key, self, sample, join)
        context._acl = SAMPLE.acl_of(sample, [(r.grant, r.user_id) for r in rows])
        return context

    @property
    def project(self) -> Project:
        return cast(ProjectNode, self.__parent__).project


_JOINED = "project_sample_"


@cache
def project_sample_with_acl() -> PreparedRead:
    """A sample of a project (``object_id``, ``project_id``): the sample's columns, its
    ``ProjectSample`` row's (prefixed ``project_sample_``) and the sample's ACL rows, in one
    prepared statement (:mod:`seqcore.db.prepared`) where the ORM query of the two rows and
    then the ACL took two statements and most of the request's time."""
    joined = [column.label(f"{_JOINED}{column.key}")
              for column in ProjectSample.__table__.columns]
    statement = SAMPLE.with_acl(*Sample.__table__.columns, *joined).join(
        ProjectSample, and_(ProjectSample.sample_id == Sample.id,
                            ProjectSample.project_id == bindparam("project_id")))
    return PreparedRead(statement, ("object_id", "project_id"))


class ProjectSampleResource(SampleResource):
    """A sample as reached through a project: its links are the canonical sample's, plus
    ``sample/project`` and ``project/sample``. Reading it needs the project's read
    permission; removing it from the project needs the project's write permission."""

    __parent__: ProjectSamples

    read_permission = Permission.PROJECT_READ

    def __init__(self, request: Any, name: str, parent: Context, sample: Sample,
                 join: ProjectSample | None = None) -> None:
        super().__init__(request, name, parent, sample)
        self.join = join
        samples = request.root["api"]["samples"]
        self.canonical = SampleResource(request, str(sample.id), samples, sample)

    @property
    def project_ctx(self) -> Any:
        return self.__parent__.__parent__


class ProjectSamplesMetadata(Context):
    """``/api/projects/{id}/samples/metadata``: every sample's metadata."""


class SampleByName(Context):
    """``/api/projects/{id}/samples/bySampleName?sampleName=``: a redirect to the sample."""
